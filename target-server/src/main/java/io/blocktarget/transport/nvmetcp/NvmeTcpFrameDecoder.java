package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFatalError;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.blocktarget.transport.tcp.StreamTuning;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Frames the host's byte stream into PDUs (DESIGN.md §3: frame from the 8-byte common header, cap lengths before
 * buffering, then decode the whole frame) and emits one {@link Inbound} per PDU. It decodes at most one PDU per
 * call, so {@link ByteToMessageDecoder} hands each PDU to the connection before framing the next — the connection
 * switches the framing (after ICReq, after Connect) in between. After a fatal error it discards all input.
 * Never throws.
 */
final class NvmeTcpFrameDecoder extends ByteToMessageDecoder {

    private enum Mode { FRAMING, DISCARDING }

    private NvmeTcpFraming framing;
    private Mode mode = Mode.FRAMING;

    NvmeTcpFrameDecoder(NvmeTcpFraming initial) {
        this.framing = initial;
        StreamTuning.apply(this);
    }

    NvmeTcpFraming framing() {
        return framing;
    }

    /** Called by the connection on its event loop (ICReq done, queue type known). */
    void framing(NvmeTcpFraming next) {
        this.framing = next;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (mode == Mode.DISCARDING) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int length;
        try {
            length = framing.frameLength(in);
        } catch (NvmeTcpProtocolException e) {
            fail(e, in, out);
            return;
        }
        if (length < 0 || in.readableBytes() < length) {
            return;
        }
        ByteBuf frame = in.readRetainedSlice(length);
        try {
            NvmeTcpPdu pdu = NvmeTcpPdu.decode(frame);
            frame.readerIndex(0);
            out.add(new Inbound.Pdu(pdu, frame.retain()));
        } catch (NvmeTcpProtocolException e) {
            frame.readerIndex(0);
            if (e.reason() == NvmeTcpFatalError.DATA_DIGEST_ERROR) {
                digestError(e, frame, out);
            } else {
                fail(e, frame, out);
            }
        } finally {
            frame.release();
        }
    }

    /** Header fields of a PDU whose data digest did not match (its header is sound: framed and HDGST checked). */
    private void digestError(NvmeTcpProtocolException e, ByteBuf frame, List<Object> out) {
        NvmeTcpHeader ch = NvmeTcpHeader.peek(frame);
        if (ch.type() == NvmeTcpPduType.CAPSULE_CMD.code()) {
            out.add(new Inbound.CapsuleDigestError(Sqe.get(frame, CapsuleCmd.OFFSET_SQE)));
            return;
        }
        long dataLength = ch.plen() - ch.pdo() - PduOptions.DIGEST_LENGTH;
        if (frame.getUnsignedIntLE(H2CData.OFFSET_DATAL) != dataLength) {
            fail(NvmeTcpProtocolException.headerField(H2CData.OFFSET_DATAL, "DATAL differs from the data length"),
                    frame, out);
            return;
        }
        out.add(new Inbound.H2CDataDigestError(frame.getUnsignedShortLE(H2CData.OFFSET_CCCID),
                frame.getUnsignedShortLE(H2CData.OFFSET_TTAG),
                frame.getUnsignedIntLE(H2CData.OFFSET_DATAO), (int) dataLength, ch.has(NvmeTcpHeader.FLAG_LAST_PDU)));
    }

    private void fail(NvmeTcpProtocolException e, ByteBuf offending, List<Object> out) {
        mode = Mode.DISCARDING;
        out.add(new Inbound.Fatal(e, TermReq.c2h(e, offending)));
        offending.skipBytes(offending.readableBytes());
    }
}
