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
}
