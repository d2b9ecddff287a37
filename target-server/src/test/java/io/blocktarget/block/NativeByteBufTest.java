package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RAM disk memory as a ByteBuf: its native address is exposed (so the socket transports write it and its slices
 * without NIO views) and is the memory the buffer reads and writes; freed with the last reference.
 */
class NativeByteBufTest {
    @Test
    void exposesTheAddressOfItsMemoryAndItsSlicesOffsetIntoIt() {
        AtomicInteger freed = new AtomicInteger();
        NativeByteBuf buf = NativeByteBuf.wrap(Libc.alignedAlloc(4096, 8192), freed::incrementAndGet);
        buf.setLong(100, 0x1122334455667788L);
        assertThat(buf.hasMemoryAddress()).isTrue();
        assertThat(buf.memoryAddress()).isEqualTo(buf.segment().address());
        // setLong is big endian: the first byte at the address + 100 is 11h, the last 88h
        assertThat(PlatformDependent.getByte(buf.memoryAddress() + 100)).isEqualTo((byte) 0x11);
        assertThat(PlatformDependent.getByte(buf.memoryAddress() + 107)).isEqualTo((byte) 0x88);
        ByteBuf slice = buf.retainedSlice(96, 64);
        assertThat(slice.hasMemoryAddress()).isTrue();
        assertThat(slice.memoryAddress()).isEqualTo(buf.memoryAddress() + 96);
        ByteBuf zeros = Unpooled.unreleasableBuffer(buf.asReadOnly()).slice(0, 16);
        assertThat(zeros.hasMemoryAddress()).as("the shared zero region's read-only slices too").isTrue();
        buf.release();
        assertThat(freed).hasValue(0);
        assertThat(slice.getLong(4)).isEqualTo(0x1122334455667788L);
        slice.release();
        assertThat(freed).hasValue(1);
        assertThatThrownBy(buf::memoryAddress).isInstanceOf(IllegalReferenceCountException.class);
    }

    /** copyFrom takes every kind of source a write brings: heap, pooled direct, a composite of both, at offsets. */
    @Test
    void copyFromCopiesHeapDirectAndCompositeSourcesAtOffsetsAndChecksItsRange() {
        NativeByteBuf buf = NativeByteBuf.wrap(Libc.calloc(4096), () -> { });
        ByteBuf heap = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        ByteBuf direct = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(8).writeLong(0x1112131415161718L);
        io.netty.buffer.CompositeByteBuf composite = Unpooled.compositeBuffer()
                .addComponent(true, heap.retainedSlice(0, 4)).addComponent(true, direct.retainedSlice(4, 4));
        try {
            buf.copyFrom(10, heap, 2, 5);
            buf.copyFrom(100, direct, 1, 6);
            buf.copyFrom(4090, composite, 1, 6);   // across the components, up to the end
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(buf, 9, 7)).containsExactly(0, 3, 4, 5, 6, 7, 0);
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(buf, 100, 6)).containsExactly(0x12, 0x13, 0x14, 0x15,
                    0x16, 0x17);
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(buf, 4090, 6)).containsExactly(2, 3, 4, 0x15, 0x16, 0x17);
            assertThatThrownBy(() -> buf.copyFrom(4091, heap, 0, 6)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> buf.copyFrom(-1, heap, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            composite.release();
            heap.release();
            direct.release();
            buf.release();
        }
    }

    /** A buffer over memory someone else frees: its last release runs onFree only (a free() here would crash). */
    @Test
    void overMemoryItDoesNotOwnRunsOnlyOnFree() {
        AtomicInteger freed = new AtomicInteger();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            NativeByteBuf buf = NativeByteBuf.over(arena.allocate(8192, 4096).asSlice(4096, 4096),
                    freed::incrementAndGet);
            buf.setInt(0, 42);
            assertThat(buf.getInt(0)).isEqualTo(42);
            buf.release();
            assertThat(freed).hasValue(1);
        }
    }
}
