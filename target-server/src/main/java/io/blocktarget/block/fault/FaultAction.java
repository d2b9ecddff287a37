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

    /**
     * Shaping (null_blk's {@code mbps}, a token bucket without burst): matching commands are spread so that they
     * start at most {@code iops} per second and move at most {@code bytesPerSecond}; 0 = no limit of that kind.
     * A command that would start early is delayed, on the event loop's timer.
     */
    record Throttle(long iops, long bytesPerSecond) implements FaultAction {
        public Throttle {
            if (iops < 0 || bytesPerSecond < 0 || iops == 0 && bytesPerSecond == 0) {
                throw new IllegalArgumentException("throttle " + iops + " IOPS " + bytesPerSecond + " B/s");
            }
        }

        /** Nanoseconds one command of {@code bytes} occupies. */
        long costNanos(long bytes) {
            long cost = iops == 0 ? 0 : 1_000_000_000L / iops;
            if (bytesPerSecond != 0) {
                cost += (long) Math.min(Long.MAX_VALUE / 4, bytes * 1e9 / bytesPerSecond);
            }
            return cost;
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
