package io.blocktarget.block;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

import java.lang.foreign.MemorySegment;

/**
 * A reference-counted {@link io.netty.buffer.ByteBuf} over native memory from {@link Libc}: when the
 * last reference (the owner's or any retained slice's) is released, the memory is freed and
 * {@code onFree} runs (the RAM disk gives the bytes back to its budget there). This is what lets a
 * read hand out slices of RAM disk memory while an UNMAP drops the chunk from the table: the memory
 * lives until the transport has written the slice and released it.
 *
 * <p>The buffer starts full (writerIndex = capacity) and is never resized.
 */
public final class NativeByteBuf extends UnpooledDirectByteBuf {
    private static final Runnable NOTHING = () -> { };

    private final MemorySegment memory;
    /** {@code memory.address()}: each slice written to a socket asks for it; the segment is one more object to miss. */
    private final long address;
    private final Runnable onFree;
    /** Whether the memory came from malloc (freed on the last release) or belongs to someone else ({@link #over}). */
    private final boolean mallocked;

    private NativeByteBuf(MemorySegment memory, Runnable onFree) {
        this(memory, onFree, true);
    }

    private NativeByteBuf(MemorySegment memory, Runnable onFree, boolean mallocked) {
        super(UnpooledByteBufAllocator.DEFAULT, memory.asByteBuffer(), Math.toIntExact(memory.byteSize()));
        this.memory = memory;
        this.address = memory.address();
        this.onFree = onFree;
        this.mallocked = mallocked;
    }

    /**
     * Takes ownership of {@code memory} (from {@link Libc}); returns {@code null} for
     * {@link MemorySegment#NULL} so an allocation failure stays a value, not an exception.
     */
    public static NativeByteBuf wrap(MemorySegment memory, Runnable onFree) {
        return memory.equals(MemorySegment.NULL) ? null : new NativeByteBuf(memory, onFree);
    }

    /**
     * A buffer over memory its owner manages (a slot of the RAM disk's huge-page slab): the last release runs only
     * {@code onFree}, which hands the memory back; nothing is freed here.
     */
    public static NativeByteBuf over(MemorySegment memory, Runnable onFree) {
        return new NativeByteBuf(memory, onFree, false);
    }

    /** An aligned buffer for O_DIRECT, freed on release; throws OutOfMemoryError when malloc fails. */
    public static NativeByteBuf aligned(int alignment, int size) {
        NativeByteBuf buf = wrap(Libc.alignedAlloc(alignment, size), NOTHING);
        if (buf == null) {
            throw new OutOfMemoryError("aligned_alloc(" + alignment + ", " + size + ") failed");
        }
        return buf;
    }

    /**
     * The native address: with it the epoll / io_uring transports put this buffer and its slices into writev's
     * iovecs directly; without it they ask for an NIO view, one allocation per written slice (bench/profile).
     */
    @Override
    public boolean hasMemoryAddress() {
        return true;
    }

    @Override
    public long memoryAddress() {
        ensureAccessible();
        return address;
    }

    /** The native memory, for bulk operations that want a {@link MemorySegment}. */
    public MemorySegment segment() {
        return memory;
    }

    /**
     * Copies {@code length} bytes of {@code source} into this buffer at {@code index}. Unlike
     * {@code setBytes}, which goes through the buffer's one cached NIO view, this is safe while other
     * threads read or write other parts of the buffer (several event loops write one RAM chunk): the source writes
     * here by {@link #memoryAddress} (each component of a composite in turn), or without Unsafe through a fresh NIO
     * duplicate ({@code nioBuffers}). It was {@code source.getBytes(sourceIndex, nioBuffer(index, length))}: a
     * DirectByteBuffer made per write, 9 % of an iSCSI event loop's samples at 4 KiB QD32 (bench/profile).
     */
    public void copyFrom(int index, io.netty.buffer.ByteBuf source, int sourceIndex, int length) {
        checkIndex(index, length);
        source.getBytes(sourceIndex, this, index, length);
    }

    /** Zeros {@code [index, index + length)}; as thread-safe as {@link #copyFrom}. */
    public void zero(int index, int length) {
        checkIndex(index, length);
        memory.asSlice(index, length).fill((byte) 0);
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        if (mallocked) {
            Libc.free(memory);
        }
        onFree.run();
    }
}
