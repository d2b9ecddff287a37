package io.blocktarget.block.ram;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;
import io.blocktarget.block.TornReads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every plain write of the RAM disk is atomic within a chunk (NVM Command Set §2.1.4.1: a one-block write is atomic
 * with respect to other reads and writes; and within a physical block, which NVMe's NAWUN / NAWUPF claim): a read
 * hands out slices of chunk memory that a transport writes to its socket after the read completed, so a write, unmap
 * or write zeroes must never change memory a read still holds.
 */
class RamSingleBlockAtomicityTest {
    private static final int CHUNK = 64 * 1024;

    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    /** The read completed before the write was issued: it must keep what it read (fails with in-place writes). */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void aCompletedReadKeepsItsDataWhenTheBlockIsRewritten(int lbs) throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(lbs, lbs, 4L * CHUNK / lbs), false,
                budget)) {
            byte[] old = Io.pattern(1, lbs);
            Io.write(device, 1, old);
            ByteBuf held = Io.await(cb -> device.read(1, 1, cb));
            byte[] next = Io.pattern(2, lbs);
            Io.write(device, 1, next);
            assertThat(ByteBufUtil.getBytes(held)).as("the held read").isEqualTo(old);
            assertThat(Io.read(device, 1, 1)).as("a read after the write").isEqualTo(next);
            held.release();
            assertThat(device.allocatedBytes()).as("the old version is freed with its last reader").isEqualTo(CHUNK);
        }
        assertThat(budget.used()).isZero();
    }

    /** Unmap and write zeroes of part of a chunk zero it: also never under a read that holds it. */
    @Test
    void aHeldReadKeepsItsDataAcrossPartialUnmapAndWriteZeroes() throws Exception {
        int lbs = 4096;
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(lbs, lbs, 4L * CHUNK / lbs), false,
                budget)) {
            byte[] old = Io.pattern(3, 4 * lbs);
            Io.write(device, 0, old);
            ByteBuf held = Io.await(cb -> device.read(0, 4, cb));
            Io.unmap(device, 1, 1);
            Io.writeZeroes(device, 3, 1);
            assertThat(ByteBufUtil.getBytes(held)).isEqualTo(old);
            byte[] now = old.clone();
            java.util.Arrays.fill(now, lbs, 2 * lbs, (byte) 0);
            java.util.Arrays.fill(now, 3 * lbs, 4 * lbs, (byte) 0);
            assertThat(Io.read(device, 0, 4)).isEqualTo(now);
            held.release();
        }
        assertThat(budget.used()).isZero();
    }

    /** Without readers a write changes the chunk in place: no copy, no second chunk of memory. */
    @Test
    void withoutReadersWritesChangeTheChunkInPlace() throws Exception {
        MemoryBudget one = new MemoryBudget(CHUNK);
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(4096, 4096, 16), false, one)) {
            for (int i = 0; i < 16; i++) {
                Io.write(device, i, Io.pattern(i, 4096));    // a copy would need a second chunk: over budget
            }
            assertThat(Io.read(device, 15, 1)).isEqualTo(Io.pattern(15, 4096));
            // a held read makes the next write copy, which this budget cannot: the write fails, the data stays
            ByteBuf held = Io.await(cb -> device.read(0, 1, cb));
            ByteBuf data = io.netty.buffer.Unpooled.wrappedBuffer(Io.pattern(99, 4096));
            assertThat(Io.<Void>failureOf(cb -> device.write(0, data, false, cb)))
                    .isEqualTo(io.blocktarget.block.BlockError.INSUFFICIENT_RESOURCES);
            held.release();
            assertThat(Io.read(device, 0, 1)).isEqualTo(Io.pattern(0, 4096));
            Io.write(device, 0, Io.pattern(99, 4096));     // no reader now: in place again
            assertThat(Io.read(device, 0, 1)).isEqualTo(Io.pattern(99, 4096));
        }
    }

    /**
     * Zeroing part of a chunk a read holds needs a copy; without memory for it the unmap / write zeroes fails
     * (INSUFFICIENT_RESOURCES) rather than leave the old data where reads must now see zeros.
     */
    @Test
    void zeroingAHeldChunkWithoutMemoryForTheCopyFails() throws Exception {
        MemoryBudget one = new MemoryBudget(CHUNK);
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(4096, 4096, 16), false, one)) {
            byte[] data = Io.pattern(7, 2 * 4096);
            Io.write(device, 0, data);
            ByteBuf held = Io.await(cb -> device.read(0, 1, cb));
            assertThat(Io.<Void>failureOf(cb -> device.unmap(java.util.List.of(new io.blocktarget.block.BlockRange(1,
                    1)), cb))).isEqualTo(io.blocktarget.block.BlockError.INSUFFICIENT_RESOURCES);
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(1, 1, cb)))
                    .isEqualTo(io.blocktarget.block.BlockError.INSUFFICIENT_RESOURCES);
            assertThat(Io.read(device, 0, 2)).isEqualTo(data);
            held.release();
            Io.unmap(device, 1, 1);                              // nobody holds it now: zeroed in place
            assertThat(Io.read(device, 1, 1)).containsOnly(0);
        }
    }

    /** One 64 KiB block, two writers and two readers on other threads: no read sees parts of two writes. */
    @Test
    void concurrentReadersNeverSeeATornBlock() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(65536, 65536, 8), false, budget)) {
            TornReads.Outcome o = TornReads.run(device, 3, 1, 2, 20_000, 3_000, false);
            System.out.println("torn-read run: " + o);
            assertThat(o.reads()).isPositive();
            assertThat(o.tornBlocks()).as("%s", o).isZero();
        }
        assertThat(budget.used()).isZero();
    }

    /** 4 KiB blocks in one 16 KiB physical block: a physical block is written whole too (NAWUPF = PBS). */
    @Test
    void concurrentReadersNeverSeeATornPhysicalBlock() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(4096, 16384, 64), false, budget)) {
            assertThat(device.atomicUnitBlocks()).isEqualTo(4);
            assertThat(device.powerFailAtomicUnitBlocks()).isEqualTo(4);
            TornReads.Outcome o = TornReads.run(device, 4, 4, 2, 20_000, 3_000, false, true);
            System.out.println("torn-read run: " + o);
            assertThat(o.reads()).isPositive();
            assertThat(o.tornBlocks()).as("%s", o).isZero();
        }
    }
}
