package io.blocktarget.block;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one LUN's backend has done since the LUN first opened: operations, bytes, latency and failures by kind, fed by
 * {@link CountingBlockDevice} at completion and read by the control API's {@code /metrics}.
 *
 * <p>Cheap on the I/O path: {@link ShardedCounters} (plain adds into the completing thread's own shard: no atomic
 * instruction, no lock, no allocation); readers sum them when scraped. Latency goes into a fixed log2 histogram of
 * microseconds, so recording is a {@code numberOfLeadingZeros} and one add.
 *
 * <p>One instance per LUN name, process-wide: the devices of one name share it, so the counters keep counting when
 * a LUN is replaced or resized (Prometheus counters must not go back), and it is dropped when the last device of the
 * name closes (a removed LUN's series disappear).
 */
public final class LunStats {
    /** The operations of {@link BlockDevice}, as counted. */
    public enum Op {
        READ("read"), WRITE("write"), FLUSH("flush"), UNMAP("unmap"), WRITE_ZEROES("write-zeroes");

        private final String label;

        Op(String label) {
            this.label = label;
        }

        /** The metric label value. */
        public String label() {
            return label;
        }
    }

    /**
     * Upper bounds of the latency buckets: 2^i microseconds for i in 0..{@value #BUCKETS}-1 (1 µs .. ~8.4 s); the last
     * bucket of {@link #latencyBuckets} counts everything slower.
     */
    public static final int BUCKETS = 24;

    private static final Map<String, LunStats> LIVE = new ConcurrentHashMap<>();

    private static final int OPS = Op.values().length;
    // the counters' layout: operations and latency sums by op, each op's histogram, bytes read and written, errors
    private static final int COUNT = 0;
    private static final int LATENCY_SUM = COUNT + OPS;
    private static final int HISTOGRAM = LATENCY_SUM + OPS;
    private static final int BYTES_READ = HISTOGRAM + OPS * (BUCKETS + 1);
    private static final int BYTES_WRITTEN = BYTES_READ + 1;
    private static final int ERRORS = BYTES_WRITTEN + 1;
    private static final int LENGTH = ERRORS + BlockError.values().length;

    private final String name;
    private int references; // guarded by LIVE's compute
    private final ShardedCounters counts = new ShardedCounters(LENGTH);

    private LunStats(String name) {
        this.name = name;
    }

    /** The stats of LUN {@code name}, created on first use; each call must be matched by one {@link #release}. */
    public static LunStats acquire(String name) {
        return LIVE.compute(name, (n, existing) -> {
            LunStats stats = existing != null ? existing : new LunStats(n);
            stats.references++;
            return stats;
        });
    }

    /** The stats of a LUN with an open device, if any. */
    public static Optional<LunStats> find(String name) {
        return Optional.ofNullable(LIVE.get(name));
    }

    /** Called by the device that acquired this on close: the last release forgets the LUN's counters. */
    public void release() {
        LIVE.computeIfPresent(name, (n, stats) -> {
            if (stats != this) {
                return stats;
            }
            return --references == 0 ? null : this;
        });
    }

    public String name() {
        return name;
    }

    /** Records one completed operation; {@code bytes} counts only when it succeeded. */
    void record(Op op, long bytes, long startNanos, BlockIoException failure) {
        long nanos = System.nanoTime() - startNanos;
        int index = op.ordinal();
        long[] local = counts.local();
        ShardedCounters.add(local, COUNT + index, 1);
        ShardedCounters.add(local, LATENCY_SUM + index, nanos);
        ShardedCounters.add(local, HISTOGRAM + index * (BUCKETS + 1) + bucket(nanos), 1);
        if (failure != null) {
            ShardedCounters.add(local, ERRORS + failure.error().ordinal(), 1);
        } else if (op == Op.READ) {
            ShardedCounters.add(local, BYTES_READ, bytes);
        } else if (op == Op.WRITE) {
            ShardedCounters.add(local, BYTES_WRITTEN, bytes);
        }
    }

    /** The bucket of a latency: the smallest i with nanos <= 2^i µs, or {@link #BUCKETS} beyond the last bound. */
    static int bucket(long nanos) {
        long micros = Math.max(0, (nanos + 999) / 1000); // round up: a bucket's bound is inclusive ("le")
        if (micros <= 1) {
            return 0;
        }
        int i = 64 - Long.numberOfLeadingZeros(micros - 1); // ceil(log2(micros))
        return Math.min(i, BUCKETS);
    }

    /** Upper bound of bucket {@code i} in seconds. */
    public static double bucketBoundSeconds(int i) {
        return (1L << i) / 1e6;
    }

    public long ops(Op op) {
        return counts.sum(COUNT + op.ordinal());
    }

    public long latencyNanos(Op op) {
        return counts.sum(LATENCY_SUM + op.ordinal());
    }

    /** Per-bucket (not cumulative) counts: {@link #BUCKETS} bounded buckets and the overflow. */
    public long[] latencyBuckets(Op op) {
        long[] buckets = new long[BUCKETS + 1];
        int first = HISTOGRAM + op.ordinal() * (BUCKETS + 1);
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = counts.sum(first + i);
        }
        return buckets;
    }

    public long bytesRead() {
        return counts.sum(BYTES_READ);
    }

    public long bytesWritten() {
        return counts.sum(BYTES_WRITTEN);
    }

    public long errors(BlockError error) {
        return counts.sum(ERRORS + error.ordinal());
    }

    @Override
    public String toString() {
        return "LunStats[" + name + "]";
    }
}
