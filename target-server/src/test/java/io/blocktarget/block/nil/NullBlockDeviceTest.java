package io.blocktarget.block.nil;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.Io;
import io.blocktarget.block.ZeroBuffers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NullBlockDeviceTest {
    private static final BlockGeometry G = new BlockGeometry(65536, 65536, 1L << 24);   // 1 TiB

    @Test
    void readsZerosSlicedFromTheSharedRegion() throws Exception {
        NullBlockDevice device = new NullBlockDevice("null", G, false);
        ByteBuf small = Io.await(cb -> device.read(G.blockCount() - 1, 1, cb));
        try {
            assertThat(small.readableBytes()).isEqualTo(65536);
            assertThat(small.isReadOnly()).isTrue();
            assertThat(small.release()).as("an unreleasable slice: nothing to free").isFalse();
            assertThat(small.getByte(65535)).isZero();
        } finally {
            small.release();
        }
        // 4 MiB: longer than the zero region, a composite of its slices.
        ByteBuf big = Io.await(cb -> device.read(0, 64, cb));
        try {
            assertThat(big).isInstanceOf(CompositeByteBuf.class);
            assertThat(((CompositeByteBuf) big).numComponents()).isEqualTo((64 * 65536) / ZeroBuffers.REGION_SIZE);
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(big)).isEqualTo(new byte[64 * 65536]);
        } finally {
            big.release();
        }
    }

    @Test
    void writesAreDiscardedButChecked() throws Exception {
        NullBlockDevice device = new NullBlockDevice("null", G, false);
        Io.write(device, 5, Io.pattern(5, 65536));
        assertThat(Io.read(device, 5, 1)).isEqualTo(new byte[65536]);
        ByteBuf odd = Unpooled.buffer(512).writeZero(512);
        try {
            assertThat(Io.<Void>failureOf(cb -> device.write(0, odd, false, cb))).isEqualTo(BlockError.INVALID_LENGTH);
        } finally {
            odd.release();
        }
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(G.blockCount(), 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(Long.MAX_VALUE, 2, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 32768, cb))).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(1, Long.MAX_VALUE)), cb)))
                .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(-1, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        Io.unmap(device, 0, G.blockCount());
        Io.writeZeroes(device, 0, G.blockCount());
        Io.flush(device);
    }

    @Test
    void readOnlyAndClosedAreEnforced() throws Exception {
        NullBlockDevice device = new NullBlockDevice("null", G, true);
        assertThat(device.readOnly()).isTrue();
        assertThat(device.name()).isEqualTo("null");
        assertThat(device.geometry()).isEqualTo(G);
        ByteBuf block = Unpooled.buffer(65536).writeZero(65536);
        try {
            assertThat(Io.<Void>failureOf(cb -> device.write(0, block, false, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(0, 1)), cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(0, 1, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(Io.read(device, 0, 1)).isEqualTo(new byte[65536]);
            device.close();
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 1, cb))).isEqualTo(BlockError.CLOSED);
            assertThat(Io.<Void>failureOf(device::flush)).isEqualTo(BlockError.CLOSED);
        } finally {
            block.release();
        }
    }
}
