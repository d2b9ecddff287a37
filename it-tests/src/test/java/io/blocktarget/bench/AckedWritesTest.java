package io.blocktarget.bench;

import io.blocktarget.bench.AckedWrites.Verdict;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AckedWritesTest {
    private static final int LBS = 512;

    @Test
    void recordsAcknowledgedUnitsOnly() {
        AckedWrites acked = new AckedWrites(130);
        for (long u = 0; u < 130; u++) {
            assertThat(acked.isAcknowledged(u)).as("unit %d of a fresh run", u).isFalse();
        }
        acked.acknowledged(63);
        acked.acknowledged(64);
        acked.acknowledged(129);
        acked.acknowledged(64);   // again: still set, nothing else
        for (long u = 0; u < 130; u++) {
            assertThat(acked.isAcknowledged(u)).as("unit %d", u).isEqualTo(u == 63 || u == 64 || u == 129);
        }
    }

    @Test
    void aSnapshotTakenBeforeTheAcknowledgementStaysUnacknowledged() {
        AckedWrites acked = new AckedWrites(1);
        boolean atSubmission = acked.isAcknowledged(0);
        acked.acknowledged(0);
        assertThat(atSubmission).isFalse();
        assertThat(acked.isAcknowledged(0)).isTrue();
    }

    @Test
    void refusesMoreUnitsThanItMayHold() {
        assertThatThrownBy(() -> new AckedWrites(AckedWrites.MAX_UNITS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void matchingDataIsFineEitherWay() {
        ByteBuf data = pattern(5 * 4096L, 4096);
        try {
            assertThat(judge(data, 5 * 4096L, false)).isEqualTo(Verdict.MATCH);
            assertThat(judge(data, 5 * 4096L, true)).isEqualTo(Verdict.MATCH);
        } finally {
            data.release();
        }
    }

    @Test
    void zerosAreUnwrittenOnlyWithoutAnAcknowledgedWriteBeforeTheRead() {
        ByteBuf zeros = Unpooled.buffer(4096).writeZero(4096);
        try {
            assertThat(judge(zeros, 5 * 4096L, false)).as("no write acknowledged before the read").isEqualTo(
                    Verdict.UNWRITTEN);
            assertThat(judge(zeros, 5 * 4096L, true)).as("a write acknowledged before the read").isEqualTo(
                    Verdict.MISMATCH);
        } finally {
            zeros.release();
        }
    }

    @Test
    void wrongDataIsAnErrorEitherWay() {
        ByteBuf elsewhere = pattern(6 * 4096L, 4096);     // another block's data
        ByteBuf flipped = pattern(5 * 4096L, 4096);
        flipped.setByte(100, flipped.getByte(100) ^ 1);
        ByteBuf ones = Unpooled.buffer(4096).writeZero(4096).setByte(4095, 1);
        try {
            for (boolean ackedBefore : new boolean[] {false, true}) {
                assertThat(judge(elsewhere, 5 * 4096L, ackedBefore)).isEqualTo(Verdict.MISMATCH);
                assertThat(judge(flipped, 5 * 4096L, ackedBefore)).isEqualTo(Verdict.MISMATCH);
                assertThat(judge(ones, 5 * 4096L, ackedBefore)).isEqualTo(Verdict.MISMATCH);
            }
        } finally {
            elsewhere.release();
            flipped.release();
            ones.release();
        }
    }

    /**
     * A read racing the first write of its unit may see some logical blocks written and others still zero, never a
     * block that is partly zero: each block is judged on its own — also in a PDU that starts and ends mid-block.
     */
    @Test
    void withoutAnAcknowledgedWriteEachBlockMayBeOldOrNew() {
        long at = 7 * 4096L;
        ByteBuf mixed = pattern(at, 4096);
        mixed.setZero(LBS, 2 * LBS);                       // blocks 1 and 2 of 8 still zero
        ByteBuf torn = pattern(at, 4096);
        torn.setZero(LBS + 8, LBS - 8);                    // block 1 zero except its first word
        try {
            assertThat(judge(mixed, at, false)).isEqualTo(Verdict.UNWRITTEN);
            assertThat(judge(mixed, at, true)).isEqualTo(Verdict.MISMATCH);
            assertThat(AckedWrites.judge(mixed.slice(300, 1000), at + 300, 1000, LBS, false))
                    .isEqualTo(Verdict.UNWRITTEN);
            assertThat(judge(torn, at, false)).isEqualTo(Verdict.MISMATCH);
        } finally {
            mixed.release();
            torn.release();
        }
    }

    private static Verdict judge(ByteBuf data, long byteOffset, boolean ackedBefore) {
        return AckedWrites.judge(data, byteOffset, data.readableBytes(), LBS, ackedBefore);
    }

    private static ByteBuf pattern(long byteOffset, int length) {
        ByteBuf buf = Unpooled.buffer(length).writerIndex(length);
        IoPattern.fill(buf, byteOffset, length);
        return buf;
    }
}
