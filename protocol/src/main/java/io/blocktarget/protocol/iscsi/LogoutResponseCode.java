package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Logout Response codes, RFC 7143 §11.15.1. */
public enum LogoutResponseCode implements WireCode {
    CONNECTION_OR_SESSION_CLOSED(0),
    CID_NOT_FOUND(1),
    CONNECTION_RECOVERY_NOT_SUPPORTED(2),
    CLEANUP_FAILED(3);

    private final int code;

    LogoutResponseCode(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<LogoutResponseCode> fromCode(int code) {
        return WireCode.lookup(LogoutResponseCode.class, code);
    }
}
