package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Initialize Connection Request (NVMe/TCP §3.6.2.2): PFV (8..9), HPDA (10), DGST (11: bit 0 HDGST_ENABLE, bit 1
 * DDGST_ENABLE), MAXR2T (12..15, 0's based), reserved to 127.
 */
public record ICReq(int pfv, int hpda, boolean hdgstEnable, boolean ddgstEnable, long maxr2t) implements NvmeTcpPdu {
    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_HPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXR2T = 12;
    /** PDU Format Version 1.0. */
    public static final int PFV_1_0 = 0;

    static ICReq get(ByteBuf buf, int i) throws NvmeTcpProtocolException {
        int pfv = buf.getUnsignedShortLE(i + OFFSET_PFV);
        int hpda = buf.getUnsignedByte(i + OFFSET_HPDA);
        int dgst = buf.getUnsignedByte(i + OFFSET_DGST);
        if (pfv != PFV_1_0) {
            throw NvmeTcpProtocolException.unsupportedParameter(OFFSET_PFV, "PFV " + pfv);
        }
        if (hpda > PduOptions.MAX_PDA) {
            throw NvmeTcpProtocolException.unsupportedParameter(OFFSET_HPDA, "HPDA " + hpda);
        }
        return new ICReq(pfv, hpda, (dgst & 1) != 0, (dgst & 2) != 0, buf.getUnsignedIntLE(i + OFFSET_MAXR2T));
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.IC_REQ;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        PduCodec.begin(out, type(), 0, PduOptions.NONE, 0);
        out.writeShortLE(pfv).writeByte(hpda).writeByte((hdgstEnable ? 1 : 0) | (ddgstEnable ? 2 : 0))
                .writeIntLE((int) maxr2t).writeZero(112);
    }

    /** Options for the PDUs a controller sends: the host's digests and its HPDA. */
    public PduOptions controllerSendOptions() {
        return new PduOptions(hdgstEnable, ddgstEnable, hpda);
    }
}
