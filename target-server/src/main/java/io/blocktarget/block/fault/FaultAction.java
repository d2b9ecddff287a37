package io.blocktarget.block.fault;

/** What a hit command gets instead of (or before) its normal execution. */
public sealed interface FaultAction {

    /** The command fails with {@code status} without touching the medium. */
    record Fail(FaultStatus status) implements FaultAction {
    }

    /**
     * No response: the command is held until the initiator gives up on it — SCSI ABORT TASK / ABORT TASK SET /
     * CLEAR TASK SET / LOGICAL UNIT RESET / TARGET RESET, NVMe Abort, a controller reset, or the connection closing.
     */
    record NoResponse() implements FaultAction {
    }

    /** The command executes after {@code nanos} plus a uniformly drawn part of {@code jitterNanos}. */
    record Delay(long nanos, long jitterNanos) implements FaultAction {
        public Delay {
            if (nanos < 0 || jitterNanos < 0) {
                throw new IllegalArgumentException("delay " + nanos + " jitter " + jitterNanos);
            }
        }
    }

    /** A read returns its data with one bit flipped in the first block of the range it read (device level). */
    record CorruptRead() implements FaultAction {
    }

    /**
     * A write persists only its first {@code persistBlocks} blocks (0 = half of them, rounded down), then fails with
     * a write error (device level): what a power cut in the middle of a multi-block write leaves.
     */
    record TornWrite(long persistBlocks) implements FaultAction {
        public TornWrite {
            if (persistBlocks < 0) {
                throw new IllegalArgumentException("persist " + persistBlocks);
            }
        }
    }

    /** Whether the block device decorator applies it (it needs the data), not the command sets' hook. */
    default boolean deviceLevel() {
        return this instanceof CorruptRead || this instanceof TornWrite;
    }
}
