package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Logout Request reason codes, RFC 7143 §11.14.1. */
public enum LogoutReason implements WireCode {
    CLOSE_SESSION(0),
    CLOSE_CONNECTION(1),
    REMOVE_CONNECTION_FOR_RECOVERY(2);

    private final int code;

    LogoutReason(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<LogoutReason> fromCode(int code) {
        return WireCode.lookup(LogoutReason.class, code);
    }
}
