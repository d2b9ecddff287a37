package io.blocktarget.protocol.nvme;

/** CQE DW0 of a Connect completion (Base §6.3, Figure "Connect Response"). */
public final class ConnectResponse {
    private ConnectResponse() {
    }

    /** Success: CNTLID in bits 15:0; AUTHREQ (bits 31:16) zero — no in-band authentication required. */
    public static int success(int cntlid) {
        return cntlid & 0xFFFF;
    }

    /**
     * CONNECT_INVALID_PARAMETERS: IPO (bits 15:0) is the byte offset of the bad field, IATTR (bits 23:16) bit 0
     * says whether it is in the Connect data (1) or the SQE (0).
     */
    public static int invalidParameter(boolean inData, int offset) {
        return (inData ? 1 << 16 : 0) | offset & 0xFFFF;
    }
}
