package io.blocktarget.block.lun;

import io.netty.util.concurrent.FastThreadLocal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * What the command sets did with one LUN, end to end: from a command's arrival at the SCSI logical unit / NVMe
 * namespace (after the in-flight count admitted it) to its completion being handed back to the transport — fault
 * delays, range-lock waits and the backend included. Always on, so it must cost next to nothing: {@link #record} adds
 * into the recording thread's own shard (an event loop, a backend worker) with plain (opaque) stores — no atomic
 * instruction, no lock, no allocation (issue 27: atomics per command cost a few per cent at 4 KiB) — and the latency
 * bucket is found with one {@code numberOfLeadingZeros}, one table read and at most three compares. Read by
 * {@code /metrics}, {@code GET /v1/stats} and {@code blocktarget top}, which sum the shards when asked (a reader sees
 * each count untorn, at most a moment late); the shard of a thread that ended is folded into the rest by the next
 * read, so thread churn leaves nothing behind.
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
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** One thread's counts: written by that thread only, read by any. Static: it must not keep the stats alive. */
    private static final class Shard {
        final Thread owner = Thread.currentThread();
        final long[] counts = new long[SHARD_LENGTH];

        void add(int slot, long delta) {
            SLOT.setOpaque(counts, slot, counts[slot] + delta);
        }

        long get(int slot) {
            return (long) SLOT.getOpaque(counts, slot);
        }
    }

    /**
     * The calling thread's shard. Netty's FastThreadLocal: on an event loop (a FastThreadLocalThread) one array read
     * by a fixed index, where a ThreadLocal hashes into the thread's map and dereferences a weak key — JFR put 24 %
     * of an iSCSI event loop's samples in {@code ThreadLocalMap.getEntry} here. Other threads take Netty's fallback,
     * a ThreadLocal. Each instance holds one index for the life of the process (Netty never reuses them): a LUN
     * created costs each recording thread one array slot, 8 bytes.
     */
    private final FastThreadLocal<Shard> local = new FastThreadLocal<>() {
        @Override
        protected Shard initialValue() {
            return newShard();
        }
    };
    /** The live threads' shards; guarded by this object's monitor (a new thread registers once). */
    private final List<Shard> shards = new ArrayList<>();
    /** The counts of threads that ended, folded in by a read; guarded by this object's monitor. */
    private final long[] retired = new long[SHARD_LENGTH];

    public CommandStats() {
    }

    private synchronized Shard newShard() {
        Shard shard = new Shard();
        shards.add(shard);
        return shard;
    }

    /** Sum of one slot over every shard; folds the shards of threads that ended into {@link #retired} first. */
    private synchronized long sum(int slot) {
        long total = retired[slot];
        for (int k = shards.size() - 1; k >= 0; k--) {
            Shard shard = shards.get(k);
            // JLS §17.4.5: a thread's actions happen-before another thread sees it terminated (isAlive false)
            if (!shard.owner.isAlive()) {
                for (int i = 0; i < SHARD_LENGTH; i++) {
                    retired[i] += shard.counts[i];
                }
                shards.remove(k);
                total += shard.counts[slot];
            } else {
                total += shard.get(slot);
            }
        }
        return total;
    }

    /**
     * Records one completed command.
     *
     * @param nanos end-to-end latency (completion time minus arrival time of the LUN's clock)
     * @param bytes data moved, counted for a successful read or write only
     * @param ok    whether it completed successfully
     */
    public void record(Protocol protocol, OpClass opClass, long nanos, long bytes, boolean ok) {
        Shard shard = local.get();
        int p = protocol.ordinal();
        int i = p * CLASSES + opClass.ordinal();
        shard.add(COMMANDS + i, 1);
        long n = Math.max(0, nanos);
        shard.add(LATENCY_SUM + p, n);
        shard.add(HISTOGRAM + p * (BOUNDS + 1) + bucket(n), 1);
        if (!ok) {
            shard.add(ERRORS + i, 1);
        } else if (opClass == OpClass.READ) {
            shard.add(BYTES_READ + p, bytes);
        } else if (opClass == OpClass.WRITE) {
            shard.add(BYTES_WRITTEN + p, bytes);
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
