package io.blocktarget.protocol.nvme;

import java.util.Optional;

/** An enum constant with the code it has on the wire; {@link #lookup} maps a code back. */
public interface WireCode {
    int code();

    /** The constant of {@code values} whose code is {@code code}. */
    static <E extends WireCode> Optional<E> lookup(E[] values, int code) {
        for (E e : values) {
            if (e.code() == code) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
