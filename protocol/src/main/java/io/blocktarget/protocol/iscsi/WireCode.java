package io.blocktarget.protocol.iscsi;

import java.util.Optional;

/** An enum constant that stands for one code value of a wire field. */
public interface WireCode {
    int code();

    /** The constant of {@code type} whose code is {@code code}; empty for reserved / unknown codes. */
    static <E extends Enum<E> & WireCode> Optional<E> find(Class<E> type, int code) {
        for (E e : type.getEnumConstants()) {
            if (e.code() == code) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
