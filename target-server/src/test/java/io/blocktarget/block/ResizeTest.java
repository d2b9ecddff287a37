package io.blocktarget.block;

import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BlockDevice#resize} at every logical block size of the matrix, for RAM and file backends: the geometry
 * follows, the new end is addressable and the old one is not, grown blocks read as zeros (also after a shrink that
 * left data behind), and a RAM shrink returns its chunks to the budget.
 */
class ResizeTest {
    private static final int BLOCKS = 64;

    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        io.shutdownNow();
    }

    private static BlockGeometry geometry(int lbs, long blocks) {
        return new BlockGeometry(lbs, lbs, blocks);
    }

    private static void resize(BlockDevice device, long blocks) throws BlockIoException {
        Io.<Void>await(cb -> device.resize(blocks, cb));
    }

    /** Grow, write at the new end, shrink below it, grow again: the last block reads zeros, the range check moves. */
    private static void growShrinkGrow(BlockDevice device) throws BlockIoException {
        int lbs = device.geometry().logicalBlockSize();
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(BLOCKS, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);

        resize(device, 4 * BLOCKS);
        assertThat(device.geometry()).isEqualTo(geometry(lbs, 4 * BLOCKS));
        assertThat(Io.read(device, 4 * BLOCKS - 1, 1)).isEqualTo(new byte[lbs]);   // grown blocks read zeros
        byte[] last = Io.pattern(7, lbs);
        Io.write(device, 4 * BLOCKS - 1, last);
        byte[] first = Io.pattern(1, lbs);
        Io.write(device, 0, first);
        assertThat(Io.read(device, 4 * BLOCKS - 1, 1)).isEqualTo(last);
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(4 * BLOCKS, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);

        resize(device, BLOCKS / 2);
        assertThat(device.geometry().blockCount()).isEqualTo(BLOCKS / 2);
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(BLOCKS / 2, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.<Void>failureOf(cb -> device.write(BLOCKS / 2, Unpooled.wrappedBuffer(new byte[lbs]),
                false, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(Io.read(device, 0, 1)).isEqualTo(first);   // what lies inside stays

        resize(device, 4 * BLOCKS);
        assertThat(Io.read(device, 4 * BLOCKS - 1, 1)).isEqualTo(new byte[lbs]);   // not the data of before the shrink
        assertThat(Io.read(device, 0, 1)).isEqualTo(first);
    }

    @ParameterizedTest(name = "lbs {0}")
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void ramGrowsAndShrinks(int lbs) throws BlockIoException {
        MemoryBudget budget = new MemoryBudget(64L << 20);
        try (RamBlockDevice device = new RamBlockDevice("r", geometry(lbs, BLOCKS), false, budget)) {
            growShrinkGrow(device);
        }
        assertThat(budget.used()).isZero();
    }

    @ParameterizedTest(name = "lbs {0}")
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void ramShrinkReturnsChunksToTheBudget(int lbs) throws BlockIoException {
        MemoryBudget budget = new MemoryBudget(64L << 20);
        long blocks = (4L << 20) / lbs;   // 4 MiB: 64 chunks of 64 KiB
        try (RamBlockDevice device = new RamBlockDevice("r", geometry(lbs, blocks), false, budget)) {
            for (long lba = 0; lba < blocks; lba += RamBlockDevice.MIN_CHUNK_SIZE / lbs) {
                Io.write(device, lba, Io.pattern(lba, lbs));
            }
            assertThat(budget.used()).isEqualTo(4L << 20);
            resize(device, blocks / 4);
            assertThat(budget.used()).isEqualTo(1L << 20);
            assertThat(device.allocatedBytes()).isEqualTo(1L << 20);
            resize(device, blocks);   // growing allocates nothing
            assertThat(budget.used()).isEqualTo(1L << 20);
        }
        assertThat(budget.used()).isZero();
    }

    @Test
    void ramGrowsPastTheChunkTableReach() throws BlockIoException {
        // 1024 chunks fill the root of the chunk table; growing to 1025+ puts a level above it, data stays.
        MemoryBudget budget = new MemoryBudget(64L << 20);
        int lbs = 65536;
        try (RamBlockDevice device = new RamBlockDevice("r", geometry(lbs, 1024), false, budget)) {
            byte[] data = Io.pattern(3, lbs);
            Io.write(device, 1023, data);
            resize(device, 1L << 22);   // 4M chunks: two levels more
            assertThat(Io.read(device, 1023, 1)).isEqualTo(data);
            Io.write(device, (1L << 22) - 1, data);
            assertThat(Io.read(device, (1L << 22) - 1, 1)).isEqualTo(data);
            assertThat(budget.used()).isEqualTo(2L * lbs);
        }
        assertThat(budget.used()).isZero();
    }

    @ParameterizedTest(name = "lbs {0}")
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void fileGrowsAndShrinks(int lbs) throws Exception {
        Path file = dir.resolve("f" + lbs + ".img");
        try (FileBlockDevice device = FileBlockDevice.open("f", file, geometry(lbs, BLOCKS),
                new FileBlockDevice.Options(true, false, false), io)) {
            growShrinkGrow(device);
            assertThat(Files.size(file)).isEqualTo(4L * BLOCKS * lbs);
        }
    }

    @Test
    void fileFollowsAnExternallyGrownFile() throws Exception {
        Path file = dir.resolve("ext.img");
        try (FileBlockDevice device = FileBlockDevice.open("f", file, geometry(4096, BLOCKS),
                new FileBlockDevice.Options(true, false, false), io)) {
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(2L * BLOCKS * 4096);
            }
            assertThat(Io.<ByteBuf>failureOf(cb -> device.read(BLOCKS, 1, cb))).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            resize(device, 2 * BLOCKS);
            assertThat(Io.read(device, 2 * BLOCKS - 1, 1)).isEqualTo(new byte[4096]);
            assertThat(Files.size(file)).isEqualTo(2L * BLOCKS * 4096);
        }
    }

    @Test
    void readOnlyFileOnlyFollowsItsSize() throws Exception {
        Path file = dir.resolve("ro.img");
        Files.write(file, new byte[BLOCKS * 4096]);
        try (FileBlockDevice device = FileBlockDevice.open("f", file, geometry(4096, BLOCKS),
                new FileBlockDevice.Options(false, false, true), io)) {
            assertThat(Io.<Void>failureOf(cb -> device.resize(2 * BLOCKS, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(device.geometry().blockCount()).isEqualTo(BLOCKS);
            assertThat(Files.size(file)).isEqualTo(BLOCKS * 4096L);
        }
    }

    @Test
    void nullDeviceTakesAnySize() throws BlockIoException {
        try (NullBlockDevice device = new NullBlockDevice("n", geometry(4096, BLOCKS), false)) {
            resize(device, 1L << 40);
            assertThat(device.geometry().blockCount()).isEqualTo(1L << 40);
            assertThat(Io.read(device, (1L << 40) - 1, 1)).isEqualTo(new byte[4096]);
        }
    }

    @Test
    void impossibleCountsAndClosedDevicesAreRefused() {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        RamBlockDevice device = new RamBlockDevice("r", geometry(4096, BLOCKS), false, budget);
        assertThat(Io.<Void>failureOf(cb -> device.resize(0, cb))).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(Io.<Void>failureOf(cb -> device.resize(Long.MAX_VALUE / 4096 + 1, cb))).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(device.geometry().blockCount()).isEqualTo(BLOCKS);
        device.close();
        assertThat(Io.<Void>failureOf(cb -> device.resize(2 * BLOCKS, cb))).isEqualTo(BlockError.CLOSED);
    }
}
