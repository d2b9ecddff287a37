package io.blocktarget.block.ram;

import io.blocktarget.block.AbstractBlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.Libc;
import io.blocktarget.block.NativeByteBuf;
import io.blocktarget.block.ReadAssembly;
import io.blocktarget.block.ProvisioningRun;
import io.blocktarget.block.ZeroBuffers;
import io.blocktarget.block.BlockError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thin RAM disk in native memory, allocated like brd allocates pages: a chunk on the first write
 * that touches it, freed again by UNMAP / write-zeroes, never-written blocks read as zeros from a
 * shared region without allocating (DESIGN.md §3).
 *
 * <p>Chunks are {@code max(PBS, 64 KiB)} bytes, aligned to the PBS: 64 KiB is the largest logical
 * block, so no logical or physical block ever spans two chunks; it keeps the first-write cost of
 * zeroing a fresh chunk at 16x a 4 KiB write (1 MiB chunks would be 256x), frees memory on the
 * discards file systems issue at 64 KiB granularity, and costs ~100 bytes of heap per 64 KiB chunk
 * (0.15%). The chunk table is a {@link SparseArray}, tiny until written. Every chunk ends up on transparent huge
 * pages where the kernel has them: chunks smaller than 2 MiB at their fixed slot of their region's {@link Slab},
 * collapsed into a huge page once the region is written whole; chunks of 2 MiB and more (a PBS that large) each on
 * their own ({@link #chunkMemory}). A chunk whose slot is taken (by an older version a read still holds) is malloc'd.
 *
 * <p>Each chunk is a {@link NativeByteBuf} whose last release frees its memory and credits the
 * {@link MemoryBudget}. The table holds one reference; a read hands out slices that each hold
 * another, so an unmap that drops the table's reference cannot free memory a transport is still
 * writing to a socket. Writers hold a reference while copying for the same reason. Several event
 * loops may use one device: chunk allocation races are settled by CAS on the table slot.
 *
 * <p>Every change of a chunk is atomic (NVM Command Set §2.1.4.1: a write of one logical block is atomic with
 * respect to other reads and writes, AWUN 0's based; and since a chunk is aligned to and at least the physical block,
 * so is every write within one physical block — what NVMe's NAWUN / NAWUPF claim for this backend, {@link
 * #atomicUnitBlocks}). A read holds slices of the chunks it found until the transport has written them to a socket,
 * long after the read completed, so a writer must never change memory a reader holds, nor memory a reader is about to
 * slice. Hence, per chunk ({@link Chunk}): a writer takes the chunk's lock (one writer at a time; a write, unmap or
 * write zeroes copies at most one chunk while holding it), takes its own reference, and then changes the memory in
 * place only if the table's reference and its own are the only ones; otherwise it changes a copy and swaps the copy
 * into the table slot, and the readers keep the version they sliced. A reader takes its reference first and then
 * checks the lock, and waits for the change to end when a writer has it. Both update the one reference count, so
 * either the writer sees the reader's reference or the reader sees the writer's lock (a Dekker handshake).
 *
 * <p>Atomic writes ({@link #writeAtomic}) of several chunks copy every chunk they touch, change the copies, and swap
 * them into the table slot by slot. A read within one chunk sees any change whole or not at all; a read spanning
 * chunks checks {@link #atomicPublishes} (a seqlock: odd while a swap is under way) before and after taking its
 * slices and starts again when it changed — two volatile reads of a counter that changes only when an atomic write
 * runs.
 *
 * <p>All operations complete inline, before the method returns.
 */
public final class RamBlockDevice extends AbstractBlockDevice {
    /** The smallest chunk: the largest logical block size. */
    public static final int MIN_CHUNK_SIZE = BlockGeometry.MAX_LOGICAL_BLOCK_SIZE;
    /** x86-64's and arm64's (4 KiB granule) PMD-level page: chunks this large or larger are backed by huge pages. */
    static final int HUGE_PAGE = 2 << 20;

    private final MemoryBudget budget;
    private final int chunkSize;
    private final int chunkShift;
    private final SparseArray<Chunk> chunks;
    /** The huge-page slabs of chunks below a huge page, by region (chunk index >>> {@link #slotShift}); else null. */
    private final SparseArray<Slab> slabs;
    /** Tests only: runs as a chunk's memory is about to be allocated (to interleave a close with it); null otherwise. */
    Runnable beforeAllocate;
    private final int slotShift;
    /** See {@link #collapser()}; guarded by this. */
    private ExecutorService collapser;
    private final AtomicLong allocatedBytes = new AtomicLong();
    /** Shared by all chunks of this device (they have one size): runs when a chunk's memory is freed. */
    private final Runnable chunkFreed;
    /** Seqlock of atomic writes: incremented before and after the chunks of one are swapped in (odd = swapping). */
    private final AtomicLong atomicPublishes = new AtomicLong();

    public RamBlockDevice(String name, BlockGeometry geometry, boolean readOnly, MemoryBudget budget) {
        super(name, geometry, readOnly);
        this.budget = Objects.requireNonNull(budget, "budget");
        this.chunkSize = Math.max(geometry.physicalBlockSize(), MIN_CHUNK_SIZE);
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
        this.chunks = new SparseArray<>(chunksFor(geometry.sizeBytes()));
        this.slotShift = Integer.numberOfTrailingZeros(HUGE_PAGE) - chunkShift;
        this.slabs = chunkSize < HUGE_PAGE ? new SparseArray<>(regionsFor(chunks.capacity())) : null;
        this.chunkFreed = () -> {
            allocatedBytes.addAndGet(-chunkSize);
            budget.release(chunkSize);
        };
    }

    /**
     * Mapped = its chunk is in the table; deallocated = never written, or freed by an unmap / write zeroes that
     * covered the whole chunk (a partly covered chunk is zeroed and stays). Runs end at chunk boundaries.
     */
    @Override
    public ProvisioningRun provisioning(long lba, long maxBlocks) {
        int shift = geometry().logicalBlockShift();
        long end = Math.min(lba + maxBlocks, geometry().blockCount());
        long chunk = (lba << shift) >>> chunkShift;
        boolean mapped = chunks.get(chunk) != null;
        long lastChunk = ((end - 1) << shift) >>> chunkShift;
        long other = chunks.next(chunk + 1, lastChunk + 1, !mapped);
        long runEnd = Math.min((other << chunkShift) >>> shift, end);
        return new ProvisioningRun(mapped, Math.max(1, runEnd - lba));
    }

    /** Bytes of native memory this device holds, including chunks kept alive only by in-flight reads. */
    @Override
    public long allocatedBytes() {
        return allocatedBytes.get();
    }

    /** The allocation unit in bytes: max(PBS, 64 KiB). */
    public int chunkSize() {
        return chunkSize;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        BlockIoException failure = checkReadRequest(lba, blockCount);
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        long position = lba << geometry().logicalBlockShift();
        int length = blockCount << geometry().logicalBlockShift();
        int offset = offsetInChunk(position);
        ByteBuf result;
        if (length == 0) {
            result = Unpooled.EMPTY_BUFFER;
        } else if (offset + length <= chunkSize) {
            result = piece(position >>> chunkShift, offset, length);
        } else {
            result = assembleUntorn(position, length);
        }
        callback.complete(result, null);
    }

    /**
     * {@link #assemble} with no atomic write's swap between its first and last chunk: the chunks of one atomic write
     * are swapped in one at a time, so a read spanning chunks could otherwise take an old and a new one.
     */
    private ByteBuf assembleUntorn(long position, int length) {
        for (;;) {
            long before = atomicPublishes.get();
            if ((before & 1) != 0) {
                Thread.onSpinWait(); // a swap is a few CAS: over in nanoseconds
                continue;
            }
            ByteBuf assembled = assemble(position, length);
            if (atomicPublishes.get() == before) {
                return assembled;
            }
            assembled.release();
        }
    }

    private ByteBuf assemble(long position, int length) {
        ReadAssembly assembly = new ReadAssembly((int) (((position & (chunkSize - 1)) + length + chunkSize - 1) >>> chunkShift));
        long end = position + length;
        while (position < end) {
            int offset = offsetInChunk(position);
            int n = (int) Math.min(chunkSize - offset, end - position);
            NativeByteBuf chunk = acquireStable(position >>> chunkShift);
            if (chunk == null) {
                assembly.addZeros(n);
            } else {
                assembly.add(chunk.slice(offset, n));
            }
            position += n;
        }
        return assembly.build();
    }

    /** One chunk's part of a read: a slice holding a reference to the chunk, or zeros. */
    private ByteBuf piece(long chunkIndex, int offset, int length) {
        NativeByteBuf chunk = acquireStable(chunkIndex);
        return chunk == null ? ZeroBuffers.zeros(length) : chunk.slice(offset, length);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        BlockIoException failure = checkWriteRequest(lba, data);
        if (failure == null) {
            failure = copyIn(lba << geometry().logicalBlockShift(), data);
        }
        callback.complete(null, failure);
    }

    /** The one copy of a write: from the caller's buffer into chunk memory. FUA needs nothing more in RAM. */
    private BlockIoException copyIn(long position, ByteBuf data) {
        int sourceIndex = data.readerIndex();
        long end = position + data.readableBytes();
        while (position < end) {
            int offset = offsetInChunk(position);
            int n = (int) Math.min(chunkSize - offset, end - position);
            if (!copyIntoChunk(position >>> chunkShift, offset, data, sourceIndex, n)) {
                // the budget is shared by every RAM disk and refills as any of them unmaps: a shortage
                // of server memory, not of this LUN's capacity (BlockError.INSUFFICIENT_RESOURCES)
                return new BlockIoException(BlockError.INSUFFICIENT_RESOURCES, name()
                        + ": RAM disk memory budget exhausted or malloc failed (" + budget + ")");
            }
            sourceIndex += n;
            position += n;
        }
        if (state() == State.CLOSED) {
            // close() raced with this write and may have emptied the table before our chunk went in.
            releaseAll();
        }
        return null;
    }

    /** Copies {@code length} bytes of {@code data} into chunk {@code chunkIndex} at {@code offset}; false when out of memory. */
    private boolean copyIntoChunk(long chunkIndex, int offset, ByteBuf data, int sourceIndex, int length) {
        return change(chunkIndex, length == chunkSize, true, memory -> memory.copyFrom(offset, data, sourceIndex, length));
    }

    /**
     * Applies {@code change} to chunk {@code chunkIndex} so that no reader sees it half done (see the class comment): a
     * chunk nobody has written yet is filled before it is published by CAS (so no reader ever sees a fresh chunk's
     * uninitialised memory: malloc may hand back another LUN's freed data); an existing one is changed in place while
     * nobody else holds a reference to it, else a changed copy replaces it. Without {@code allocate} a missing chunk
     * is left missing (it reads as zeros: zeroing it changes nothing). False when the budget or malloc says no.
     *
     * @param whole the change overwrites the whole chunk (a fresh chunk then needs no zeroing)
     */
    private boolean change(long chunkIndex, boolean whole, boolean allocate, java.util.function.Consumer<NativeByteBuf> change) {
        for (int attempt = 0; ; attempt++) {
            Chunk chunk = chunks.get(chunkIndex);
            if (chunk == null) {
                if (!allocate) {
                    return true;
                }
                Chunk fresh = allocate(chunkIndex, whole);
                if (fresh == null) {
                    return false;
                }
                change.accept(fresh.memory);
                if (chunks.putIfAbsent(chunkIndex, fresh)) {
                    return true;   // the table now owns the one reference
                }
                fresh.memory.release();   // another writer won the slot: free ours, change theirs
                continue;
            }
            if (!chunk.tryLock()) {
                Chunk.backOff(attempt);   // another writer copies into this chunk: at most one chunk's worth
                continue;
            }
            try {
                if (chunks.get(chunkIndex) != chunk || !retain(chunk.memory)) {
                    continue;   // replaced by a copy or unmapped meanwhile: start again with what the slot holds now
                }
                try {
                    if (chunk.memory.refCnt() <= 2) {
                        change.accept(chunk.memory);   // the table's reference and ours: nobody reads this memory
                        return true;
                    }
                    // readers hold slices of this version: they keep it, the table gets a changed copy
                    Chunk copy = allocate(chunkIndex, true);
                    if (copy == null) {
                        return false;
                    }
                    copy.memory.copyFrom(0, chunk.memory, 0, chunkSize);
                    change.accept(copy.memory);
                    if (chunks.replace(chunkIndex, chunk, copy)) {
                        chunk.memory.release();   // the table's reference; the readers' slices keep the memory alive
                        return true;
                    }
                    copy.memory.release();   // unmapped (or closed) meanwhile: start again with the empty slot
                } finally {
                    chunk.memory.release();   // ours
                }
            } finally {
                chunk.unlock();
            }
        }
    }

    /**
     * The physical block: every change of a chunk is atomic (class comment), and a chunk is aligned to and at least the
     * physical block, so every write within one is applied whole.
     */
    @Override
    public int atomicUnitBlocks() {
        return geometry().logicalBlocksPerPhysicalBlock();
    }

    /** As {@link #atomicUnitBlocks()}: nothing of a RAM disk survives a power loss, so no unit is found torn after one. */
    @Override
    public int powerFailAtomicUnitBlocks() {
        return atomicUnitBlocks();
    }

    /** The chunk: an atomic write replaces whole chunks, so nothing else may change them meanwhile. */
    @Override
    public int atomicWriteGranule() {
        return chunkSize >>> geometry().logicalBlockShift();
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        BlockIoException failure = checkWriteRequest(lba, data);
        if (failure == null) {
            failure = copyOnWrite(lba << geometry().logicalBlockShift(), data);
        }
        callback.complete(null, failure);
    }

    /**
     * Prepares a changed copy of every chunk the write touches (nothing visible yet: a failure here changes nothing)
     * and swaps them in under the seqlock. The caller's exclusive range lock over whole chunks keeps every other
     * write, unmap and write zeroes of these chunks out, so no update to the old chunk is lost and no slot changes
     * under us.
     */
    private BlockIoException copyOnWrite(long position, ByteBuf data) {
        long end = position + data.readableBytes();
        long first = position >>> chunkShift;
        int count = (int) (((end - 1) >>> chunkShift) - first + 1);
        Chunk[] old = new Chunk[count];
        Chunk[] fresh = new Chunk[count];
        int sourceIndex = data.readerIndex();
        long at = position;
        for (int i = 0; i < count; i++) {
            int offset = offsetInChunk(at);
            int n = (int) Math.min(chunkSize - offset, end - at);
            old[i] = acquireChunk(first + i);
            fresh[i] = allocate(first + i, old[i] != null || n == chunkSize);
            if (fresh[i] == null) {
                for (int j = 0; j <= i; j++) {
                    if (old[j] != null) {
                        old[j].memory.release();
                    }
                    if (fresh[j] != null) {
                        fresh[j].memory.release();
                    }
                }
                return new BlockIoException(BlockError.INSUFFICIENT_RESOURCES, name()
                        + ": RAM disk memory budget exhausted or malloc failed (" + budget + ")");
            }
            if (old[i] != null) {
                fresh[i].memory.copyFrom(0, old[i].memory, 0, chunkSize);
            }
            fresh[i].memory.copyFrom(offset, data, sourceIndex, n);
            sourceIndex += n;
            at += n;
        }
        atomicPublishes.incrementAndGet();
        try {
            for (int i = 0; i < count; i++) {
                boolean swapped = old[i] == null
                        ? chunks.putIfAbsent(first + i, fresh[i])
                        : chunks.replace(first + i, old[i], fresh[i]);
                if (!swapped) {
                    fresh[i].memory.release(); // only close() empties slots under the range lock: the data is gone anyway
                } else if (old[i] != null) {
                    old[i].memory.release();   // the table's reference: readers' slices keep the old version alive
                }
            }
        } finally {
            atomicPublishes.incrementAndGet();
        }
        for (Chunk o : old) {
            if (o != null) {
                o.memory.release();     // ours, from acquireChunk
            }
        }
        if (state() == State.CLOSED) {
            releaseAll();
        }
        return null;
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        callback.complete(null, checkOpen());
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        BlockIoException failure = checkUnmapRequest(ranges);
        for (int i = 0; failure == null && i < ranges.size(); i++) {
            failure = deallocate(ranges.get(i).lba(), ranges.get(i).count());
        }
        callback.complete(null, failure);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        BlockIoException failure = checkWriteZeroesRequest(lba, blockCount);
        if (failure == null) {
            failure = deallocate(lba, blockCount);
        }
        callback.complete(null, failure);
    }

    /**
     * Zeros the covered part of the chunks at the range's ends and frees the chunks it covers whole;
     * the table skips subtrees that were never written, so unmapping all of a huge, mostly empty
     * disk costs little. Fails (INSUFFICIENT_RESOURCES) when a partial chunk a read still holds needs a copy to be
     * zeroed and the budget has no room for it: the part not zeroed would read as the old data.
     */
    private BlockIoException deallocate(long lba, long blockCount) {
        long start = lba << geometry().logicalBlockShift();
        if (deallocateBytes(start, start + (blockCount << geometry().logicalBlockShift()))) {
            return null;
        }
        return new BlockIoException(BlockError.INSUFFICIENT_RESOURCES, name()
                + ": RAM disk memory budget exhausted or malloc failed zeroing a chunk a read holds (" + budget + ")");
    }

    /** {@link #deallocate} in bytes: {@code [start, end)} within the chunk table; false when a part was not zeroed. */
    private boolean deallocateBytes(long start, long end) {
        if (start >= end) {
            return true;
        }
        long firstWhole = (start + chunkSize - 1) >>> chunkShift;
        long endWhole = end >>> chunkShift;
        if (firstWhole >= endWhole) {            // inside one chunk, or across one boundary
            boolean head = zeroPart(start, Math.min(end, firstWhole << chunkShift));
            return zeroPart(Math.max(start, endWhole << chunkShift), end) && head;
        }
        boolean head = zeroPart(start, firstWhole << chunkShift);
        chunks.removeRange(firstWhole, endWhole, c -> c.memory.release());
        return zeroPart(endWhole << chunkShift, end) && head;
    }

    /**
     * Zeros {@code [from, to)}, which lies within one chunk (empty when from >= to): a change like a write's, so a
     * read holding the chunk keeps its data; false when that needed a copy the budget had no room for.
     */
    private boolean zeroPart(long from, long to) {
        if (from >= to) {
            return true;
        }
        int offset = offsetInChunk(from);
        int length = (int) (to - from);
        return change(from >>> chunkShift, false, false, memory -> memory.zero(offset, length));
    }

    private long regionsFor(long chunkCount) {
        return ((chunkCount - 1) >>> slotShift) + 1;
    }

    private long chunksFor(long sizeBytes) {
        return (sizeBytes >>> chunkShift) + ((sizeBytes & (chunkSize - 1)) == 0 ? 0 : 1);
    }

    /**
     * Grows or shrinks the disk; completes inline. Thin either way: growing allocates nothing (the new blocks read
     * as zeros), shrinking frees the chunks past the new end back to the budget and zeros the part of the last chunk
     * past it.
     *
     * <p>Growing first clears {@code [old end, new end)}: a write that passed its range check against the larger
     * geometry of an earlier size, racing with that shrink, may have left data there, and the blocks a grow exposes
     * must read as zeros. The chunk table never shrinks (a stray chunk past the end is freed on the next grow or at
     * close), so no racing access can find its index out of bounds.
     */
    @Override
    public synchronized void resize(long newBlockCount, IoCallback<Void> callback) {
        BlockIoException failure = checkResize(newBlockCount);
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        long oldEnd = geometry().sizeBytes();
        long newEnd = newBlockCount << geometry().logicalBlockShift();
        if (newEnd > oldEnd) {
            if (!deallocateBytes(oldEnd, Math.min(newEnd, chunks.capacity() << chunkShift))) {
                callback.complete(null, new BlockIoException(BlockError.INSUFFICIENT_RESOURCES, name()
                        + ": RAM disk memory budget exhausted zeroing the blocks a grow exposes (" + budget + ")"));
                return;
            }
            if (slabs != null) {
                slabs.grow(regionsFor(chunksFor(newEnd)));   // first: a chunk index is valid once the table grows
            }
            chunks.grow(chunksFor(newEnd));
            publishBlockCount(newBlockCount);
        } else if (newEnd < oldEnd) {
            publishBlockCount(newBlockCount);
            // past the end now: a part left unzeroed (no memory for a copy) is zeroed by the grow that exposes it
            deallocateBytes(newEnd, Math.min(oldEnd, chunks.capacity() << chunkShift));
        }
        callback.complete(null, null);
    }

    @Override
    public void close() {
        if (transitionToClosed()) {
            releaseAll();
        }
    }

    /** Drops every chunk (memory a read still holds lives on) and closes the slabs, unmapped once their chunks go. */
    private void releaseAll() {
        chunks.removeAll(c -> c.memory.release());
        if (slabs != null) {
            slabs.removeAll(Slab::close);
            ExecutorService c;
            synchronized (this) {
                c = collapser;
            }
            if (c != null) {
                c.shutdown();   // a collapse queued still runs, finds its slab closed and leaves it
            }
        }
    }

    /**
     * The thread that collapses full slabs ({@link Slab#collapse}: milliseconds of kernel work each, kept off the event
     * loops): made on the first slab filled, its thread ended after 10 s idle, shut down at close; null once closed.
     * Owned by this device.
     */
    private synchronized ExecutorService collapser() {
        if (collapser == null && state() != State.CLOSED) {
            collapser = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "ram-collapse-" + name());
                thread.setDaemon(true);
                return thread;
            });
        }
        return collapser;
    }

    private void collapseLater(Slab slab) {
        ExecutorService executor = collapser();
        if (executor == null) {
            return;   // closed: nothing to collapse
        }
        try {
            executor.execute(slab::collapse);
        } catch (RejectedExecutionException closedMeanwhile) {
            // the device closed after we looked: its slabs go, uncollapsed
        }
    }

    private int offsetInChunk(long position) {
        return (int) (position & (chunkSize - 1));
    }

    /**
     * The memory of chunk {@code chunkIndex} with one more reference for a reader, or null if never written (or
     * unmapped), taken while no writer changes it in place: the reference first, then the check (see the class
     * comment); a writer that has the chunk is waited for.
     */
    private NativeByteBuf acquireStable(long chunkIndex) {
        for (int attempt = 0; ; attempt++) {
            Chunk chunk = acquireChunk(chunkIndex);
            if (chunk == null) {
                return null;
            }
            if (!chunk.changing()) {
                return chunk.memory;
            }
            chunk.memory.release();
            Chunk.backOff(attempt);
        }
    }

    /**
     * The chunk with one more reference to its memory for the caller, or null if never written (or unmapped). The
     * table's reference may be dropped between our load and our retain; a chunk whose count already reached zero
     * refuses the retain, and by then the slot no longer holds it, so we look again.
     */
    private Chunk acquireChunk(long chunkIndex) {
        for (;;) {
            Chunk chunk = chunks.get(chunkIndex);
            if (chunk == null) {
                return null;
            }
            if (retain(chunk.memory)) {
                return chunk;
            }
            Thread.onSpinWait();
        }
    }

    /** One more reference, unless the count already reached zero (Netty keeps a released buffer released). */
    private static boolean retain(NativeByteBuf memory) {
        try {
            memory.retain();
            return true;
        } catch (IllegalReferenceCountException concurrentlyUnmapped) {
            return false;
        }
    }

    /**
     * A chunk's memory from libc, zeroed when asked. A chunk of a huge page or more (PBS ≥ 2 MiB) is aligned to one and
     * advised to be backed by transparent huge pages: random reads over 4 KiB pages miss the TLB on nearly every read
     * (in a guest, a two-dimensional page walk; docs/performance.md has the A/B). Smaller chunks come here only when
     * their slab slot is taken ({@link #slabChunk}): a huge page under one 64 KiB chunk would cost 2 MiB of memory.
     */
    private MemorySegment chunkMemory(boolean zeroed) {
        if (chunkSize < HUGE_PAGE) {
            return zeroed ? Libc.calloc(chunkSize) : Libc.malloc(chunkSize);
        }
        MemorySegment memory = Libc.alignedAlloc(HUGE_PAGE, chunkSize);
        if (!memory.equals(MemorySegment.NULL)) {
            Libc.madvise(memory, Libc.MADV_HUGEPAGE);   // before the first touch, so that faults in a huge page
            if (zeroed) {
                memory.fill((byte) 0);   // aligned_alloc may reuse freed memory: calloc's zeroing, done here
            }
        }
        return memory;
    }

    /**
     * Memory for chunk {@code chunkIndex}, reserved in the budget: its slot of the region's {@link Slab} when the
     * chunks are smaller than a huge page and the slot is free, else malloc's.
     */
    private Chunk allocate(long chunkIndex, boolean overwrittenWhole) {
        Runnable hook = beforeAllocate;
        if (hook != null) {
            hook.run();
        }
        if (!budget.tryReserve(chunkSize)) {
            return null;
        }
        // A chunk the write covers completely needs no zeroing: the copy is its first content.
        NativeByteBuf chunk = slabs == null ? null : slabChunk(chunkIndex);
        if (chunk == null) {
            chunk = NativeByteBuf.wrap(chunkMemory(!overwrittenWhole), chunkFreed);
        }
        if (chunk == null) {
            budget.release(chunkSize);
            return null;
        }
        allocatedBytes.addAndGet(chunkSize);
        return new Chunk(chunk);
    }

    /**
     * Chunk {@code chunkIndex}'s slot of its region's slab (mapped on the region's first chunk), or null: the slot is
     * still held by an older version of the chunk (a reader's slice after a copy or an unmap), the device closed, or
     * mmap failed.
     */
    private NativeByteBuf slabChunk(long chunkIndex) {
        long region = chunkIndex >>> slotShift;
        Slab slab = slabs.get(region);
        if (slab == null) {
            Slab fresh = Slab.map(chunkSize);
            if (fresh == null) {
                return null;
            }
            if (slabs.putIfAbsent(region, fresh)) {
                if (state() == State.CLOSED) {
                    // close() emptied the slab table before this put, so it would never unmap this slab (an unmap's
                    // copy-on-write that raced close did that: the copy fails to replace the emptied slot, but its
                    // slab stayed mapped for good). close() sets CLOSED before it empties the table: after the put,
                    // either it sees this slab or this sees CLOSED. Whoever removes it closes it.
                    if (slabs.remove(region) == fresh) {
                        fresh.close();
                    }
                    return null;
                }
                slab = fresh;
            } else {
                fresh.close();   // another writer mapped this region's slab first
                slab = slabs.get(region);
                if (slab == null) {
                    return null;   // closed meanwhile
                }
            }
        }
        int slot = (int) (chunkIndex & ((1L << slotShift) - 1));
        Slab owner = slab;
        MemorySegment memory = owner.take(slot, () -> collapseLater(owner));   // zeros: nothing to clear
        if (memory == null) {
            return null;
        }
        return NativeByteBuf.over(memory, () -> {
            owner.give(slot);
            chunkFreed.run();
        });
    }
}
