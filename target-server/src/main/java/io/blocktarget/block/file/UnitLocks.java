package io.blocktarget.block.file;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * The order of overlapping I/O of one file LUN, in aligned units of logical blocks (the physical block): reads of a
 * unit share it, a write (or unmap, write zeroes) has it alone. The page cache copies a block page by page and a
 * buffered read takes no lock against a write (ext4, tmpfs), so without this a read can return the first pages of a
 * write and the old rest; with it every write within one unit is atomic with respect to reads and writes (NVM Command
 * Set §2.1.4.1), which is what {@link FileBlockDevice#atomicUnitBlocks} claims.
 *
 * <p>Asynchronous, as {@link io.blocktarget.block.RangeLocks}: a request that overlaps a held one of the other kind, or
 * an earlier waiting one (so neither kind starves), waits; its continuation then runs on the thread that released the
 * last conflicting unit. Nothing blocks a thread. I/O of different units never waits; one monitor enter per acquire and
 * per release is the cost (a file I/O is a system call).
 */
final class UnitLocks {

    /** A held range; release exactly once, when its I/O completed. */
    interface Lease {
        void release();
    }

    private final class Request implements Lease {
        final long first;
        final long end;
        final boolean write;
        final Consumer<Lease> granted;

        Request(long first, long end, boolean write, Consumer<Lease> granted) {
            this.first = first;
            this.end = end;
            this.write = write;
            this.granted = granted;
        }

        boolean conflicts(Request other) {
            return (write || other.write) && first < other.end && other.first < end;
        }

        @Override
        public void release() {
            UnitLocks.this.release(this);
        }
    }

    private final int unitBlocks;
    private final List<Request> held = new ArrayList<>();
    private final Deque<Request> waiting = new ArrayDeque<>();

    /** @param unitBlocks logical blocks per unit (a power of two, ≥ 1) */
    UnitLocks(int unitBlocks) {
        if (unitBlocks < 1 || Integer.bitCount(unitBlocks) != 1) {
            throw new IllegalArgumentException("unit of " + unitBlocks + " blocks");
        }
        this.unitBlocks = unitBlocks;
    }

    int unitBlocks() {
        return unitBlocks;
    }

    /**
     * Takes the units {@code [lba, lba + blocks)} touches (a count of 0 counts as one block) shared ({@code write}
     * false) or alone, then hands {@code granted} the lease to release — inline when nothing conflicts, else on the
     * thread that releases the last conflicting range.
     */
    void acquire(long lba, long blocks, boolean write, Consumer<Lease> granted) {
        // not range-checked yet (the I/O fails right after when out of range): saturate instead of overflowing
        long first = Math.floorDiv(lba, unitBlocks);
        long last = Math.floorDiv(end(lba, blocks) - 1, unitBlocks);
        Request request = new Request(first, last + 1, write, granted);
        synchronized (this) {
            if (blocked(request, null)) {
                waiting.addLast(request);
                return;
            }
            held.add(request);
        }
        granted.accept(request);
    }

    /** {@code lba + max(blocks, 1)}, saturated at Long.MAX_VALUE. */
    static long end(long lba, long blocks) {
        long n = Math.max(blocks, 1);
        return lba > Long.MAX_VALUE - n ? Long.MAX_VALUE : lba + n;
    }

    /** Whether {@code request} conflicts with a held range or a waiting one before {@code stopAt} (null: all). */
    private boolean blocked(Request request, Request stopAt) {
        for (Request h : held) {
            if (h.conflicts(request)) {
                return true;
            }
        }
        for (Request w : waiting) {
            if (w == stopAt) {
                break;
            }
            if (w.conflicts(request)) {
                return true;
            }
        }
        return false;
    }

    private void release(Request request) {
        List<Request> granted = new ArrayList<>();
        synchronized (this) {
            if (!held.remove(request)) {
                throw new IllegalStateException("unit range released twice or never granted");
            }
            for (var it = waiting.iterator(); it.hasNext(); ) {
                Request w = it.next();
                if (!blocked(w, w)) {
                    it.remove();
                    held.add(w);
                    granted.add(w);
                }
            }
        }
        granted.forEach(r -> r.granted.accept(r));
    }

    /** Ranges held or waiting now: for tests. */
    synchronized int pending() {
        return held.size() + waiting.size();
    }
}
