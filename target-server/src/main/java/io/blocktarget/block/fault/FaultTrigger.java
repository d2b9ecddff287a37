package io.blocktarget.block.fault;

/**
 * When a matching command is hit. Counting triggers count matching commands per rule, in the order the rule sees
 * them (one LUN's commands from several connections interleave; for a deterministic sequence send them from one).
 */
public sealed interface FaultTrigger {

    /** Every matching command. */
    record Always() implements FaultTrigger {
    }

    /** The first {@code n} matching commands, then never again (scsi_debug's error count). */
    record FirstN(long n) implements FaultTrigger {
        public FirstN {
            positive(n);
        }
    }

    /** Matching commands number n, 2n, 3n … (scsi_debug's every_nth). */
    record EveryNth(long n) implements FaultTrigger {
        public EveryNth {
            positive(n);
        }
    }

    /** Each matching command with probability {@code p}, drawn from a generator seeded with {@code seed}. */
    record Probability(double p, long seed) implements FaultTrigger {
        public Probability {
            if (!(p > 0 && p <= 1)) {
                throw new IllegalArgumentException("probability " + p);
            }
        }
    }

    /** Every matching command from {@code nanos} after the rule was added (a device that fails after a while). */
    record After(long nanos) implements FaultTrigger {
        public After {
            if (nanos < 0) {
                throw new IllegalArgumentException("after " + nanos);
            }
        }
    }

    /**
     * Each LBA of the range fails once: the blocks of the range a hit command addressed are healed afterwards, so a
     * retry (or a rewrite) succeeds — null_blk's {@code badblocks_once}, a recoverable error.
     */
    record OncePerLba() implements FaultTrigger {
    }

    private static void positive(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("count " + n);
        }
    }
}
