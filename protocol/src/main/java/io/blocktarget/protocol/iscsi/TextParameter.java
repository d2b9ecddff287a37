package io.blocktarget.protocol.iscsi;

import java.util.Objects;

/** One {@code key=value} pair of a text data segment (RFC 7143 §6.1). */
public record TextParameter(String key, String value) {
    public TextParameter {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
