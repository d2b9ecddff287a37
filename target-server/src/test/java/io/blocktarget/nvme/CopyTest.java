package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.UncorrectableBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.CopyCommand;
import io.blocktarget.protocol.nvme.CopyCommand.SourceRange;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Copy (NVM Command Set §3.2.2), source range format 0h: data, limits (MSRC, MSSRL, MCL) at limit and limit + 1. */
class CopyTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:copy";

    private BlockDevice device;

    private TestHost host(int lbs, long blocks) {
        device = UncorrectableBlockDevice.wrap(new RamBlockDevice("c", new BlockGeometry(lbs, Math.max(lbs, 4096),
                blocks), false, new MemoryBudget(256L << 20)));
        NvmeTarget target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "c", device)), List.of(),
                NvmeLimits.DEFAULT, new ManualClock(), Map.of());
        return TestHost.enabled(target, NQN);
    }

    static List<Integer> lbs() {
        return TestSupport.lbsMatrix();
    }

    private static Reply copy(TestHost host, NvmeQueue q, long sdlba, List<SourceRange> ranges) {
        ByteBuf data = Unpooled.buffer();
        ranges.forEach(r -> r.encode(data));
        Sqe sqe = new CopyCommand(host.nextCid(), 1, sdlba, ranges.size() - 1, 0, false, false,
                SglDescriptor.inCapsule(0, data.readableBytes())).toSqe();
        return host.io(q, sqe, data);
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Identify Namespace bytes 74..80 (MSSRL, MCL, MSRC) and Identify Controller OCFS / ONCS bit 8. */
    @ParameterizedTest
    @MethodSource("lbs")
    void limitsAreAdvertised(int lbs) {
        TestHost host = host(lbs, 64);
        ByteBuf ns = host.identifyData(0, 1);
        CopyCommand.Limits limits = CopyCommand.Limits.get(ns);
        ns.release();
        long mcl = (1 << 20) / lbs;
        assertThat(limits).isEqualTo(new CopyCommand.Limits((int) Math.min(mcl, 0xFFFF), mcl, 127));
        ByteBuf ctrl = host.identifyData(1, 0);
        assertThat(ctrl.getUnsignedShortLE(520) & 1 << 8).as("ONCS Copy").isNotZero();
        assertThat(ctrl.getUnsignedShortLE(534)).as("OCFS format 0").isEqualTo(1);
        ctrl.release();
        host.admin.close();
    }

    @ParameterizedTest
    @MethodSource("lbs")
    void copiesRangesInOrderToTheDestination(int lbs) {
        TestHost host = host(lbs, 64);
        NvmeQueue q = host.connectIo(1);
        byte[] a = pattern(2 * lbs, 1);
        byte[] b = pattern(3 * lbs, 2);
        assertThat(host.write(q, 1, 4, a, lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.write(q, 1, 20, b, lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        // b then a, to 40: five blocks
        assertThat(copy(host, q, 40, List.of(new SourceRange(20, 2), new SourceRange(4, 1))).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        byte[] expected = new byte[5 * lbs];
        System.arraycopy(b, 0, expected, 0, 3 * lbs);
        System.arraycopy(a, 0, expected, 3 * lbs, 2 * lbs);
        assertThat(host.read(q, 1, 40, 5, lbs).bytes()).isEqualTo(expected);
        // overlapping: the sources as they were before the command
        assertThat(copy(host, q, 41, List.of(new SourceRange(40, 2))).status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] shifted = host.read(q, 1, 41, 3, lbs).bytes();
        assertThat(Arrays.copyOfRange(shifted, 0, 3 * lbs)).isEqualTo(Arrays.copyOfRange(expected, 0, 3 * lbs));
        host.admin.close();
    }

    @Test
    void msrcAtTheLimitAndBeyond() {
        TestHost host = host(512, 1024);
        NvmeQueue q = host.connectIo(1);
        List<SourceRange> ranges = new ArrayList<>();
        for (int k = 0; k < 128; k++) {
            ranges.add(new SourceRange(k, 0));
        }
        assertThat(copy(host, q, 512, ranges).status()).isEqualTo(NvmeStatus.SUCCESS);
        ranges.add(new SourceRange(128, 0));
        Reply over = copy(host, q, 512, ranges);
        assertThat(over.status()).isEqualTo(NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
        assertThat(over.status().sct()).isEqualTo(NvmeStatus.StatusCodeType.COMMAND_SPECIFIC);
        assertThat(over.status().sc()).isEqualTo(0x83);
        assertThat(over.status().dnr()).isTrue();
        host.admin.close();
    }

    @ParameterizedTest
    @MethodSource("lbs")
    void mssrlAndMclAtTheLimitAndBeyond(int lbs) {
        int mcl = (1 << 20) / lbs;
        TestHost host = host(lbs, 4L * mcl + 8);
        NvmeQueue q = host.connectIo(1);
        // one range of MSSRL (= MCL) blocks, then one more
        assertThat(copy(host, q, 2L * mcl, List.of(new SourceRange(0, mcl - 1))).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        if (mcl < 0xFFFF) {
            assertThat(copy(host, q, 2L * mcl, List.of(new SourceRange(0, mcl))).status())
                    .isEqualTo(NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
        }
        // two ranges adding up to MCL, then to MCL + 1 (each within MSSRL)
        int half = mcl / 2;
        assertThat(copy(host, q, 2L * mcl, List.of(new SourceRange(0, half - 1), new SourceRange(mcl, mcl - half - 1)))
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(copy(host, q, 2L * mcl, List.of(new SourceRange(0, half - 1), new SourceRange(mcl, mcl - half)))
                .status()).isEqualTo(NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
        host.admin.close();
    }

    @Test
    void rangeFormatAndMediaErrors() {
        TestHost host = host(512, 64);
        NvmeQueue q = host.connectIo(1);
        assertThat(copy(host, q, 0, List.of(new SourceRange(63, 1))).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(copy(host, q, 63, List.of(new SourceRange(0, 1))).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        // descriptor format 1h is not in OCFS; PRINFOR without protection information
        ByteBuf data = Unpooled.buffer();
        new SourceRange(0, 0).encode(data);
        Sqe format1 = Sqe.of(NvmOpcode.COPY.code(), 3, 1, SglDescriptor.inCapsule(0, 32), 10, 0, 1 << 8);
        assertThat(host.io(q, format1, data.retainedDuplicate()).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        Sqe prinfor = Sqe.of(NvmOpcode.COPY.code(), 4, 1, SglDescriptor.inCapsule(0, 32), 10, 0, 1 << 12);
        assertThat(host.io(q, prinfor, data.retainedDuplicate()).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // an SGL shorter than the ranges
        Sqe shortSgl = Sqe.of(NvmOpcode.COPY.code(), 5, 1, SglDescriptor.inCapsule(0, 16), 10, 0, 0);
        assertThat(host.io(q, shortSgl, data).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        // a source block marked uncorrectable fails the copy and writes nothing
        assertThat(host.write(q, 1, 30, pattern(512, 9), 512, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, 6, 1, 2, 0, false, false).toSqe(),
                null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(copy(host, q, 30, List.of(new SourceRange(2, 0))).status())
                .isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        assertThat(host.read(q, 1, 30, 1, 512).bytes()).isEqualTo(pattern(512, 9));
        host.admin.close();
    }
}
