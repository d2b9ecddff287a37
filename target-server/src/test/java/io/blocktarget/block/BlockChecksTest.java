package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BlockChecksTest {
    private static final BlockGeometry G = new BlockGeometry(4096, 4096, 1000);

    private static BlockError readError(long lba, int count) {
        BlockIoException e = BlockChecks.checkRead(G, lba, count);
        return e == null ? null : e.error();
    }

    @Test
    void readWithinTheDeviceIsValidUpToTheLastBlock() {
        assertThat(readError(0, 1000)).isNull();
        assertThat(readError(999, 1)).isNull();
        assertThat(readError(1000, 0)).isNull();
    }

    @Test
    void readPastTheEndIsOutOfRange() {
        assertThat(readError(1000, 1)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(readError(999, 2)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(readError(-1, 1)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(readError(Long.MIN_VALUE, 1)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
    }

    @Test
    void lbaPlusCountPast2To63IsOutOfRangeNotWrapped() {
        assertThat(readError(Long.MAX_VALUE, 1)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(readError(Long.MAX_VALUE - 1, 2)).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        BlockGeometry huge = new BlockGeometry(512, 512, Long.MAX_VALUE / 512);
        assertThat(BlockChecks.checkRange(huge, Long.MAX_VALUE / 512 - 1, Long.MAX_VALUE).error())
                .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        assertThat(BlockChecks.checkRange(G, 1, Long.MAX_VALUE).error()).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
    }

    @Test
    void readLongerThanOneBufferIsInvalidLength() {
        BlockGeometry big = new BlockGeometry(65536, 65536, 1L << 30);
        // 32768 blocks of 64 KiB = 2^31 bytes: one more than a ByteBuf holds.
        assertThat(BlockChecks.checkRead(big, 0, 32768).error()).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(BlockChecks.checkRead(big, 0, 32767)).isNull();
        assertThat(BlockChecks.checkRead(big, 0, Integer.MAX_VALUE).error()).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(readError(0, -1)).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(readError(0, Integer.MIN_VALUE)).isEqualTo(BlockError.INVALID_LENGTH);
    }

    @Test
    void writeLengthMustBeAPositiveMultipleOfTheBlockSize() {
        assertWriteError(0, 0, BlockError.INVALID_LENGTH);
        assertWriteError(0, 4095, BlockError.INVALID_LENGTH);
        assertWriteError(0, 4097, BlockError.INVALID_LENGTH);
        assertWriteError(0, 512, BlockError.INVALID_LENGTH);
        assertWriteError(999, 8192, BlockError.LBA_OUT_OF_RANGE);
        assertWriteError(Long.MAX_VALUE, 4096, BlockError.LBA_OUT_OF_RANGE);
        assertWriteError(999, 4096, null);
    }

    private static void assertWriteError(long lba, int length, BlockError expected) {
        ByteBuf data = Unpooled.buffer(length).writeZero(length);
        try {
            BlockIoException e = BlockChecks.checkWrite(G, lba, data);
            assertThat(e == null ? null : e.error()).isEqualTo(expected);
        } finally {
            data.release();
        }
    }

    @Test
    void negativeCountsAreInvalidLength() {
        assertThat(BlockChecks.checkRange(G, 0, -1).error()).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(BlockChecks.checkRange(G, 0, Long.MIN_VALUE).error()).isEqualTo(BlockError.INVALID_LENGTH);
    }

    @Test
    void rangesAreAllCheckedAndTheFirstBadOneReported() {
        assertThat(BlockChecks.checkRanges(G, List.of(new BlockRange(0, 1), new BlockRange(1000, 0)))).isNull();
        assertThat(BlockChecks.checkRanges(G, List.of(new BlockRange(0, 1), new BlockRange(2, -5), new BlockRange(-1, 1)))
                .error()).isEqualTo(BlockError.INVALID_LENGTH);
        assertThat(BlockChecks.checkRanges(G, List.of(new BlockRange(Long.MAX_VALUE, Long.MAX_VALUE))).error())
                .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
    }
}
