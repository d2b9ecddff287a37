package io.blocktarget.protocol.scsi;

import java.util.Optional;

/**
 * Result of a pure parse of parameter data (MODE SELECT, UNMAP, PERSISTENT RESERVE OUT lists) or
 * of a pure selection: the value, or the sense reason with its field pointer. Nothing throws.
 */
public sealed interface Parsed<T> permits Parsed.Ok, Parsed.Invalid {

    record Ok<T>(T value) implements Parsed<T> {
    }

    record Invalid<T>(SenseReason reason, Optional<FieldPointer> fieldPointer) implements Parsed<T> {
        public SenseData senseData() {
            return SenseData.of(reason, fieldPointer);
        }
    }

    static <T> Parsed<T> ok(T value) {
        return new Ok<>(value);
    }

    static <T> Parsed<T> invalid(SenseReason reason, FieldPointer pointer) {
        return new Invalid<>(reason, Optional.of(pointer));
    }

    static <T> Parsed<T> invalid(SenseReason reason) {
        return new Invalid<>(reason, Optional.empty());
    }
}
