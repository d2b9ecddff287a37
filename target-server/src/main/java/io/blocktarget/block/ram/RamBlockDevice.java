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

import java.util.List;
import java.util.Objects;
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
 * (0.15%). The chunk table is a {@link SparseArray}, tiny until written.
 *
 * <p>Each chunk is a {@link NativeByteBuf} whose last release frees its memory and credits the
 * {@link MemoryBudget}. The table holds one reference; a read hands out slices that each hold
 * another, so an unmap that drops the table's reference cannot free memory a transport is still
 * writing to a socket. Writers hold a reference while copying for the same reason. Several event
 * loops may use one device: chunk allocation races are settled by CAS on the table slot.
 *
 * <p>Atomic writes ({@link #writeAtomic}) copy on write: the chunks they touch are copied, the copies changed and
 * then swapped into the table slot by slot. A read holds slices of the chunks it found, so it keeps seeing the
 * version it started with even while its data is still being written to a socket (which no lock released at
 * command completion could protect: the transport reads the slices later). A read within one chunk therefore sees
 * an atomic write whole or not at all; a read spanning chunks checks {@link #atomicPublishes} (a seqlock: odd while
 * a swap is under way) before and after taking its slices and starts again when it changed — the only cost reads
 * pay, two volatile reads of a counter that changes only when an atomic write runs.
 *
 * <p>All operations complete inline, before the method returns.
 */
public final class RamBlockDevice extends AbstractBlockDevice {
    /** The smallest chunk: the largest logical block size. */
    public static final int MIN_CHUNK_SIZE = BlockGeometry.MAX_LOGICAL_BLOCK_SIZE;

    private final MemoryBudget budget;
    private final int chunkSize;
    private final int chunkShift;
    private final SparseArray<NativeByteBuf> chunks;
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
            NativeByteBuf chunk = acquire(position >>> chunkShift);
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
        NativeByteBuf chunk = acquire(chunkIndex);
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

    /**
     * Copies into an existing chunk, or fills a new one before publishing it by CAS, so no reader
     * ever sees a chunk's uninitialised memory (malloc may hand back another LUN's freed data).
     * False when the budget or malloc says no.
     */
    private boolean copyIntoChunk(long chunkIndex, int offset, ByteBuf data, int sourceIndex, int length) {
        for (;;) {
            NativeByteBuf chunk = acquire(chunkIndex);
            if (chunk != null) {
                try {
                    chunk.copyFrom(offset, data, sourceIndex, length);
                } finally {
                    chunk.release();
                }
                return true;
            }
            NativeByteBuf fresh = allocate(length == chunkSize);
            if (fresh == null) {
                return false;
            }
            fresh.copyFrom(offset, data, sourceIndex, length);
            if (chunks.putIfAbsent(chunkIndex, fresh)) {
                return true;   // the table now owns the one reference
            }
            fresh.release();   // another writer won the slot: free ours, write into theirs
        }
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
        NativeByteBuf[] old = new NativeByteBuf[count];
        NativeByteBuf[] fresh = new NativeByteBuf[count];
        int sourceIndex = data.readerIndex();
        long at = position;
        for (int i = 0; i < count; i++) {
            int offset = offsetInChunk(at);
            int n = (int) Math.min(chunkSize - offset, end - at);
            old[i] = acquire(first + i);
            fresh[i] = allocate(old[i] != null || n == chunkSize);
            if (fresh[i] == null) {
                for (int j = 0; j <= i; j++) {
                    if (old[j] != null) {
                        old[j].release();
                    }
                    if (fresh[j] != null) {
                        fresh[j].release();
                    }
                }
                return new BlockIoException(BlockError.INSUFFICIENT_RESOURCES, name()
                        + ": RAM disk memory budget exhausted or malloc failed (" + budget + ")");
            }
            if (old[i] != null) {
                fresh[i].copyFrom(0, old[i], 0, chunkSize);
            }
            fresh[i].copyFrom(offset, data, sourceIndex, n);
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
                    fresh[i].release(); // only close() empties slots under the range lock: the data is gone anyway
                } else if (old[i] != null) {
                    old[i].release();   // the table's reference: readers' slices keep the old version alive
                }
            }
        } finally {
            atomicPublishes.incrementAndGet();
        }
        for (NativeByteBuf o : old) {
            if (o != null) {
                o.release();            // ours, from acquire
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
        if (failure == null) {
            for (BlockRange range : ranges) {
                deallocate(range.lba(), range.count());
            }
        }
        callback.complete(null, failure);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        BlockIoException failure = checkWriteZeroesRequest(lba, blockCount);
        if (failure == null) {
            deallocate(lba, blockCount);
        }
        callback.complete(null, failure);
    }

    /**
     * Zeros the covered part of the chunks at the range's ends and frees the chunks it covers whole;
     * the table skips subtrees that were never written, so unmapping all of a huge, mostly empty
     * disk costs little.
     */
    private void deallocate(long lba, long blockCount) {
        long start = lba << geometry().logicalBlockShift();
        deallocateBytes(start, start + (blockCount << geometry().logicalBlockShift()));
    }

    /** {@link #deallocate} in bytes: {@code [start, end)} within the chunk table. */
    private void deallocateBytes(long start, long end) {
        if (start >= end) {
            return;
        }
        long firstWhole = (start + chunkSize - 1) >>> chunkShift;
        long endWhole = end >>> chunkShift;
        if (firstWhole >= endWhole) {            // inside one chunk, or across one boundary
            zeroPart(start, Math.min(end, firstWhole << chunkShift));
            zeroPart(Math.max(start, endWhole << chunkShift), end);
            return;
        }
        zeroPart(start, firstWhole << chunkShift);
        chunks.removeRange(firstWhole, endWhole, NativeByteBuf::release);
        zeroPart(endWhole << chunkShift, end);
    }

    /** Zeros {@code [from, to)}, which lies within one chunk (empty when from >= to). */
    private void zeroPart(long from, long to) {
        if (from >= to) {
            return;
        }
        NativeByteBuf chunk = acquire(from >>> chunkShift);
        if (chunk != null) {
            try {
                chunk.zero(offsetInChunk(from), (int) (to - from));
            } finally {
                chunk.release();
            }
        }
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
            deallocateBytes(oldEnd, Math.min(newEnd, chunks.capacity() << chunkShift));
            chunks.grow(chunksFor(newEnd));
            publishBlockCount(newBlockCount);
        } else if (newEnd < oldEnd) {
            publishBlockCount(newBlockCount);
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

    private void releaseAll() {
        chunks.removeAll(NativeByteBuf::release);
    }

    private int offsetInChunk(long position) {
        return (int) (position & (chunkSize - 1));
    }

    /**
     * The chunk with one more reference for the caller, or null if never written (or unmapped).
     * The table's reference may be dropped between our load and our retain; a chunk whose count
     * already reached zero refuses the retain (Netty keeps it released), and by then the slot no
     * longer holds it, so we look again.
     */
    private NativeByteBuf acquire(long chunkIndex) {
        for (;;) {
            NativeByteBuf chunk = chunks.get(chunkIndex);
            if (chunk == null) {
                return null;
            }
            try {
                chunk.retain();
                return chunk;
            } catch (IllegalReferenceCountException concurrentlyUnmapped) {
                Thread.onSpinWait();
            }
        }
    }

    private NativeByteBuf allocate(boolean overwrittenWhole) {
        if (!budget.tryReserve(chunkSize)) {
            return null;
        }
        // A chunk the write covers completely needs no zeroing: the copy is its first content.
        NativeByteBuf chunk = NativeByteBuf.wrap(overwrittenWhole ? Libc.malloc(chunkSize) : Libc.calloc(chunkSize),
                chunkFreed);
        if (chunk == null) {
            budget.release(chunkSize);
            return null;
        }
        allocatedBytes.addAndGet(chunkSize);
        return chunk;
    }
}
