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

    /**
     * The command executes after {@code nanos} plus a part of {@code jitterNanos} drawn uniformly from a generator
     * seeded with {@code seed} (one per installed rule, in the order its hits arrive: the same seed gives the same
     * delays).
     */
    record Delay(long nanos, long jitterNanos, long seed) implements FaultAction {
        public Delay {
            if (nanos < 0 || jitterNanos < 0) {
                throw new IllegalArgumentException("delay " + nanos + " jitter " + jitterNanos);
            }
        }

        public Delay(long nanos, long jitterNanos) {
            this(nanos, jitterNanos, 0);
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

    /**
     * A partial transfer: a read or write moves only its first {@code transferBlocks} blocks (0 = half of them,
     * rounded down; at most all but one), then ends. SCSI: GOOD, or CHECK CONDITION with MEDIUM ERROR when
     * {@code checkCondition}, and the iSCSI residual (RFC 7143 §11.4.5.1, U bit) for what was not transferred. NVMe:
     * the short data, then Data Transfer Error (a host must see an error: NVMe/TCP has no residual).
     */
    record PartialTransfer(long transferBlocks, boolean checkCondition) implements FaultAction {
        public PartialTransfer {
            if (transferBlocks < 0) {
                throw new IllegalArgumentException("transfer " + transferBlocks);
            }
        }

        /** Blocks that move of a command of {@code blocks} (≥ 1): between 0 and blocks − 1. */
        public long blocksOf(long blocks) {
            long n = transferBlocks == 0 ? blocks / 2 : transferBlocks;
            return Math.max(0, Math.min(n, blocks - 1));
        }
    }

    /**
     * Applied by the transport to the connection the hit command came on (DESIGN §10: a hook in each transport);
     * see {@link FaultConnection}.
     */
    sealed interface ConnectionFault extends FaultAction {
    }

    /** The connection is closed at the hit command, which gets no response. */
    record DropConnection() implements ConnectionFault {
    }

    /** What a stalled connection stops doing. */
    enum StallDirection {
        /** Neither reads from the socket nor writes to it. */
        BOTH,
        /** Stops reading (the initiator's sends back up in TCP); answers already due still go out. */
        RECEIVE,
        /** Holds back everything it would send; keeps reading. */
        SEND
    }

    /**
     * The connection stalls from the hit command on, for {@code nanos} (0 = until the rule is removed or the
     * connection closes); what it held back then goes out in order. The hit command itself executes normally.
     */
    record StallConnection(long nanos, StallDirection direction) implements ConnectionFault {
        public StallConnection {
            if (nanos < 0) {
                throw new IllegalArgumentException("stall " + nanos);
            }
            java.util.Objects.requireNonNull(direction, "direction");
        }
    }

    /** Which digest of a PDU. */
    enum DigestKind {
        /** iSCSI HeaderDigest, NVMe/TCP HDGST. */
        HEADER,
        /** iSCSI DataDigest, NVMe/TCP DDGST: the next PDU that carries data. */
        DATA
    }

    /**
     * The next PDU the target sends on the connection (of those that carry that digest) has a wrong digest; the hit
     * command itself executes normally. Not applicable where the digest was not negotiated.
     */
    record CorruptDigest(DigestKind digest) implements ConnectionFault {
        public CorruptDigest {
            java.util.Objects.requireNonNull(digest, "digest");
        }
    }

    /**
     * iSCSI: an Asynchronous Message with AsyncEvent 1 (RFC 7143 §11.9.1, the target requests a Logout) is sent on
     * the session's connection; Parameter3 = {@code seconds} to log out in, after which the target drops the
     * connection. The hit command itself executes normally. Not applicable to NVMe.
     */
    record AsyncLogout(int seconds) implements ConnectionFault {
        public AsyncLogout {
            if (seconds < 0 || seconds > 65535) {
                throw new IllegalArgumentException("logout within " + seconds);
            }
        }
    }

    /**
     * NVMe: Keep Alive commands (Base §5.24) from the hosts the rule matches get no completion and do not restart
     * the keep-alive timer, so KATO expires; the held Keep Alive ends with the controller or an Abort. Matches only
     * Keep Alive commands (never I/O); not applicable to SCSI.
     */
    record KeepAliveStall() implements FaultAction {
    }

    /** Whether the block device decorator applies it (it needs the data), not the command sets' hook. */
    default boolean deviceLevel() {
        return this instanceof CorruptRead || this instanceof TornWrite;
    }
}
