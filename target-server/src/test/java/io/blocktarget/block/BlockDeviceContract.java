package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every backend that stores data must do, run against real devices (DESIGN.md §8 tier 3).
 * Subclasses say how to make a device; devices made through {@link #device} are closed after each test.
 */
public abstract class BlockDeviceContract {
    private final List<BlockDevice> opened = new ArrayList<>();

    /** A fresh, empty device of this geometry. */
    protected abstract BlockDevice create(BlockGeometry geometry, boolean readOnly) throws Exception;

    protected BlockDevice device(BlockGeometry geometry, boolean readOnly) throws Exception {
        BlockDevice device = create(geometry, readOnly);
        opened.add(device);
        return device;
    }

    @AfterEach
    void closeDevices() throws Exception {
        opened.forEach(BlockDevice::close);
        afterClose();
    }

    /** Checks a backend makes once every device of the test is closed (e.g. all memory returned). */
    protected void afterClose() throws Exception {
    }

    /** Every logical block size with PBS = LBS, 8 x LBS and 64 x LBS (capped at 32 MiB). */
    protected static Stream<Arguments> geometries() {
        return IntStream.rangeClosed(9, 16).boxed().flatMap(shift -> Stream.of(1, 8, 64)
                .map(ratio -> Arguments.of(1 << shift, Math.min((1 << shift) * ratio, BlockGeometry.MAX_PHYSICAL_BLOCK_SIZE))));
    }

    /** Four allocation units of the larger of PBS and 64 KiB, plus three blocks. */
    protected static BlockGeometry geometry(int lbs, int pbs) {
        return new BlockGeometry(lbs, pbs, 4L * Math.max(pbs, 65536) / lbs + 3);
    }

    @ParameterizedTest(name = "lbs {0} pbs {1}")
    @MethodSource("geometries")
    void roundTripsFirstLastAndSpanningBlocks(int lbs, int pbs) throws Exception {
        BlockGeometry g = geometry(lbs, pbs);
        BlockDevice device = device(g, false);
        long last = g.blockCount() - 1;
        long unit = Math.max(pbs, 65536) / lbs;          // blocks per allocation unit
        int spanBlocks = (int) Math.max(3, 2 * unit / 3 + 1);
        long spanStart = 3 * unit - spanBlocks / 2;       // straddles the third unit boundary

        Io.write(device, 0, Io.pattern(0, lbs));
        Io.write(device, last, Io.pattern(last, lbs));
        Io.write(device, spanStart, Io.pattern(spanStart, spanBlocks * lbs));

        assertThat(Io.read(device, 0, 1)).isEqualTo(Io.pattern(0, lbs));
        assertThat(Io.read(device, last, 1)).isEqualTo(Io.pattern(last, lbs));
        assertThat(Io.read(device, spanStart, spanBlocks)).isEqualTo(Io.pattern(spanStart, spanBlocks * lbs));
        assertThat(Io.read(device, 1, 1)).isEqualTo(new byte[lbs]);
        assertThat(Io.read(device, last - 1, 1)).isEqualTo(new byte[lbs]);
        // A read across written and never-written blocks: the written ones inside, zeros around.
        byte[] around = Io.read(device, spanStart - 1, spanBlocks + 2);
        byte[] expected = new byte[(spanBlocks + 2) * lbs];
        System.arraycopy(Io.pattern(spanStart, spanBlocks * lbs), 0, expected, lbs, spanBlocks * lbs);
        assertThat(around).isEqualTo(expected);
        Io.flush(device);
    }

    @Test
    void overwriteReplacesOnlyTheWrittenBlocks() throws Exception {
        BlockDevice device = device(geometry(512, 4096), false);
        Io.write(device, 0, Io.pattern(1, 8 * 512));
        Io.write(device, 3, Io.pattern(2, 2 * 512));
        byte[] expected = Io.pattern(1, 8 * 512);
        System.arraycopy(Io.pattern(2, 1024), 0, expected, 3 * 512, 1024);
        assertThat(Io.read(device, 0, 8)).isEqualTo(expected);
    }

    @Test
    void writeDoesNotMoveTheCallersReaderIndexAndHonoursIt() throws Exception {
        BlockDevice device = device(geometry(512, 512), false);
        ByteBuf data = Unpooled.buffer().writeBytes(new byte[7]).writeBytes(Io.pattern(5, 1024));
        try {
            data.readerIndex(7);
            Io.<Void>await(cb -> device.write(4, data, true, cb));
            assertThat(data.readerIndex()).isEqualTo(7);
        } finally {
            data.release();
        }
        assertThat(Io.read(device, 4, 2)).isEqualTo(Io.pattern(5, 1024));
    }

    @Test
    void zeroLengthReadIsAnEmptyBuffer() throws Exception {
        BlockGeometry g = geometry(4096, 4096);
        assertThat(Io.read(device(g, false), g.blockCount(), 0)).isEmpty();
    }

    @Test
    void outOfRangeAndOverflowingRequestsAreRejected() throws Exception {
        BlockGeometry g = geometry(4096, 4096);
        BlockDevice device = device(g, false);
        long n = g.blockCount();
        ByteBuf block = Unpooled.buffer(4096).writeZero(4096);
        ByteBuf odd = Unpooled.buffer(4095).writeZero(4095);
        try {
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(n, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(n - 1, 2, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(Long.MAX_VALUE, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(-1, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 1 << 19, cb))).isEqualTo(BlockError.INVALID_LENGTH);
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, -1, cb))).isEqualTo(BlockError.INVALID_LENGTH);
            assertThat(Io.<Void>failureOf(cb -> device.write(n, block, false, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<Void>failureOf(cb -> device.write(Long.MAX_VALUE, block, false, cb)))
                    .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<Void>failureOf(cb -> device.write(0, odd, false, cb))).isEqualTo(BlockError.INVALID_LENGTH);
            assertThat(Io.<Void>failureOf(cb -> device.write(0, Unpooled.EMPTY_BUFFER, false, cb)))
                    .isEqualTo(BlockError.INVALID_LENGTH);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(1, Long.MAX_VALUE, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(0, -1, cb))).isEqualTo(BlockError.INVALID_LENGTH);
            assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(Long.MAX_VALUE - 1, 2)), cb)))
                    .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        } finally {
            block.release();
            odd.release();
        }
    }

    @Test
    void unmapChecksEveryRangeBeforeApplyingAny() throws Exception {
        BlockGeometry g = geometry(4096, 4096);
        BlockDevice device = device(g, false);
        Io.write(device, 0, Io.pattern(9, 4096));
        assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(0, 1), new BlockRange(g.blockCount(), 1)), cb)))
                .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.read(device, 0, 1)).isEqualTo(Io.pattern(9, 4096));
    }

    @ParameterizedTest(name = "lbs {0} pbs {1}")
    @MethodSource("geometries")
    void unmapAndWriteZeroesReadBackZeros(int lbs, int pbs) throws Exception {
        BlockGeometry g = geometry(lbs, pbs);
        BlockDevice device = device(g, false);
        int blocks = (int) (2 * Math.max(pbs, 65536) / lbs + 2);
        Io.write(device, 0, Io.pattern(3, blocks * lbs));
        Io.unmap(device, 1, blocks - 3);                 // covers whole units and partial ones
        Io.writeZeroes(device, blocks - 1, 1);           // the last written block
        Io.<Void>await(cb -> device.unmap(List.of(), cb));
        Io.unmap(device, 0, 0);                           // zero-length range: a no-op (SBC-4 §5.30)
        byte[] expected = new byte[blocks * lbs];
        System.arraycopy(Io.pattern(3, blocks * lbs), 0, expected, 0, lbs);
        System.arraycopy(Io.pattern(3, blocks * lbs), (blocks - 2) * lbs, expected, (blocks - 2) * lbs, lbs);
        assertThat(Io.read(device, 0, blocks)).isEqualTo(expected);
        Io.write(device, 1, Io.pattern(4, lbs));         // unmapped blocks can be written again
        assertThat(Io.read(device, 1, 1)).isEqualTo(Io.pattern(4, lbs));
    }

    @Test
    void readOnlyDeviceRefusesWritesButReads() throws Exception {
        BlockGeometry g = geometry(512, 4096);
        BlockDevice device = device(g, true);
        assertThat(device.readOnly()).isTrue();
        ByteBuf block = Unpooled.buffer(512).writeZero(512);
        try {
            assertThat(Io.<Void>failureOf(cb -> device.write(0, block, false, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(0, 1)), cb)))
                    .isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(0, 1, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
        } finally {
            block.release();
        }
        assertThat(Io.read(device, 0, 8)).isEqualTo(new byte[4096]);
        Io.flush(device);
    }

    @Test
    void operationsAfterCloseFailClosed() throws Exception {
        BlockDevice device = device(geometry(4096, 4096), false);
        device.close();
        device.close();   // idempotent
        ByteBuf block = Unpooled.buffer(4096).writeZero(4096);
        try {
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 1, cb))).isEqualTo(BlockError.CLOSED);
            assertThat(Io.<Void>failureOf(cb -> device.write(0, block, false, cb))).isEqualTo(BlockError.CLOSED);
            assertThat(Io.<Void>failureOf(device::flush)).isEqualTo(BlockError.CLOSED);
            assertThat(Io.<Void>failureOf(cb -> device.unmap(List.of(new BlockRange(0, 1)), cb))).isEqualTo(BlockError.CLOSED);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(0, 1, cb))).isEqualTo(BlockError.CLOSED);
        } finally {
            block.release();
        }
    }

    @Test
    void concurrentWritersToDistinctRangesAllLand() throws Exception {
        int lbs = 4096;
        BlockGeometry g = new BlockGeometry(lbs, 16384, 2048);   // 8 MiB
        BlockDevice device = device(g, false);
        int threads = 4;
        int writesPerThread = 64;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    // Interleaved 3-block writes: neighbouring writes of different threads share chunks.
                    for (int i = 0; i < writesPerThread; i++) {
                        long lba = (long) (i * threads + thread) * 3;
                        Io.write(device, lba, Io.pattern(lba, 3 * lbs));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        for (long lba = 0; lba < (long) threads * writesPerThread * 3; lba += 3) {
            assertThat(Io.read(device, lba, 3)).as("lba %d", lba).isEqualTo(Io.pattern(lba, 3 * lbs));
        }
    }
}
