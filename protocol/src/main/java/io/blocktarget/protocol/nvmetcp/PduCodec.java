package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Shared header and data layout steps of the PDU records (NVMe/TCP §3.5: CH, PSH, HDGST, PAD, DATA, DDGST). */
final class PduCodec {
    private PduCodec() {
    }

    /** Writes the common header; returns the PDU's start index. */
    static int begin(ByteBuf out, NvmeTcpPduType type, int extraFlags, PduOptions o, int dataLength) {
        int start = out.writerIndex();
        int pdo = dataLength == 0 || type.isTermReq() ? 0 : o.dataOffset(type);
        NvmeTcpHeader.encode(out, type.code(), o.digestFlags(type, dataLength > 0) | extraFlags, type.hlen(), pdo,
                type.isTermReq() ? type.hlen() + dataLength : o.plen(type, dataLength));
        return start;
    }

    /** After the PSH: the header digest and the PAD up to PDO when data follows. */
    static void endHeader(ByteBuf out, int start, NvmeTcpPduType type, PduOptions o, int dataLength) {
        if (type.digestible() && o.headerDigest()) {
            NvmeTcpDigests.writeHeaderDigest(out, start);
        }
        if (dataLength > 0 && type.digestible()) {
            out.writeZero(start + o.dataOffset(type) - out.writerIndex());
        }
    }

    /** Data and its digest. */
    static void writeData(ByteBuf out, NvmeTcpPduType type, PduOptions o, ByteBuf data) {
        if (data.isReadable()) {
            out.writeBytes(data, data.readerIndex(), data.readableBytes());
            if (type.digestible() && o.dataDigest()) {
                NvmeTcpDigests.writeDataDigest(out, data);
            }
        }
    }

    /**
     * The data of a framed PDU as a retained slice, after checking its digest. A mismatch is DATA_DIGEST_ERROR
     * carrying {@code commandId} so the command can be completed with Transient Transport Error.
     */
    static ByteBuf data(ByteBuf frame, int start, NvmeTcpHeader ch, int commandId) throws NvmeTcpProtocolException {
        if (ch.pdo() == 0) {
            return Unpooled.EMPTY_BUFFER;
        }
        int digest = ch.has(NvmeTcpHeader.FLAG_DDGSTF) ? PduOptions.DIGEST_LENGTH : 0;
        int headerEnd = ch.hlen() + (ch.has(NvmeTcpHeader.FLAG_HDGSTF) ? PduOptions.DIGEST_LENGTH : 0);
        long length = ch.plen() - ch.pdo() - digest;
        if (ch.pdo() < headerEnd || length < 0) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PDO, "PDO " + ch.pdo() + " PLEN " + ch.plen());
        }
        int dataIndex = start + ch.pdo();
        if (digest != 0 && !NvmeTcpDigests.dataDigestMatches(frame, dataIndex, (int) length, dataIndex + (int) length)) {
            throw new NvmeTcpProtocolException(NvmeTcpFatalError.DATA_DIGEST_ERROR, 0, commandId, "DDGST mismatch");
        }
        return frame.retainedSlice(dataIndex, (int) length);
    }
}
