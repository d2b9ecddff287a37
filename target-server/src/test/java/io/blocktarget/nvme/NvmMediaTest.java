package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.UncorrectableBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.DatasetManagementCommand.DsmRange;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Verify (NVM Command Set §3.2.9) and Write Uncorrectable (§3.2.7) over a RAM disk with an uncorrectable set. */
class NvmMediaTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:media";
    private static final int ONCS_OFFSET = 520;

    private BlockDevice device;

    private TestHost host(int lbs, long blocks, boolean readOnly) {
        device = UncorrectableBlockDevice.wrap(new RamBlockDevice("m", new BlockGeometry(lbs, Math.max(lbs, 4096),
                blocks), readOnly, new MemoryBudget(64L << 20)));
        NvmeTarget target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "m", device)), List.of(),
                NvmeLimits.DEFAULT, new ManualClock(), Map.of());
        return TestHost.enabled(target, NQN);
    }

    static List<Integer> lbs() {
        return TestSupport.lbsMatrix();
    }

    private static Sqe verify(int cid, long slba, int blocks) {
        return new LbaRangeCommand(NvmOpcode.VERIFY, cid, 1, slba, blocks - 1, false, false).toSqe();
    }

    private static Sqe uncorrectable(int cid, long slba, int blocks) {
        return new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, cid, 1, slba, blocks - 1, false, false).toSqe();
    }

    @Test
    void oncsAdvertisesVerifyAndWriteUncorrectable() {
        TestHost host = host(512, 64, false);
        ByteBuf id = host.identifyData(1, 0);
        int oncs = id.getUnsignedShortLE(ONCS_OFFSET);
        id.release();
        assertThat(oncs & 1 << 1).as("Write Uncorrectable").isNotZero();
        assertThat(oncs & 1 << 7).as("Verify").isNotZero();
        // and the Commands Supported and Effects log: CSUPP for both, LBCC for Write Uncorrectable
        Reply effects = host.getLogPage(0x05, 0, 0, 4096, false);
        byte[] e = effects.bytes();
        int io = 1024;
        assertThat(e[io + 4 * 0x0C] & 0x3).isEqualTo(1);
        assertThat(e[io + 4 * 0x04] & 0x3).isEqualTo(3);
        assertThat(e[io + 4 * 0x19] & 0x3).isEqualTo(3);
        host.admin.close();
    }

    @ParameterizedTest
    @MethodSource("lbs")
    void writeUncorrectableFailsReadsUntilRewritten(int lbs) {
        TestHost host = host(lbs, 64, false);
        NvmeQueue q = host.connectIo(1);
        byte[] data = new byte[4 * lbs];
        java.util.Arrays.fill(data, (byte) 0x5A);
        assertThat(host.write(q, 1, 8, data, lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, uncorrectable(2, 9, 2), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(device.uncorrectableBlocks().orElseThrow().ranges()).containsExactly(new BlockRange(9, 2));

        Reply bad = host.read(q, 1, 8, 4, lbs);
        assertThat(bad.status()).isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        assertThat(bad.status().sct()).isEqualTo(NvmeStatus.StatusCodeType.MEDIA_ERROR);
        assertThat(bad.data()).isNull();
        assertThat(host.read(q, 1, 8, 1, lbs).bytes()).containsOnly(0x5A);     // LBA 8 is fine
        assertThat(host.read(q, 1, 11, 1, lbs).bytes()).containsOnly(0x5A);    // so is 11
        assertThat(host.io(q, verify(3, 8, 4), null).status()).isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        assertThat(host.io(q, verify(3, 8, 1), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        // Compare reads too
        Sqe compare = TestHost.rw(NvmOpcode.COMPARE, 4, 1, 9, 1, lbs, false);
        assertThat(host.io(q, compare, Unpooled.wrappedBuffer(new byte[lbs])).status())
                .isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);

        // a write of LBA 9 clears LBA 9 only; write zeroes clears LBA 10
        assertThat(host.write(q, 1, 9, new byte[lbs], lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(q, 1, 9, 1, lbs).bytes()).containsOnly(0);
        assertThat(host.read(q, 1, 10, 1, lbs).status()).isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        Sqe zeroes = new WriteZeroesCommand(5, 1, 10, 0, false, false, false).toSqe();
        assertThat(host.io(q, zeroes, null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, verify(6, 8, 4), null).status()).isEqualTo(NvmeStatus.SUCCESS);

        // deallocate (DSM AD) clears too
        assertThat(host.io(q, uncorrectable(7, 30, 3), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf range = Unpooled.buffer();
        new DsmRange(0, 3, 30).encode(range);
        assertThat(host.io(q, TestHost.dsm(8, 1, 0, false, false, true, SglDescriptor.inCapsule(0, 16)), range)
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, verify(9, 30, 3), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(device.uncorrectableBlocks().orElseThrow().isEmpty()).isTrue();
        host.admin.close();
    }

    @Test
    void writeUncorrectableErrors() {
        TestHost host = host(512, 64, false);
        NvmeQueue q = host.connectIo(1);
        assertThat(host.io(q, uncorrectable(1, 63, 2), null).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(host.io(q, uncorrectable(1, 63, 1), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        Sqe otherNs = new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, 2, 7, 0, 0, false, false).toSqe();
        assertThat(host.io(q, otherNs, null).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        host.admin.close();
        TestHost ro = host(512, 64, true);
        NvmeQueue rq = ro.connectIo(1);
        assertThat(ro.io(rq, uncorrectable(1, 0, 1), null).status())
                .isEqualTo(NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED);
        assertThat(device.uncorrectableBlocks().orElseThrow().isEmpty()).isTrue();
        ro.admin.close();
    }

    /** VSL = MDTS (1 MiB): Verify at the limit succeeds, one block more is Invalid Field. */
    @ParameterizedTest
    @MethodSource("lbs")
    void verifySizeLimitAtTheLimitAndBeyond(int lbs) {
        int limitBlocks = NvmeLimits.DEFAULT.maxDataTransferBytes() / lbs;
        TestHost host = host(lbs, limitBlocks + 8, false);
        NvmeQueue q = host.connectIo(1);
        assertThat(host.io(q, verify(1, 0, limitBlocks), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        Reply over = host.io(q, verify(2, 0, limitBlocks + 1), null);
        assertThat(over.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(over.status().dnr()).isTrue();
        // range checks first: past the end is LBA Out of Range
        assertThat(host.io(q, verify(3, limitBlocks + 8, 1), null).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        // PRINFO without protection information
        Sqe prinfo = Sqe.of(NvmOpcode.VERIFY.code(), 4, 1, SglDescriptor.transportDataBlock(0), 0, 0, 1 << 26);
        assertThat(host.io(q, prinfo, null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }
}
