package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Initialize Connection Response (NVMe/TCP §3.6.2.3): PFV (8..9), CPDA (10), DGST (11), MAXH2CDATA (12..15:
 * bytes, at least 4096 and a multiple of 4), reserved to 127.
 */
public record ICResp(int pfv, int cpda, boolean hdgstEnable, boolean ddgstEnable, long maxh2cdata)
        implements NvmeTcpPdu {
    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_CPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXH2CDATA = 12;
    public static final int MIN_MAXH2CDATA = 4096;

    /** The answer to {@code req}: digests exactly as requested, CPDA and MAXH2CDATA as given. */
    public static ICResp answering(ICReq req, int cpda, long maxh2cdata) {
        return new ICResp(ICReq.PFV_1_0, cpda, req.hdgstEnable(), req.ddgstEnable(), maxh2cdata);
    }

    static ICResp get(ByteBuf buf, int i) throws NvmeTcpProtocolException {
        int pfv = buf.getUnsignedShortLE(i + OFFSET_PFV);
        int cpda = buf.getUnsignedByte(i + OFFSET_CPDA);
        int dgst = buf.getUnsignedByte(i + OFFSET_DGST);
        long max = buf.getUnsignedIntLE(i + OFFSET_MAXH2CDATA);
        if (pfv != ICReq.PFV_1_0) {
            throw NvmeTcpProtocolException.unsupportedParameter(OFFSET_PFV, "PFV " + pfv);
        }
        if (cpda > PduOptions.MAX_PDA) {
            throw NvmeTcpProtocolException.unsupportedParameter(OFFSET_CPDA, "CPDA " + cpda);
        }
        if (max < MIN_MAXH2CDATA || max % 4 != 0) {
            throw NvmeTcpProtocolException.unsupportedParameter(OFFSET_MAXH2CDATA, "MAXH2CDATA " + max);
        }
        return new ICResp(pfv, cpda, (dgst & 1) != 0, (dgst & 2) != 0, max);
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.IC_RESP;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        PduCodec.begin(out, type(), 0, PduOptions.NONE, 0);
        out.writeShortLE(pfv).writeByte(cpda).writeByte((hdgstEnable ? 1 : 0) | (ddgstEnable ? 2 : 0))
                .writeIntLE((int) maxh2cdata).writeZero(112);
    }

    /** Options for the PDUs a host sends: the negotiated digests and the controller's CPDA. */
    public PduOptions hostSendOptions() {
        return new PduOptions(hdgstEnable, ddgstEnable, cpda);
    }
}
