package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Ready to Transfer (NVMe/TCP §3.6.2.10): CCCID (8..9), TTAG (10..11), R2TO (12..15, offset into the command's
 * data), R2TL (16..19, length, at most MAXH2CDATA per H2CData PDU but any length per R2T), reserved 20..23.
 */
public record R2T(int cccid, int ttag, long r2to, long r2tl) implements NvmeTcpPdu {
    static R2T get(ByteBuf buf, int i) {
        return new R2T(buf.getUnsignedShortLE(i + 8), buf.getUnsignedShortLE(i + 10), buf.getUnsignedIntLE(i + 12),
                buf.getUnsignedIntLE(i + 16));
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.R2T;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        int start = PduCodec.begin(out, type(), 0, options, 0);
        out.writeShortLE(cccid).writeShortLE(ttag).writeIntLE((int) r2to).writeIntLE((int) r2tl).writeZero(4);
        PduCodec.endHeader(out, start, type(), options, 0);
    }
}
