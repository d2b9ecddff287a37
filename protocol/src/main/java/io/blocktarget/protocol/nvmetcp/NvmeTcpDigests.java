package io.blocktarget.protocol.nvmetcp;

import io.blocktarget.protocol.Crc32c;
import io.netty.buffer.ByteBuf;

/**
 * Header digest HDGST and data digest DDGST (NVMe/TCP §3.5.1): CRC32C over the PDU header (CH + PSH, HLEN
 * bytes) resp. over the PDU data (not the padding), written little-endian right after what it covers.
 */
public final class NvmeTcpDigests {
    private NvmeTcpDigests() {
    }

    /** HDGST of the PDU starting at absolute {@code pduIndex}, whose HLEN is read from its common header. */
    public static int headerDigest(ByteBuf buf, int pduIndex) {
        return Crc32c.compute(buf, pduIndex, buf.getUnsignedByte(pduIndex + NvmeTcpHeader.OFFSET_HLEN));
    }

    /** Appends the header digest of the PDU whose header starts at {@code pduIndex} and ends at the writer index. */
    public static void writeHeaderDigest(ByteBuf out, int pduIndex) {
        out.writeIntLE(Crc32c.compute(out, pduIndex, out.writerIndex() - pduIndex));
    }

    /** Appends the data digest of the readable bytes of {@code data}. */
    public static void writeDataDigest(ByteBuf out, ByteBuf data) {
        out.writeIntLE(Crc32c.compute(data));
    }

    /**
     * Checks HDGST of the complete PDU at the reader index of {@code frame}; a mismatch is the fatal
     * HEADER_DIGEST_ERROR (§3.6.2.4).
     */
    public static void verifyHeaderDigest(ByteBuf frame) throws NvmeTcpProtocolException {
        int i = frame.readerIndex();
        int hlen = frame.getUnsignedByte(i + NvmeTcpHeader.OFFSET_HLEN);
        int expected = frame.getIntLE(i + hlen);
        int actual = Crc32c.compute(frame, i, hlen);
        if (expected != actual) {
            throw NvmeTcpProtocolException.of(NvmeTcpFatalError.HEADER_DIGEST_ERROR,
                    String.format("HDGST %08x, computed %08x", expected, actual));
        }
    }

    /** True when the 4 little-endian bytes at absolute {@code digestIndex} are the CRC32C of the data region. */
    public static boolean dataDigestMatches(ByteBuf buf, int dataIndex, int dataLength, int digestIndex) {
        return buf.getIntLE(digestIndex) == Crc32c.compute(buf, dataIndex, dataLength);
    }
}
