package io.blocktarget.protocol.iscsi;

import java.util.Optional;

/** SessionType key values (RFC 7143 §13.21). */
public enum SessionType {
    DISCOVERY("Discovery"),
    NORMAL("Normal");

    private final String keyValue;

    SessionType(String keyValue) {
        this.keyValue = keyValue;
    }

    public String keyValue() {
        return keyValue;
    }

    public static Optional<SessionType> fromKeyValue(String value) {
        for (SessionType t : values()) {
            if (t.keyValue.equals(value)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
