package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class IoPatternTest {
    @Test
    void randomOffsetsStayAlignedInsideTheRange() {
        IoPattern p = new IoPattern(Workload.RANDREAD, 70, 100, 8, 0, 1);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertThat(p.nextIsWrite()).isFalse();
            long lba = p.nextLba();
            assertThat(lba % 8).isZero();
            assertThat(lba).isBetween(0L, 99L * 8);
            seen.add(lba);
        }
        assertThat(seen).hasSize(100);   // uniform over 100 positions: 10 000 draws hit every one
    }

    @Test
    void jobsHaveTheirOwnSequence() {
        IoPattern a = new IoPattern(Workload.RANDREAD, 70, 1 << 20, 1, 0, 2);
        IoPattern b = new IoPattern(Workload.RANDREAD, 70, 1 << 20, 1, 1, 2);
        IoPattern a2 = new IoPattern(Workload.RANDREAD, 70, 1 << 20, 1, 0, 2);
        long[] x = {a.nextLba(), a.nextLba(), a.nextLba()};
        assertThat(new long[] {a2.nextLba(), a2.nextLba(), a2.nextLba()}).isEqualTo(x);
        assertThat(new long[] {b.nextLba(), b.nextLba(), b.nextLba()}).isNotEqualTo(x);
    }

    @Test
    void sequentialStartsPerJobAndWraps() {
        IoPattern job1 = new IoPattern(Workload.WRITE, 70, 10, 4, 1, 2);
        long[] lbas = new long[7];
        for (int i = 0; i < lbas.length; i++) {
            assertThat(job1.nextIsWrite()).isTrue();
            lbas[i] = job1.nextLba();
        }
        assertThat(lbas).containsExactly(20, 24, 28, 32, 36, 0, 4);
    }

    @Test
    void mixIsTheShareOfReads() {
        IoPattern p = new IoPattern(Workload.RANDRW, 70, 10, 1, 0, 1);
        int writes = 0;
        for (int i = 0; i < 100_000; i++) {
            writes += p.nextIsWrite() ? 1 : 0;
        }
        assertThat(writes).isBetween(29_000, 31_000);
        IoPattern writesOnly = new IoPattern(Workload.RANDRW, 0, 10, 1, 0, 1);
        for (int i = 0; i < 1000; i++) {
            assertThat(writesOnly.nextIsWrite()).isTrue();
        }
    }

    @Test
    void patternIsTheAddressTimesGoldenPlusSalt() {
        ByteBuf buf = Unpooled.buffer(16).writerIndex(16);
        try {
            IoPattern.fill(buf, 8, 16);
            // words at device offsets 8 and 16: p × 0x9E3779B97F4A7C15 + 0x6C6F616467656E21, big-endian
            assertThat(buf.getLong(0)).isEqualTo(8 * 0x9E37_79B9_7F4A_7C15L + 0x6C6F_6164_6765_6E21L);
            assertThat(buf.getLong(8)).isEqualTo(16 * 0x9E37_79B9_7F4A_7C15L + 0x6C6F_6164_6765_6E21L);
        } finally {
            buf.release();
        }
    }

    @Test
    void matchesAtAnyAlignmentAndCatchesOneWrongByte() {
        ByteBuf block = Unpooled.buffer(4096).writerIndex(4096);
        try {
            IoPattern.fill(block, 3 * 4096L, 4096);
            assertThat(IoPattern.matches(block, 3 * 4096L, 4096)).isTrue();
            assertThat(IoPattern.matches(block, 2 * 4096L, 4096)).isFalse();
            // a data PDU starting mid-word: bytes 1003 .. 2002 of the block
            ByteBuf piece = block.slice(1003, 1000);
            assertThat(IoPattern.matches(piece, 3 * 4096L + 1003, 1000)).isTrue();
            assertThat(IoPattern.matches(piece, 3 * 4096L + 1004, 1000)).isFalse();
            for (int at : new int[] {0, 5, 500, 999}) {
                byte old = piece.getByte(at);
                piece.setByte(at, old ^ 0x10);
                assertThat(IoPattern.matches(piece, 3 * 4096L + 1003, 1000)).as("flip at %d", at).isFalse();
                piece.setByte(at, old);
            }
            // a digest-checked frame arrives as a composite of two slices: still compared, not assumed contiguous
            ByteBuf composite = Unpooled.wrappedBuffer(block.retainedSlice(0, 100), block.retainedSlice(100, 3996));
            assertThat(composite.nioBufferCount()).isEqualTo(2);
            assertThat(IoPattern.matches(composite, 3 * 4096L, 4096)).isTrue();
            assertThat(IoPattern.matches(composite, 4 * 4096L, 4096)).isFalse();
            composite.release();
            ByteBuf zeros = Unpooled.buffer(4096).writeZero(4096);
            assertThat(IoPattern.matches(zeros, 0, 4096)).isFalse();
            zeros.release();
        } finally {
            block.release();
        }
    }
}
