package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Task Management Function codes, RFC 7143 §11.5.1. Unknown codes are answered with
 * {@link TmfResponse#FUNCTION_NOT_SUPPORTED}, so the request record keeps the raw code. */
public enum TmfFunction implements WireCode {
    ABORT_TASK(1),
    ABORT_TASK_SET(2),
    CLEAR_ACA(3),
    CLEAR_TASK_SET(4),
    LOGICAL_UNIT_RESET(5),
    TARGET_WARM_RESET(6),
    TARGET_COLD_RESET(7),
    TASK_REASSIGN(8);

    private final int code;

    TmfFunction(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<TmfFunction> fromCode(int code) {
        return WireCode.lookup(TmfFunction.class, code);
    }
}
