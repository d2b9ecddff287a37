package io.blocktarget.protocol.scsi;

import java.util.Optional;

/** An enum constant that stands for a numeric field value on the wire. */
public interface WireCode {

    int code();

    /** The constant of {@code type} whose wire code is {@code code}, or empty for an undefined value. */
    static <E extends Enum<E> & WireCode> Optional<E> lookup(Class<E> type, int code) {
        for (E value : type.getEnumConstants()) {
            if (value.code() == code) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }
}
