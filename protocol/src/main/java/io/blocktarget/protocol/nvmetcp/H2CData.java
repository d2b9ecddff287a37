package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Host to Controller Data (NVMe/TCP §3.6.2.9): CCCID (8..9), TTAG (10..11, from the R2T), DATAO (12..15, offset
 * into the command's data), DATAL (16..19, must equal the PDU's data length), reserved 20..23; FLAGS bit 2
 * LAST_PDU ends the R2T's data.
 */
public record H2CData(int cccid, int ttag, long datao, boolean last, ByteBuf data) implements NvmeTcpPdu, NvmeTcpDataPdu {
    public static final int OFFSET_CCCID = 8;
    public static final int OFFSET_TTAG = 10;
    public static final int OFFSET_DATAO = 12;
    public static final int OFFSET_DATAL = 16;

    static H2CData get(ByteBuf buf, int i, NvmeTcpHeader ch) throws NvmeTcpProtocolException {
        int cccid = buf.getUnsignedShortLE(i + OFFSET_CCCID);
        ByteBuf data = PduCodec.data(buf, i, ch, cccid);
        if (buf.getUnsignedIntLE(i + OFFSET_DATAL) != data.readableBytes()) {
            data.release();
            throw NvmeTcpProtocolException.headerField(OFFSET_DATAL, "DATAL differs from the PDU's data length");
        }
        return new H2CData(cccid, buf.getUnsignedShortLE(i + OFFSET_TTAG), buf.getUnsignedIntLE(i + OFFSET_DATAO),
                ch.has(NvmeTcpHeader.FLAG_LAST_PDU), data);
    }

    public int datal() {
        return data.readableBytes();
    }

    /**
     * Pure check against the R2T this PDU answers (§3.6.2.9): the data must start at {@code expectedOffset}
     * (where the previous H2CData ended) and stay inside [R2TO, R2TO+R2TL); else DATA_TRANSFER_OUT_OF_RANGE.
     */
    public void checkWithin(long r2to, long r2tl, long expectedOffset) throws NvmeTcpProtocolException {
        if (datao != expectedOffset || datao < r2to || datao + datal() > r2to + r2tl) {
            throw new NvmeTcpProtocolException(NvmeTcpFatalError.DATA_TRANSFER_OUT_OF_RANGE, 0, cccid,
                    "DATAO " + datao + " DATAL " + datal() + " outside R2T " + r2to + "+" + r2tl
                            + " (expected offset " + expectedOffset + ")");
        }
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.H2C_DATA;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        encodeHeader(out, options);
        PduCodec.writeData(out, type(), options, data);
    }

    @Override
    public void encodeHeader(ByteBuf out, PduOptions options) {
        encodeHeader(out, options, cccid, ttag, datao, data.readableBytes(), last);
    }

    /**
     * Writes CH, PSH, HDGST and PAD of an H2CData carrying {@code datal} bytes at {@code datao} (as
     * {@link C2HData#encodeHeader(ByteBuf, PduOptions, int, long, int, boolean, boolean)}: a sender that keeps its
     * data elsewhere appends it and, with data digests, its DDGST).
     */
    public static void encodeHeader(ByteBuf out, PduOptions options, int cccid, int ttag, long datao, int datal,
                                    boolean last) {
        int start = PduCodec.begin(out, NvmeTcpPduType.H2C_DATA, last ? NvmeTcpHeader.FLAG_LAST_PDU : 0, options,
                datal);
        out.writeShortLE(cccid).writeShortLE(ttag).writeIntLE((int) datao).writeIntLE(datal).writeZero(4);
        PduCodec.endHeader(out, start, NvmeTcpPduType.H2C_DATA, options, datal);
    }

    @Override
    public void release() {
        data.release();
    }
}
