package io.blocktarget.protocol.nvmetcp;

import io.blocktarget.protocol.WireCode;

import java.util.Optional;

/**
 * PDU types with their fixed header length HLEN (NVMe/TCP §3.6.1, Figure "PDU Type Values" and the per-PDU
 * figures of §3.6.2), who sends them, and whether they may carry a header digest and data.
 */
public enum NvmeTcpPduType implements WireCode {
    IC_REQ(0x00, 128, Sender.HOST, false, false),
    IC_RESP(0x01, 128, Sender.CONTROLLER, false, false),
    H2C_TERM_REQ(0x02, 24, Sender.HOST, false, true),
    C2H_TERM_REQ(0x03, 24, Sender.CONTROLLER, false, true),
    CAPSULE_CMD(0x04, 72, Sender.HOST, true, true),
    CAPSULE_RESP(0x05, 24, Sender.CONTROLLER, true, false),
    H2C_DATA(0x06, 24, Sender.HOST, true, true),
    C2H_DATA(0x07, 24, Sender.CONTROLLER, true, true),
    R2T(0x09, 24, Sender.CONTROLLER, true, false);

    /** Which end of the connection sends a PDU type. */
    public enum Sender { HOST, CONTROLLER }

    private final int code;
    private final int hlen;
    private final Sender sender;
    private final boolean digestible;
    private final boolean carriesData;

    NvmeTcpPduType(int code, int hlen, Sender sender, boolean digestible, boolean carriesData) {
        this.code = code;
        this.hlen = hlen;
        this.sender = sender;
        this.digestible = digestible;
        this.carriesData = carriesData;
    }

    @Override
    public int code() {
        return code;
    }

    /** The fixed HLEN: common header plus PDU specific header. */
    public int hlen() {
        return hlen;
    }

    public Sender sender() {
        return sender;
    }

    /**
     * True for the PDUs that carry HDGST/DDGST when negotiated; the connection set-up and termination PDUs never
     * do (§3.6.2.1: ICReq/ICResp are exchanged before digests are negotiated; TermReq may report a digest error).
     */
    public boolean digestible() {
        return digestible;
    }

    public boolean carriesData() {
        return carriesData;
    }

    public boolean isTermReq() {
        return this == H2C_TERM_REQ || this == C2H_TERM_REQ;
    }

    public static Optional<NvmeTcpPduType> of(int code) {
        return WireCode.lookup(NvmeTcpPduType.class, code);
    }
}
