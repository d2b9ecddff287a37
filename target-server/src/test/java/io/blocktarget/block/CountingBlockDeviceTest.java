package io.blocktarget.block;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** CountingBlockDevice: every operation counted once, bytes only on success, errors by kind, stats life cycle. */
class CountingBlockDeviceTest {
    private static RamBlockDevice ram(String name, boolean readOnly) {
        return new RamBlockDevice(name, new BlockGeometry(4096, 4096, 16), readOnly, new MemoryBudget(1 << 20));
    }

    @Test
    void countsOpsBytesAndLatency() throws Exception {
        try (CountingBlockDevice device = CountingBlockDevice.wrap(ram("count-a", false))) {
            LunStats stats = device.stats();
            ByteBuf data = Unpooled.buffer(8192).writeZero(8192);
            try {
                Io.<Void>await(cb -> device.write(2, data, false, cb));
            } finally {
                data.release();
            }
            Io.read(device, 0, 3);
            Io.<Void>await(cb -> device.flush(cb));
            Io.<Void>await(cb -> device.unmap(List.of(new BlockRange(0, 1)), cb));
            Io.<Void>await(cb -> device.writeZeroes(4, 2, cb));
            assertThat(stats.ops(LunStats.Op.WRITE)).isEqualTo(1);
            assertThat(stats.ops(LunStats.Op.READ)).isEqualTo(1);
            assertThat(stats.ops(LunStats.Op.FLUSH)).isEqualTo(1);
            assertThat(stats.ops(LunStats.Op.UNMAP)).isEqualTo(1);
            assertThat(stats.ops(LunStats.Op.WRITE_ZEROES)).isEqualTo(1);
            assertThat(stats.bytesWritten()).isEqualTo(8192);
            assertThat(stats.bytesRead()).isEqualTo(3 * 4096);
            for (LunStats.Op op : LunStats.Op.values()) {
                assertThat(java.util.Arrays.stream(stats.latencyBuckets(op)).sum()).as(op.label()).isEqualTo(1);
                assertThat(stats.latencyNanos(op)).as(op.label()).isPositive();
            }
            assertThat(device.geometry()).isEqualTo(device.delegate().geometry());
            assertThat(device.name()).isEqualTo("count-a");
        }
    }

    @Test
    void failuresAreCountedByKindAndMoveNoBytes() {
        try (CountingBlockDevice device = CountingBlockDevice.wrap(ram("count-b", true))) {
            ByteBuf data = Unpooled.buffer(4096).writeZero(4096);
            try {
                assertThat(Io.<Void>failureOf(cb -> device.write(0, data, false, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            } finally {
                data.release();
            }
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(16, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            LunStats stats = device.stats();
            assertThat(stats.errors(BlockError.WRITE_PROTECTED)).isEqualTo(1);
            assertThat(stats.errors(BlockError.LBA_OUT_OF_RANGE)).isEqualTo(1);
            assertThat(stats.errors(BlockError.READ_ERROR)).isZero();
            assertThat(stats.ops(LunStats.Op.WRITE)).isEqualTo(1);
            assertThat(stats.bytesWritten()).isZero();
            assertThat(stats.bytesRead()).isZero();
        }
    }

    @Test
    void statsOutliveAReplacedDeviceAndGoWithTheLast() {
        CountingBlockDevice first = CountingBlockDevice.wrap(ram("count-c", false));
        Io.<ByteBuf>failureOf(cb -> first.read(99, 1, cb));
        CountingBlockDevice second = CountingBlockDevice.wrap(ram("count-c", false)); // replace: new opens first
        first.close();
        first.close(); // a second close must not drop the replacement's hold
        assertThat(LunStats.find("count-c")).containsSame(second.stats());
        assertThat(second.stats().errors(BlockError.LBA_OUT_OF_RANGE)).isEqualTo(1);
        second.close();
        assertThat(LunStats.find("count-c")).isEmpty();
        try (CountingBlockDevice again = CountingBlockDevice.wrap(ram("count-c", false))) {
            assertThat(again.stats().errors(BlockError.LBA_OUT_OF_RANGE)).isZero();
        }
    }

    @Test
    void bucketsAreLog2MicrosecondsWithInclusiveBounds() {
        assertThat(LunStats.bucket(0)).isZero();
        assertThat(LunStats.bucket(1000)).isZero();       // 1 µs <= 1 µs
        assertThat(LunStats.bucket(1001)).isEqualTo(1);   // > 1 µs, <= 2 µs
        assertThat(LunStats.bucket(2000)).isEqualTo(1);
        assertThat(LunStats.bucket(2001)).isEqualTo(2);
        assertThat(LunStats.bucket(64_000)).isEqualTo(6);
        assertThat(LunStats.bucket((1L << 23) * 1000)).isEqualTo(23); // the last bound, ~8.4 s
        assertThat(LunStats.bucket((1L << 23) * 1000 + 1)).isEqualTo(LunStats.BUCKETS); // overflow
        assertThat(LunStats.bucket(Long.MAX_VALUE / 2)).isEqualTo(LunStats.BUCKETS);
        assertThat(LunStats.bucketBoundSeconds(0)).isEqualTo(1e-6);
        assertThat(LunStats.bucketBoundSeconds(10)).isEqualTo(1.024e-3);
    }
}
