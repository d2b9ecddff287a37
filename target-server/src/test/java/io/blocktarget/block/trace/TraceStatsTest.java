package io.blocktarget.block.trace;

import io.blocktarget.block.IoKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TraceStatsTest {
    @Test
    void sizeBucketsArePowersOfTwoRoundedUp() {
        assertEquals(0, TraceStats.sizeBucket(1));
        assertEquals(9, TraceStats.sizeBucket(512));
        assertEquals(10, TraceStats.sizeBucket(513));
        assertEquals(14, TraceStats.sizeBucket(16384));
        assertEquals(15, TraceStats.sizeBucket(16385));
        assertEquals(40, TraceStats.sizeBucket(1L << 40));
        assertEquals(40, TraceStats.sizeBucket(1L << 50), "capped at the last bucket");
    }

    @Test
    void alignmentCountsStartAndLengthAgainstEachUnit() {
        TraceStats stats = new TraceStats(4096, 16384, 1 << 20);
        stats.record(IoKind.WRITE, 4, 4, 16384, 1, 1000, true);     // 16 KiB at 16 KiB: lbs + pbs
        stats.record(IoKind.WRITE, 1, 4, 16384, 2, 1000, true);     // 16 KiB at 4 KiB: lbs only
        stats.record(IoKind.WRITE, 256, 256, 1 << 20, 3, 1000, true); // 1 MiB at 1 MiB: all three
        stats.record(IoKind.WRITE, 4, 1, 4096, 3, 1000, false);     // 4 KiB at 16 KiB: lbs only; failed
        stats.record(IoKind.FLUSH, -1, 0, 0, 1, 1000, true);        // no blocks: not sized
        assertEquals(4, stats.commands(IoKind.WRITE));
        assertEquals(1, stats.failures(IoKind.WRITE));
        assertEquals(4, stats.sized(IoKind.WRITE));
        assertEquals(0, stats.sized(IoKind.FLUSH));
        assertEquals(1, stats.commands(IoKind.FLUSH));
        assertEquals(4, stats.aligned(IoKind.WRITE, TraceStats.Unit.LOGICAL_BLOCK));
        assertEquals(2, stats.aligned(IoKind.WRITE, TraceStats.Unit.PHYSICAL_BLOCK));
        assertEquals(1, stats.aligned(IoKind.WRITE, TraceStats.Unit.OPTIMAL_TRANSFER));
        long[] sizes = stats.sizeBuckets(IoKind.WRITE);
        assertEquals(2, sizes[14]);
        assertEquals(1, sizes[20]);
        assertEquals(1, sizes[12]);
        assertEquals(16384 + 16384 + (1 << 20) + 4096, stats.bytes(IoKind.WRITE));
        assertEquals(5, stats.queueDepth().getTotalCount());
        assertEquals(3, stats.queueDepth().getMaxValue());
        assertEquals(5, stats.latency().getTotalCount());
    }

    @Test
    void outOfRangeValuesAreClampedNotThrown() {
        TraceStats stats = new TraceStats(512, 4096, 1 << 20);
        stats.record(IoKind.READ, 0, 1, 512, 0, 0, true);
        stats.record(IoKind.READ, 0, 1, 512, Integer.MAX_VALUE, Long.MAX_VALUE, true);
        assertEquals(2, stats.latency().getTotalCount());
        assertEquals(2, stats.queueDepth().getTotalCount());
    }
}
