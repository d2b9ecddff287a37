package io.blocktarget.block;

import java.util.Objects;

/** A failed block operation. Stackless: it is an expected outcome reported through {@link IoCallback}, not a bug. */
public final class BlockIoException extends Exception {
    private final BlockError error;

    public BlockIoException(BlockError error, String message) {
        this(error, message, null);
    }

    public BlockIoException(BlockError error, String message, Throwable cause) {
        super(message, cause, false, false);
        this.error = Objects.requireNonNull(error, "error");
    }

    public BlockError error() {
        return error;
    }
}
