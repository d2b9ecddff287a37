package io.blocktarget.block.lun;

import io.blocktarget.block.ShardedCounters;

/**
 * What the command sets did with one LUN, end to end: from a command's arrival at the SCSI logical unit / NVMe
 * namespace (after the in-flight count admitted it) to its completion being handed back to the transport — fault
 * delays, range-lock waits and the backend included. Always on, so it must cost next to nothing: {@link #record} adds
 * into {@link ShardedCounters} (the recording thread's own shard: no atomic instruction, no lock, no allocation) and
 * the latency bucket is found with one {@code numberOfLeadingZeros}, one table read and at most three compares. Read
 * by {@code /metrics}, {@code GET /v1/stats} and {@code blocktarget top}, which sum the shards when asked.
 *
 * <p>Counted per protocol and opcode class: commands, errors (any status other than GOOD / CONDITION MET, or than
 * NVMe Successful Completion), bytes moved by successful reads and writes, and the sum of latencies (whose rate is
 * the average queue depth, Little's law: what {@code iostat}'s aqu-sz is). Latency goes into one fixed histogram per
 * protocol with two buckets per power of two: upper bounds 2^(k/2) µs for k = 0 .. {@value #BOUNDS}-1
 * (1 µs .. ~11.9 s), each bound inclusive (Prometheus {@code le}), and an overflow bucket after them.
 *
 * <p>The instance lives as long as its {@link LunState}: a LUN resized or re-exported keeps it; a LUN replaced by a
 * new device starts from zero (counters that reset, as after a restart).
 */
public final class CommandStats {
    /** The protocol a command came by. */
    public enum Protocol {
        ISCSI("iscsi"), NVME("nvme");

        private final String label;

        Protocol(String label) {
            this.label = label;
        }

        /** The metric label and JSON name. */
        public String label() {
            return label;
        }
    }

    /**
     * What a command does, coarsely (the classes {@code iostat} and Linux's block layer count): reads and writes move
     * data; flush is SYNCHRONIZE CACHE / Flush; unmap is UNMAP, WRITE SAME with UNMAP, Dataset Management; other is
     * everything else (INQUIRY, TEST UNIT READY, Identify is admin and never here, Write Zeroes, WRITE SAME, Compare,
     * COMPARE AND WRITE, copy, zone management, reservations).
     */
    public enum OpClass {
        READ("read"), WRITE("write"), FLUSH("flush"), UNMAP("unmap"), OTHER("other");

        private final String label;

        OpClass(String label) {
            this.label = label;
        }

        /** The metric label and JSON name. */
        public String label() {
            return label;
        }
    }

    /** Bounded latency buckets; bucket {@value #BOUNDS} counts the slower commands. */
    public static final int BOUNDS = 48;
    private static final long[] BOUND_NANOS = new long[BOUNDS];
    /** For floor(log2(nanos)) = j: the first bucket whose bound is ≥ 2^j ns (a bound ≥ nanos is at most 3 further). */
    private static final int[] FIRST_BUCKET = new int[64];

    static {
        for (int k = 0; k < BOUNDS; k++) {
            // 1000 * 2^(k/2) ns, exact for even k; odd k rounded to the nearest ns
            BOUND_NANOS[k] = k % 2 == 0 ? 1000L << (k / 2) : Math.round(1000.0 * Math.pow(2, k / 2.0));
        }
        for (int j = 0; j < 64; j++) {
            long low = 1L << j;
            int k = 0;
            while (k < BOUNDS && BOUND_NANOS[k] < low) {
                k++;
            }
            FIRST_BUCKET[j] = k;
        }
    }

    private static final int PROTOCOLS = Protocol.values().length;
    private static final int CLASSES = OpClass.values().length;

    // one shard's layout: commands and errors per (protocol, class), bytes read / written and latency sums per
    // protocol, then each protocol's histogram
    private static final int COMMANDS = 0;
    private static final int ERRORS = COMMANDS + PROTOCOLS * CLASSES;
    private static final int BYTES_READ = ERRORS + PROTOCOLS * CLASSES;
    private static final int BYTES_WRITTEN = BYTES_READ + PROTOCOLS;
    private static final int LATENCY_SUM = BYTES_WRITTEN + PROTOCOLS;
    private static final int HISTOGRAM = LATENCY_SUM + PROTOCOLS;
    private static final int SHARD_LENGTH = HISTOGRAM + PROTOCOLS * (BOUNDS + 1);

    private final ShardedCounters counts = new ShardedCounters(SHARD_LENGTH);

    public CommandStats() {
    }

    private long sum(int slot) {
        return counts.sum(slot);
    }

    /**
     * Records one completed command.
     *
     * @param nanos end-to-end latency (completion time minus arrival time of the LUN's clock)
     * @param bytes data moved, counted for a successful read or write only
     * @param ok    whether it completed successfully
     */
    public void record(Protocol protocol, OpClass opClass, long nanos, long bytes, boolean ok) {
        long[] local = counts.local();
        int p = protocol.ordinal();
        int i = p * CLASSES + opClass.ordinal();
        ShardedCounters.add(local, COMMANDS + i, 1);
        long n = Math.max(0, nanos);
        ShardedCounters.add(local, LATENCY_SUM + p, n);
        ShardedCounters.add(local, HISTOGRAM + p * (BOUNDS + 1) + bucket(n), 1);
        if (!ok) {
            ShardedCounters.add(local, ERRORS + i, 1);
        } else if (opClass == OpClass.READ) {
            ShardedCounters.add(local, BYTES_READ + p, bytes);
        } else if (opClass == OpClass.WRITE) {
            ShardedCounters.add(local, BYTES_WRITTEN + p, bytes);
        }
    }

    /** The bucket of a latency: the smallest k with {@code nanos <= bound(k)}, or {@value #BOUNDS} beyond the last. */
    public static int bucket(long nanos) {
        if (nanos <= BOUND_NANOS[0]) {
            return 0;
        }
        int k = FIRST_BUCKET[63 - Long.numberOfLeadingZeros(nanos)];
        while (k < BOUNDS && nanos > BOUND_NANOS[k]) {
            k++;
        }
        return k;
    }

    /** Upper bound of bucket {@code k} (0 .. {@value #BOUNDS}-1) in nanoseconds, inclusive. */
    public static long boundNanos(int k) {
        return BOUND_NANOS[k];
    }

    /** Upper bound of bucket {@code k} in seconds, for Prometheus's {@code le}. */
    public static double boundSeconds(int k) {
        return BOUND_NANOS[k] / 1e9;
    }

    public long commands(Protocol protocol, OpClass opClass) {
        return sum(COMMANDS + protocol.ordinal() * CLASSES + opClass.ordinal());
    }

    public long errors(Protocol protocol, OpClass opClass) {
        return sum(ERRORS + protocol.ordinal() * CLASSES + opClass.ordinal());
    }

    public long bytesRead(Protocol protocol) {
        return sum(BYTES_READ + protocol.ordinal());
    }

    public long bytesWritten(Protocol protocol) {
        return sum(BYTES_WRITTEN + protocol.ordinal());
    }

    /** Sum of the latencies of the commands recorded (its rate over an interval is the average queue depth). */
    public long latencyNanos(Protocol protocol) {
        return sum(LATENCY_SUM + protocol.ordinal());
    }

    /** Per-bucket (not cumulative) counts: {@value #BOUNDS} bounded buckets and the overflow. */
    public long[] latencyBuckets(Protocol protocol) {
        long[] counts = new long[BOUNDS + 1];
        int first = HISTOGRAM + protocol.ordinal() * (BOUNDS + 1);
        for (int k = 0; k < counts.length; k++) {
            counts[k] = sum(first + k);
        }
        return counts;
    }

    /**
     * The latency at quantile {@code q} (0..1) of a histogram of per-bucket counts as {@link #latencyBuckets} gives
     * (or a difference of two), in nanoseconds; -1 when it counts nothing. Interpolated linearly within the bucket
     * the rank falls in, as Prometheus's {@code histogram_quantile} does (bucket 0 from 0); a rank in the overflow
     * bucket answers the last bound (the true value is larger: at least that).
     */
    public static long quantileNanos(long[] buckets, double q) {
        if (buckets.length != BOUNDS + 1) {
            throw new IllegalArgumentException("expected " + (BOUNDS + 1) + " buckets, got " + buckets.length);
        }
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile " + q + " is not within 0..1");
        }
        long total = 0;
        for (long count : buckets) {
            total += count;
        }
        if (total <= 0) {
            return -1;
        }
        double rank = q * total;
        long below = 0;
        for (int k = 0; k < BOUNDS; k++) {
            long count = buckets[k];
            if (count > 0 && below + count >= rank) {
                long low = k == 0 ? 0 : BOUND_NANOS[k - 1];
                double fraction = (rank - below) / count;
                return Math.round(low + (BOUND_NANOS[k] - low) * fraction);
            }
            below += count;
        }
        return BOUND_NANOS[BOUNDS - 1];
    }
}
