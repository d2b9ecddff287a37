package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Task Management Function Response codes, RFC 7143 §11.6.1. */
public enum TmfResponse implements WireCode {
    FUNCTION_COMPLETE(0),
    TASK_DOES_NOT_EXIST(1),
    LUN_DOES_NOT_EXIST(2),
    TASK_STILL_ALLEGIANT(3),
    TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED(4),
    FUNCTION_NOT_SUPPORTED(5),
    FUNCTION_AUTHORIZATION_FAILED(6),
    FUNCTION_REJECTED(255);

    private final int code;

    TmfResponse(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<TmfResponse> fromCode(int code) {
        return WireCode.lookup(TmfResponse.class, code);
    }
}
