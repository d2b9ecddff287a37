package io.blocktarget.protocol.nvme;

/**
 * Outcome of a pure command parse: the command record, or the status the controller completes it with
 * (and the CQE DW0 that goes with it — Connect's IPO/IATTR; 0 otherwise). Never an exception.
 */
public sealed interface Parsed<T> {
    record Ok<T>(T command) implements Parsed<T> {
    }

    record Invalid<T>(NvmeStatus status, int dw0) implements Parsed<T> {
        public Invalid {
            if (status.isSuccess()) {
                throw new IllegalArgumentException("Invalid needs a failing status");
            }
        }
    }

    static <T> Parsed<T> ok(T command) {
        return new Ok<>(command);
    }

    static <T> Parsed<T> invalid(NvmeStatus status) {
        return new Invalid<>(status, 0);
    }

    static <T> Parsed<T> invalid(NvmeStatus status, int dw0) {
        return new Invalid<>(status, dw0);
    }

    /** The command, or {@code null} when invalid. */
    default T orNull() {
        return this instanceof Ok<T>(T c) ? c : null;
    }

    /** The status: SUCCESS when parsed. */
    default NvmeStatus status() {
        return this instanceof Invalid<T> inv ? inv.status() : NvmeStatus.SUCCESS;
    }
}
