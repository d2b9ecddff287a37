package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Asynchronous Message AsyncEvent codes, RFC 7143 §11.9.1. */
public enum AsyncEvent implements WireCode {
    SCSI_ASYNC_EVENT(0),
    LOGOUT_REQUEST(1),
    CONNECTION_DROP(2),
    SESSION_DROP(3),
    NEGOTIATION_REQUEST(4),
    TASK_TERMINATION(5),
    VENDOR_SPECIFIC(255);

    private final int code;

    AsyncEvent(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<AsyncEvent> fromCode(int code) {
        return WireCode.lookup(AsyncEvent.class, code);
    }
}
