package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;

/**
 * One process-wide read-only region of zeros that reads of never-written (RAM) or null blocks are
 * sliced from, so such a read allocates slice objects only. The region is aligned to 64 KiB so
 * the file backend can also write it with O_DIRECT when hole punching is not supported.
 */
public final class ZeroBuffers {
    /** Bytes in the shared zero region; longer runs are a composite of several slices. */
    public static final int REGION_SIZE = 1 << 20;
    private static final int ALIGNMENT = 64 * 1024;

    private static final ByteBuf REGION;

    static {
        NativeByteBuf memory = NativeByteBuf.aligned(ALIGNMENT, REGION_SIZE);
        memory.segment().fill((byte) 0);
        // Never released: unreleasable, so receivers can release slices of it like any other buffer.
        REGION = Unpooled.unreleasableBuffer(memory.asReadOnly());
    }

    private ZeroBuffers() {
    }

    /** A read-only slice of zeros, {@code length <= REGION_SIZE}; releasing it is a no-op. */
    public static ByteBuf slice(int length) {
        return REGION.slice(0, length);
    }

    /** A read-only NIO view of zeros, {@code length <= REGION_SIZE}, address aligned to 64 KiB. */
    public static ByteBuffer nioBuffer(int length) {
        return REGION.nioBuffer(0, length);
    }

    /** {@code length} bytes of zeros as one slice or a composite of slices. */
    public static ByteBuf zeros(int length) {
        return length <= REGION_SIZE ? slice(length) : new ReadAssembly(1).addZeros(length).build();
    }
}
