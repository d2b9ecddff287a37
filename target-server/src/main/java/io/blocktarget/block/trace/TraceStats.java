package io.blocktarget.block.trace;

import io.blocktarget.block.IoKind;
import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.LongAdder;

/**
 * Aggregates of one trace, per LUN, fed with every record: commands and failures by {@link IoKind}, the I/O size
 * histogram (powers of two), how many commands start and end on a multiple of the logical block size, the physical
 * block size and the optimal transfer length, the queue depth at arrival and the latency (HdrHistogram).
 *
 * <p>Recording allocates nothing: LongAdders and {@link AtomicHistogram}s of a fixed range (values beyond it are
 * clamped to it).
 */
public final class TraceStats {
    /** Size bucket i counts commands of (2^(i-1), 2^i] bytes; bucket 0 counts 1 byte. 2^40 = 1 TiB is the last. */
    public static final int SIZE_BUCKETS = 41;

    /** What alignment is measured against. */
    public enum Unit {
        LOGICAL_BLOCK("lbs"), PHYSICAL_BLOCK("pbs"), OPTIMAL_TRANSFER("optimal");

        private final String label;

        Unit(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    static final long MAX_QUEUE_DEPTH = 1 << 16;
    static final long MAX_LATENCY_NANOS = 3_600_000_000_000L;

    private static final int KINDS = IoKind.values().length;
    private static final int UNITS = Unit.values().length;

    private final long[] unitBytes = new long[UNITS];
    private final LongAdder[] commands = adders(KINDS);
    private final LongAdder[] failures = adders(KINDS);
    private final LongAdder[] bytes = adders(KINDS);
    private final LongAdder[] sized = adders(KINDS);
    private final LongAdder[] sizes = adders(KINDS * SIZE_BUCKETS);
    private final LongAdder[] aligned = adders(KINDS * UNITS);
    private final AtomicHistogram queueDepth = new AtomicHistogram(1, MAX_QUEUE_DEPTH, 2);
    private final AtomicHistogram latency = new AtomicHistogram(1, MAX_LATENCY_NANOS, 2);

    /**
     * @param logicalBlockSize  bytes
     * @param physicalBlockSize bytes
     * @param optimalTransfer   bytes: the OPTIMAL TRANSFER LENGTH the LUN advertises (Block Limits VPD; the NVMe
     *                          twin is NOWS + 1 blocks)
     */
    public TraceStats(int logicalBlockSize, int physicalBlockSize, long optimalTransfer) {
        unitBytes[Unit.LOGICAL_BLOCK.ordinal()] = logicalBlockSize;
        unitBytes[Unit.PHYSICAL_BLOCK.ordinal()] = physicalBlockSize;
        unitBytes[Unit.OPTIMAL_TRANSFER.ordinal()] = optimalTransfer;
    }

    /** Counts one completed command; {@code lba} / {@code blocks} only when it addresses blocks. */
    public void record(IoKind kind, long lba, long blocks, long byteCount, int depth, long latencyNanos, boolean ok) {
        int k = kind.ordinal();
        commands[k].increment();
        if (!ok) {
            failures[k].increment();
        }
        queueDepth.recordValue(Math.clamp(depth, 1, MAX_QUEUE_DEPTH));
        latency.recordValue(Math.clamp(latencyNanos, 1, MAX_LATENCY_NANOS));
        if (blocks <= 0 || lba < 0) {
            return;
        }
        sized[k].increment();
        bytes[k].add(byteCount);
        sizes[k * SIZE_BUCKETS + sizeBucket(byteCount)].increment();
        long offset = lba * unitBytes[Unit.LOGICAL_BLOCK.ordinal()];
        for (int u = 0; u < UNITS; u++) {
            long unit = unitBytes[u];
            if (unit > 0 && offset % unit == 0 && byteCount % unit == 0) {
                aligned[k * UNITS + u].increment();
            }
        }
    }

    /** The size bucket of {@code byteCount}: ceil(log2), capped at the last bucket. */
    static int sizeBucket(long byteCount) {
        if (byteCount <= 1) {
            return 0;
        }
        return Math.min(SIZE_BUCKETS - 1, 64 - Long.numberOfLeadingZeros(byteCount - 1));
    }

    /** Bytes the alignment unit stands for. */
    public long unitBytes(Unit unit) {
        return unitBytes[unit.ordinal()];
    }

    public long commands(IoKind kind) {
        return commands[kind.ordinal()].sum();
    }

    public long failures(IoKind kind) {
        return failures[kind.ordinal()].sum();
    }

    /** Commands of {@code kind} that addressed blocks (the denominator of sizes and alignment). */
    public long sized(IoKind kind) {
        return sized[kind.ordinal()].sum();
    }

    public long bytes(IoKind kind) {
        return bytes[kind.ordinal()].sum();
    }

    /** Per-bucket counts (bucket i: (2^(i-1), 2^i] bytes). */
    public long[] sizeBuckets(IoKind kind) {
        long[] counts = new long[SIZE_BUCKETS];
        for (int i = 0; i < SIZE_BUCKETS; i++) {
            counts[i] = sizes[kind.ordinal() * SIZE_BUCKETS + i].sum();
        }
        return counts;
    }

    /** Commands of {@code kind} whose first byte and length are both multiples of {@code unit}. */
    public long aligned(IoKind kind, Unit unit) {
        return aligned[kind.ordinal() * UNITS + unit.ordinal()].sum();
    }

    /** A copy of the queue-depth-at-arrival histogram. */
    public Histogram queueDepth() {
        return queueDepth.copy();
    }

    /** A copy of the latency histogram (nanoseconds). */
    public Histogram latency() {
        return latency.copy();
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] adders = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }
}
