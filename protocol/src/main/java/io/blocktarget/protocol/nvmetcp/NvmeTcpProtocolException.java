package io.blocktarget.protocol.nvmetcp;

/**
 * The only exception the NVMe/TCP framing and decoders throw: a reason (mapped to the TermReq FES), the FEI
 * (byte offset of the bad field where the spec asks for one, else 0), the command the PDU belonged to where
 * known (-1 otherwise: needed to complete a command after a data digest error), and a message for the log.
 */
public final class NvmeTcpProtocolException extends Exception {
    private final NvmeTcpFatalError reason;
    private final int fei;
    private final int commandId;

    public NvmeTcpProtocolException(NvmeTcpFatalError reason, int fei, int commandId, String message) {
        super(reason + (reason.feiIsOffset() ? " at byte " + fei : "") + ": " + message, null, false, false);
        this.reason = reason;
        this.fei = fei;
        this.commandId = commandId;
    }

    public static NvmeTcpProtocolException headerField(int offset, String message) {
        return new NvmeTcpProtocolException(NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, offset, -1, message);
    }

    public static NvmeTcpProtocolException unsupportedParameter(int offset, String message) {
        return new NvmeTcpProtocolException(NvmeTcpFatalError.UNSUPPORTED_PARAMETER, offset, -1, message);
    }

    public static NvmeTcpProtocolException of(NvmeTcpFatalError reason, String message) {
        return new NvmeTcpProtocolException(reason, 0, -1, message);
    }

    public NvmeTcpFatalError reason() {
        return reason;
    }

    public int fei() {
        return fei;
    }

    /** CID / CCCID of the PDU's command, or -1. */
    public int commandId() {
        return commandId;
    }
}
