package io.blocktarget.block;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The uncorrectable-block set (a sorted range set) and the device decorator that applies it. */
class UncorrectableBlocksTest {

    @Test
    void marksMergeAndClearsSplit() {
        UncorrectableBlocks b = new UncorrectableBlocks();
        assertThat(b.isEmpty()).isTrue();
        b.mark(10, 5);             // [10, 15)
        b.mark(20, 5);             // [20, 25)
        b.mark(15, 0);             // nothing
        assertThat(b.ranges()).containsExactly(new BlockRange(10, 5), new BlockRange(20, 5));
        b.mark(15, 5);             // touches both: one range [10, 25)
        assertThat(b.ranges()).containsExactly(new BlockRange(10, 15));
        b.mark(5, 30);             // swallows it
        assertThat(b.ranges()).containsExactly(new BlockRange(5, 30));
        b.clear(10, 2);            // a hole: [5, 10) [12, 35)
        assertThat(b.ranges()).containsExactly(new BlockRange(5, 5), new BlockRange(12, 23));
        b.clear(0, 6);             // the head of the first
        b.clear(30, 100);          // the tail of the second
        assertThat(b.ranges()).containsExactly(new BlockRange(6, 4), new BlockRange(12, 18));
        b.clear(6, 24);            // both, exactly
        assertThat(b.ranges()).isEmpty();
        assertThat(b.isEmpty()).isTrue();
    }

    @Test
    void firstInFindsTheFirstMarkedBlockOfARange() {
        UncorrectableBlocks b = new UncorrectableBlocks();
        assertThat(b.firstIn(0, Long.MAX_VALUE)).isEqualTo(-1);
        b.mark(100, 1);
        b.mark(200, 10);
        assertThat(b.firstIn(0, 100)).isEqualTo(-1);     // [0, 100) ends just before
        assertThat(b.firstIn(0, 101)).isEqualTo(100);
        assertThat(b.firstIn(100, 1)).isEqualTo(100);
        assertThat(b.firstIn(101, 99)).isEqualTo(-1);
        assertThat(b.firstIn(101, 100)).isEqualTo(200);
        assertThat(b.firstIn(205, 1)).isEqualTo(205);    // inside a range
        assertThat(b.firstIn(210, 5)).isEqualTo(-1);
        assertThat(b.firstIn(100, 0)).isEqualTo(-1);
    }

    private static BlockDevice device() {
        return UncorrectableBlockDevice.wrap(new RamBlockDevice("u", new BlockGeometry(512, 4096, 64), false,
                new MemoryBudget(1 << 20)));
    }

    private static BlockIoException read(BlockDevice d, long lba, int blocks) {
        AtomicReference<BlockIoException> failure = new AtomicReference<>();
        d.read(lba, blocks, (data, f) -> {
            if (data != null) {
                data.release();
            }
            failure.set(f);
        });
        return failure.get();
    }

    private static void ok(BlockIoException failure) {
        assertThat(failure).isNull();
    }

    @Test
    void markedBlocksFailToReadUntilRewritten() {
        BlockDevice d = device();
        UncorrectableBlocks b = d.uncorrectableBlocks().orElseThrow();
        assertThat(UncorrectableBlockDevice.wrap(d)).as("wrapped once").isSameAs(d);
        b.mark(8, 4);
        assertThat(read(d, 8, 1).error()).isEqualTo(BlockError.READ_ERROR);
        assertThat(read(d, 0, 9).error()).isEqualTo(BlockError.READ_ERROR);
        assertThat(read(d, 0, 9).getMessage()).contains("LBA 8");
        ok(read(d, 0, 8));
        ok(read(d, 12, 4));
        // out of range keeps the backend's answer
        assertThat(read(d, 60, 10).error()).isEqualTo(BlockError.LBA_OUT_OF_RANGE);

        // a write of LBA 8 clears only LBA 8
        ByteBuf one = Unpooled.wrappedBuffer(new byte[512]);
        AtomicReference<BlockIoException> w = new AtomicReference<>();
        d.write(8, one, false, (r, f) -> w.set(f));
        one.release();
        ok(w.get());
        ok(read(d, 8, 1));
        assertThat(read(d, 9, 1).error()).isEqualTo(BlockError.READ_ERROR);
        // write zeroes clears LBA 9, deallocate LBAs 10..11
        d.writeZeroes(9, 1, (r, f) -> w.set(f));
        ok(w.get());
        ok(read(d, 9, 1));
        d.unmap(List.of(new BlockRange(10, 2)), (r, f) -> w.set(f));
        ok(w.get());
        ok(read(d, 8, 4));
        assertThat(b.isEmpty()).isTrue();
    }

    @Test
    void aFailedWriteClearsNothing() {
        BlockDevice d = device();
        UncorrectableBlocks b = d.uncorrectableBlocks().orElseThrow();
        b.mark(62, 2);
        ByteBuf four = Unpooled.wrappedBuffer(new byte[4 * 512]);
        AtomicReference<BlockIoException> w = new AtomicReference<>();
        d.write(62, four, false, (r, f) -> w.set(f));   // past the end: LBA_OUT_OF_RANGE
        four.release();
        assertThat(w.get().error()).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(b.ranges()).containsExactly(new BlockRange(62, 2));
    }
}
