package io.blocktarget.block;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The logical blocks of one device that read as unrecoverable until rewritten — a fault the initiator controls
 * (NVMe Write Uncorrectable, NVM Command Set §3.2.7; SCSI sees the same blocks fail with MEDIUM ERROR / UNRECOVERED
 * READ ERROR, since it is device state, not NVMe state). A sorted set of disjoint, non-adjacent half-open ranges
 * {@code [start, end)}; thread safe. Zero cost when empty: {@link #isEmpty()} is one volatile read, and readers
 * test it before taking the lock.
 */
public final class UncorrectableBlocks {
    /** start -> end (exclusive); ranges neither overlap nor touch (touching ones are merged). */
    private final TreeMap<Long, Long> ranges = new TreeMap<>();
    private volatile int rangeCount;

    /** True when no block is marked: the read path's fast check. */
    public boolean isEmpty() {
        return rangeCount == 0;
    }

    /** Marks {@code [lba, lba + count)} uncorrectable (a count of 0 marks nothing). */
    public synchronized void mark(long lba, long count) {
        if (count <= 0) {
            return;
        }
        long start = lba;
        long end = lba + count;
        // merge with a range that overlaps or touches on the left, then swallow those on the right
        Map.Entry<Long, Long> left = ranges.floorEntry(start);
        if (left != null && left.getValue() >= start) {
            start = left.getKey();
            end = Math.max(end, left.getValue());
            ranges.remove(left.getKey());
        }
        for (Map.Entry<Long, Long> next = ranges.ceilingEntry(start); next != null && next.getKey() <= end;
             next = ranges.ceilingEntry(start)) {
            end = Math.max(end, next.getValue());
            ranges.remove(next.getKey());
        }
        ranges.put(start, end);
        rangeCount = ranges.size();
    }

    /** The blocks of {@code [lba, lba + count)} were rewritten (write, write zeroes, deallocate): they read again. */
    public void clear(long lba, long count) {
        if (count <= 0 || isEmpty()) {
            return;
        }
        synchronized (this) {
            long end = lba + count;
            Map.Entry<Long, Long> left = ranges.lowerEntry(lba);
            if (left != null && left.getValue() > lba) {
                // split the range that starts before lba: keep its head, and its tail past end
                ranges.put(left.getKey(), lba);
                if (left.getValue() > end) {
                    ranges.put(end, left.getValue());
                }
            }
            for (Map.Entry<Long, Long> next = ranges.ceilingEntry(lba); next != null && next.getKey() < end;
                 next = ranges.ceilingEntry(lba)) {
                ranges.remove(next.getKey());
                if (next.getValue() > end) {
                    ranges.put(end, next.getValue());
                }
            }
            rangeCount = ranges.size();
        }
    }

    /** The first marked block in {@code [lba, lba + count)}, or -1 when none is. */
    public long firstIn(long lba, long count) {
        if (count <= 0 || isEmpty()) {
            return -1;
        }
        synchronized (this) {
            Map.Entry<Long, Long> left = ranges.floorEntry(lba);
            if (left != null && left.getValue() > lba) {
                return lba;
            }
            Long next = ranges.ceilingKey(lba);
            return next != null && next < lba + count ? next : -1;
        }
    }

    /** The marked ranges in order, for tests and diagnostics. */
    public synchronized List<BlockRange> ranges() {
        List<BlockRange> list = new ArrayList<>(ranges.size());
        ranges.forEach((start, end) -> list.add(new BlockRange(start, end - start)));
        return list;
    }

    @Override
    public String toString() {
        return "UncorrectableBlocks" + ranges();
    }
}
