package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Reject PDU reason codes, RFC 7143 §11.17.1. */
public enum RejectReason implements WireCode {
    DATA_DIGEST_ERROR(0x02),
    SNACK_REJECT(0x03),
    PROTOCOL_ERROR(0x04),
    COMMAND_NOT_SUPPORTED(0x05),
    IMMEDIATE_COMMAND_REJECT(0x06),
    TASK_IN_PROGRESS(0x07),
    INVALID_DATA_ACK(0x08),
    INVALID_PDU_FIELD(0x09),
    LONG_OPERATION_REJECT(0x0a),
    /** 0x0b: "Deprecated; MUST NOT be used" in RFC 7143 but still decodable from old targets. */
    NEGOTIATION_RESET(0x0b),
    WAITING_FOR_LOGOUT(0x0c);

    private final int code;

    RejectReason(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<RejectReason> fromCode(int code) {
        return WireCode.lookup(RejectReason.class, code);
    }
}
