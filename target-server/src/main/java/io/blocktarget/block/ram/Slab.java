package io.blocktarget.block.ram;

import io.blocktarget.block.Libc;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The memory of one huge page's worth of a {@link RamBlockDevice}'s chunks ({@value RamBlockDevice#HUGE_PAGE} bytes,
 * aligned to it): chunk i of the region lives at slot i, so that once every chunk of the region is written the region
 * is collapsed into one transparent huge page ({@link #collapse}, on the device's collapse thread) and a random read's
 * copy to the socket walks one TLB entry for 2 MiB, not one per 4 KiB page (docs/performance.md: kernel time per read
 * and reads/s with chunks on huge pages).
 *
 * <p>Until then it is mapped with {@code MADV_NOHUGEPAGE} (so THP "always" does not fault in 2 MiB for the first 64 KiB
 * chunk of a sparse disk), and every slot given back is {@code MADV_DONTNEED}ed: the memory the slab holds is the
 * memory its chunks hold, which is what the {@link MemoryBudget} counts. A free slot reads as zeros (a private
 * anonymous mapping, fresh or dropped), so a fresh chunk needs no zeroing.
 *
 * <p>A slot still held by an older version of its chunk (a reader's slice keeps it after a copy-on-write or an unmap)
 * cannot be taken: the caller falls back to malloc for that chunk. Taking and giving are rare (a chunk's first write,
 * its unmap, a copy); they synchronize on the slab. Reads never touch it.
 *
 * <p>At most {@value #MAX_SLABS} slabs (32 GiB of chunks) exist in the process; chunks past that are malloc'd. Each
 * slab is a mapping whose advice can differ from its neighbours', so it may be a VMA of its own, and a process has
 * {@code vm.max_map_count} of them (65,530 by default) for everything: the JVM's heap, thread stacks and code too.
 */
final class Slab {
    /** Slabs that may exist at once in the process: half of the default vm.max_map_count. */
    static final int MAX_SLABS = 16_384;
    /** Slabs mapped and not yet unmapped, process-wide. */
    private static final AtomicInteger LIVE = new AtomicInteger();

    private final MemorySegment memory;
    private final int chunkSize;
    private final long full;
    /** Bit i: slot i is a chunk's memory now. */
    private long used;
    /** Advised MADV_HUGEPAGE (and asked to collapse) since it was last full. */
    private boolean huge;
    /** The device closed: the slab is unmapped once its last slot comes back. */
    private boolean closed;
    /** A {@link #collapse} is advising the mapping: the unmap waits (it would advise whatever is mapped there next). */
    private boolean collapsing;
    private boolean unmapped;

    private Slab(MemorySegment memory, int chunkSize) {
        this.memory = memory;
        this.chunkSize = chunkSize;
        this.full = (1L << (RamBlockDevice.HUGE_PAGE / chunkSize)) - 1;   // at most 32 slots: chunks are >= 64 KiB
    }

    /**
     * A slab for chunks of {@code chunkSize} (a power of two below a huge page), or null when {@value #MAX_SLABS}
     * exist already or mmap fails.
     */
    static Slab map(int chunkSize) {
        if (LIVE.incrementAndGet() > MAX_SLABS) {
            LIVE.decrementAndGet();
            return null;
        }
        MemorySegment memory = Libc.mmapAligned(RamBlockDevice.HUGE_PAGE, RamBlockDevice.HUGE_PAGE);
        if (memory.equals(MemorySegment.NULL)) {
            LIVE.decrementAndGet();
            return null;
        }
        Libc.madvise(memory, Libc.MADV_NOHUGEPAGE);
        return new Slab(memory, chunkSize);
    }

    /**
     * Slot {@code slot}'s memory, all zeros, for a new chunk; null when an older version of the chunk still holds the
     * slot, or the slab is closed. {@code collapse} runs when this takes the region's last free slot.
     */
    MemorySegment take(int slot, Runnable collapse) {
        long bit = 1L << slot;
        boolean full;
        synchronized (this) {
            if (closed || (used & bit) != 0) {
                return null;
            }
            used |= bit;
            full = used == this.full && !huge;
            huge |= full;
        }
        if (full) {
            collapse.run();
        }
        return memory.asSlice((long) slot * chunkSize, chunkSize);
    }

    /**
     * Collapses the slab into a huge page, synchronously: in this guest a fresh huge page takes ~5 ms to get (the
     * kernel allocates it before it takes the mm's lock, then copies 2 MiB under it), so the device runs this on its
     * own thread, never on an event loop. Hints: a kernel before 6.1 refuses MADV_COLLAPSE (khugepaged then collapses
     * the slab in its time), one without THP refuses both. A hole made meanwhile ({@link #give}) wins: no collapse.
     */
    void collapse() {
        synchronized (this) {
            if (closed || !huge) {
                return;
            }
            collapsing = true;
        }
        try {
            Libc.madvise(memory, Libc.MADV_HUGEPAGE);
            Libc.madvise(memory, Libc.MADV_COLLAPSE);
        } finally {
            synchronized (this) {
                collapsing = false;
                if (!huge && !closed) {
                    // A slot went while we advised, and the collapse may have filled its hole with zeros: no huge page
                    // over a hole (khugepaged would make one), and every free slot dropped again, so that the slab
                    // holds what the budget counts.
                    Libc.madvise(memory, Libc.MADV_NOHUGEPAGE);
                    for (int slot = 0; slot < Long.SIZE && (full >>> slot) != 0; slot++) {
                        if ((used & (1L << slot)) == 0) {
                            Libc.madvise(memory.asSlice((long) slot * chunkSize, chunkSize), Libc.MADV_DONTNEED);
                        }
                    }
                }
                unmapIfDone();
            }
        }
    }

    /** Slabs mapped now, process-wide (tests). */
    static int live() {
        return LIVE.get();
    }

    /** Unmaps the slab once the device closed, no chunk holds a slot and no collapse is advising it. */
    private void unmapIfDone() {
        if (closed && used == 0 && !collapsing && !unmapped) {
            unmapped = true;
            Libc.munmap(memory);
            LIVE.decrementAndGet();
        }
    }

    /** Slot {@code slot} is free again (its chunk's last reference went): its memory goes back to the kernel. */
    void give(int slot) {
        long bit = 1L << slot;
        synchronized (this) {
            used &= ~bit;
            if (closed) {
                unmapIfDone();
                return;
            }
            if (huge) {
                // a hole in a huge slab: khugepaged would fill it with zeros, memory the budget does not count
                huge = false;
                if (!collapsing) {
                    Libc.madvise(memory, Libc.MADV_NOHUGEPAGE);   // else the collapse does it when it ends
                }
            }
            MemorySegment chunk = memory.asSlice((long) slot * chunkSize, chunkSize);
            if (Libc.madvise(chunk, Libc.MADV_DONTNEED) != 0) {
                chunk.fill((byte) 0);   // not dropped (it never should fail here): a free slot must read zeros
            }
        }
    }

    /** The device closed: unmapped now if no chunk holds a slot, else when the last one comes back. */
    synchronized void close() {
        closed = true;
        unmapIfDone();
    }
}
