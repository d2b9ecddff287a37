package io.blocktarget.protocol;

import java.util.Optional;

/**
 * An enum constant that stands for one value of a numeric wire field (opcodes, status codes, reason
 * codes of iSCSI, SCSI and NVMe alike); {@link #lookup} maps a value read from the wire back.
 */
public interface WireCode {
    int code();

    /**
     * The constant of {@code type} whose code is {@code code} (the first declared, should two share it); empty for
     * reserved / undefined values. Allocates nothing: this runs once or twice per command on the I/O path.
     */
    static <E extends Enum<E> & WireCode> Optional<E> lookup(Class<E> type, int code) {
        return Table.of(type).get(code);
    }

    /**
     * The constants of one enum by code, built once per class: a dense array of ready-made Optionals for codes
     * 0..{@value #DENSE_LIMIT} - 1 (every opcode and status field of iSCSI, SCSI and NVMe fits), a linear scan beyond.
     * {@code Enum.values()} clones its array and {@code Optional.of} allocates on every call; this does neither.
     */
    final class Table<E extends Enum<E> & WireCode> {
        static final int DENSE_LIMIT = 4096;
        private static final ClassValue<Table<?>> CACHE = new ClassValue<>() {
            @Override
            @SuppressWarnings({"unchecked", "rawtypes"})
            protected Table<?> computeValue(Class<?> type) {
                return new Table((Enum[]) type.getEnumConstants());
            }
        };

        private final E[] constants;
        private final Optional<E>[] dense;

        @SuppressWarnings("unchecked")
        private Table(E[] constants) {
            this.constants = constants;
            int max = -1;
            for (E e : constants) {
                max = Math.max(max, e.code());
            }
            dense = new Optional[max < DENSE_LIMIT ? max + 1 : 0];
            java.util.Arrays.fill(dense, Optional.empty());
            for (E e : constants) {
                int c = e.code();
                if (c >= 0 && c < dense.length && dense[c].isEmpty()) {
                    dense[c] = Optional.of(e);
                }
            }
        }

        @SuppressWarnings("unchecked")
        public static <E extends Enum<E> & WireCode> Table<E> of(Class<E> type) {
            return (Table<E>) CACHE.get(type);
        }

        public Optional<E> get(int code) {
            if (code >= 0 && code < dense.length) {
                return dense[code];
            }
            if (dense.length == 0) {
                for (E e : constants) {
                    if (e.code() == code) {
                        return Optional.of(e);
                    }
                }
            }
            return Optional.empty();
        }
    }
}
