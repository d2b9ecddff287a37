package io.blocktarget.protocol;

import java.util.Optional;

/**
 * An enum constant that stands for one value of a numeric wire field (opcodes, status codes, reason
 * codes of iSCSI, SCSI and NVMe alike); {@link #lookup} maps a value read from the wire back.
 */
public interface WireCode {
    int code();

    /** The constant of {@code type} whose code is {@code code}; empty for reserved / undefined values. */
    static <E extends Enum<E> & WireCode> Optional<E> lookup(Class<E> type, int code) {
        return lookup(Constants.of(type), code);
    }

    /** The element of {@code values} whose code is {@code code}; empty when none. */
    static <E extends WireCode> Optional<E> lookup(E[] values, int code) {
        for (E e : values) {
            if (e.code() == code) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** Enum constants per class, computed once (Class.getEnumConstants() copies the array on every call). */
    final class Constants {
        private static final ClassValue<Object[]> CACHE = new ClassValue<>() {
            @Override
            protected Object[] computeValue(Class<?> type) {
                return type.getEnumConstants();
            }
        };

        private Constants() {
        }

        @SuppressWarnings("unchecked")
        static <E> E[] of(Class<E> type) {
            return (E[]) CACHE.get(type);
        }
    }
}
