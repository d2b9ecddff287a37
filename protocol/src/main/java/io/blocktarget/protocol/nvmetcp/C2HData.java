package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Controller to Host Data (NVMe/TCP §3.6.2.8): CCCID (8..9), reserved 10..11, DATAO (12..15), DATAL (16..19),
 * reserved 20..23. FLAGS bit 2 LAST_PDU, bit 3 SUCCESS (only with LAST_PDU: the command completed successfully
 * and no CapsuleResp follows — the host must not have disabled SQ flow control for this).
 * <p>
 * For reads, {@link #encodeHeader} writes everything up to the data so the caller can send the backend's buffer
 * itself (a composite buffer, no copy) followed by {@link NvmeTcpDigests#writeDataDigest}.
 */
public record C2HData(int cccid, long datao, boolean last, boolean success, ByteBuf data)
        implements NvmeTcpPdu, NvmeTcpDataPdu {
    public static final int OFFSET_DATAL = 16;

    public C2HData {
        if (success && !last) {
            throw new IllegalArgumentException("SUCCESS requires LAST_PDU");
        }
    }

    static C2HData get(ByteBuf buf, int i, NvmeTcpHeader ch) throws NvmeTcpProtocolException {
        int cccid = buf.getUnsignedShortLE(i + 8);
        boolean last = ch.has(NvmeTcpHeader.FLAG_LAST_PDU);
        boolean success = ch.has(NvmeTcpHeader.FLAG_SUCCESS);
        if (success && !last) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS, "SUCCESS without LAST_PDU");
        }
        ByteBuf data = PduCodec.data(buf, i, ch, cccid);
        if (buf.getUnsignedIntLE(i + OFFSET_DATAL) != data.readableBytes()) {
            data.release();
            throw NvmeTcpProtocolException.headerField(OFFSET_DATAL, "DATAL differs from the PDU's data length");
        }
        return new C2HData(cccid, buf.getUnsignedIntLE(i + 12), last, success, data);
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.C2H_DATA;
    }

    /**
     * Writes CH, PSH, HDGST and PAD of a C2HData carrying {@code datal} bytes at {@code datao}; the caller
     * appends the data and, with data digests, its DDGST.
     */
    public static void encodeHeader(ByteBuf out, PduOptions options, int cccid, long datao, int datal, boolean last,
                                    boolean success) {
        int flags = (last ? NvmeTcpHeader.FLAG_LAST_PDU : 0) | (success ? NvmeTcpHeader.FLAG_SUCCESS : 0);
        int start = PduCodec.begin(out, NvmeTcpPduType.C2H_DATA, flags, options, datal);
        out.writeShortLE(cccid).writeShortLE(0).writeIntLE((int) datao).writeIntLE(datal).writeZero(4);
        PduCodec.endHeader(out, start, NvmeTcpPduType.C2H_DATA, options, datal);
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        encodeHeader(out, options);
        PduCodec.writeData(out, type(), options, data);
    }

    @Override
    public void encodeHeader(ByteBuf out, PduOptions options) {
        encodeHeader(out, options, cccid, datao, data.readableBytes(), last, success);
    }

    @Override
    public void release() {
        data.release();
    }

}
