package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.DatasetManagementCommand.DsmRange;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The NVM command set over real RAM and null backends: round trips at every LBS and every error path. */
class NvmIoTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:io";
    private final ManualClock clock = new ManualClock();

    static List<Integer> lbs() {
        return TestSupport.lbsMatrix();
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private TestHost host(int lbs, long blocks) {
        NvmeTarget target = NvmeTargets.create(
                List.of(new NamespaceSpec(NQN, 1, "ram", TestSupport.ram("ram", lbs, Math.max(lbs, 4096), blocks))),
                List.of(), NvmeLimits.DEFAULT, clock);
        return TestHost.enabled(target, NQN);
    }

    @ParameterizedTest
    @MethodSource("lbs")
    void writeReadCompareAtEveryLogicalBlockSize(int lbs) {
        TestHost host = host(lbs, 64);
        NvmeQueue q = host.connectIo(1);
        byte[] data = pattern(3 * lbs, lbs);
        assertThat(host.write(q, 1, 5, data, lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.write(q, 1, 20, data, lbs, true).status()).isEqualTo(NvmeStatus.SUCCESS); // FUA
        Reply read = host.read(q, 1, 5, 3, lbs);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(read.bytes()).isEqualTo(data);
        assertThat(host.read(q, 1, 20, 3, lbs).bytes()).isEqualTo(data);
        // never written: zeros
        assertThat(host.read(q, 1, 40, 1, lbs).bytes()).containsOnly(0);
        // Compare: equal, then one byte different
        Sqe compare = TestHost.rw(NvmOpcode.COMPARE, 9, 1, 5, 3, lbs, false);
        assertThat(host.io(q, compare, Unpooled.wrappedBuffer(data)).status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] other = data.clone();
        other[lbs + 7] ^= 1;
        Reply mismatch = host.io(q, compare, Unpooled.wrappedBuffer(other));
        assertThat(mismatch.status()).isEqualTo(NvmeStatus.COMPARE_FAILURE);
        assertThat(mismatch.status().sct()).isEqualTo(NvmeStatus.StatusCodeType.MEDIA_ERROR);
        assertThat(mismatch.status().dnr()).isTrue();
        host.admin.close();
    }

    @Test
    void flushWriteZeroesAndDeallocate() {
        int lbs = 4096;
        TestHost host = host(lbs, 256);
        NvmeQueue q = host.connectIo(1);
        byte[] data = pattern(16 * lbs, 1);
        assertThat(host.write(q, 1, 0, data, lbs, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, Sqe.of(NvmOpcode.FLUSH.code(), 1, 1, SglDescriptor.transportDataBlock(0)), null)
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, Sqe.of(NvmOpcode.FLUSH.code(), 2, 0xFFFF_FFFF, SglDescriptor.transportDataBlock(0)),
                null).status()).isEqualTo(NvmeStatus.SUCCESS);

        // Write Zeroes blocks 2..3, then with DEAC 4..5 and FUA
        assertThat(host.io(q, new WriteZeroesCommand(3, 1, 2, 1, false, false, false).toSqe(), null).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, new WriteZeroesCommand(4, 1, 4, 1, true, true, false).toSqe(), null).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        byte[] after = host.read(q, 1, 0, 16, lbs).bytes();
        byte[] expected = data.clone();
        Arrays.fill(expected, 2 * lbs, 6 * lbs, (byte) 0);
        assertThat(after).isEqualTo(expected);

        // DSM deallocate blocks 8..9 and 12 (one range of length 0 is a no-op)
        ByteBuf ranges = Unpooled.buffer();
        new DsmRange(0, 2, 8).encode(ranges);
        new DsmRange(0, 0, 100).encode(ranges);
        new DsmRange(0, 1, 12).encode(ranges);
        Sqe dsm = TestHost.dsm(5, 1, 2, false, false, true,
                SglDescriptor.inCapsule(0, 48));
        assertThat(host.io(q, dsm, ranges).status()).isEqualTo(NvmeStatus.SUCCESS);
        Arrays.fill(expected, 8 * lbs, 10 * lbs, (byte) 0);
        Arrays.fill(expected, 12 * lbs, 13 * lbs, (byte) 0);
        assertThat(host.read(q, 1, 0, 16, lbs).bytes()).isEqualTo(expected);
        // DSM without AD (hints only) changes nothing
        ByteBuf hint = Unpooled.buffer();
        new DsmRange(0, 4, 0).encode(hint);
        Sqe hintOnly = TestHost.dsm(6, 1, 0, true, false, false,
                SglDescriptor.inCapsule(0, 16));
        assertThat(host.io(q, hintOnly, hint).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(q, 1, 0, 16, lbs).bytes()).isEqualTo(expected);
        host.admin.close();
    }

    @Test
    void nullBackendCompletesEverything() {
        NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "nul",
                        new NullBlockDevice("nul", new BlockGeometry(512, 512, 1000), false))),
                List.of(), NvmeLimits.DEFAULT, clock);
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue q = host.connectIo(1);
        assertThat(host.write(q, 1, 0, pattern(1024, 3), 512, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(q, 1, 998, 2, 512).bytes()).hasSize(1024).containsOnly(0);
        host.admin.close();
    }

    @Test
    void errorPathsCarryTheirStatusAndDnr() {
        int lbs = 512;
        TestHost host = host(lbs, 100);
        NvmeQueue q = host.connectIo(1);
        // LBA past the end, and SLBA + NLB wrapping
        Reply past = host.read(q, 1, 99, 2, lbs);
        assertThat(past.status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(past.status().dnr()).isTrue();
        assertThat(host.read(q, 1, -1L, 1, lbs).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(host.io(q, new WriteZeroesCommand(1, 1, 100, 0, false, false, false).toSqe(), null).status())
                .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        // inactive and broadcast NSIDs
        assertThat(host.read(q, 2, 0, 1, lbs).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        assertThat(host.read(q, 0, 0, 1, lbs).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        assertThat(host.io(q, Sqe.of(NvmOpcode.FLUSH.code(), 1, 7, SglDescriptor.transportDataBlock(0)), null)
                .status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        // SGL length must be NLB x LBS
        Sqe shortSgl = new ReadWriteCommand(NvmOpcode.READ, 1, 1, 0, 1, false, false, 0, 0,
                SglDescriptor.transportDataBlock(512)).toSqe();
        Reply sgl = host.io(q, shortSgl, null);
        assertThat(sgl.status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(sgl.status().dnr()).isTrue();
        // unsupported SGL descriptor (keyed data block)
        Sqe keyed = new ReadWriteCommand(NvmOpcode.READ, 1, 1, 0, 0, false, false, 0, 0,
                new SglDescriptor(0, 512, 0, SglDescriptor.TYPE_KEYED_DATA_BLOCK, 0)).toSqe();
        assertThat(host.io(q, keyed, null).status()).isEqualTo(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        // write whose data falls short of the SGL: the transfer failed
        Sqe write = TestHost.rw(NvmOpcode.WRITE, 2, 1, 0, 2, lbs, false);
        Reply shortData = host.io(q, write, Unpooled.wrappedBuffer(new byte[512]));
        assertThat(shortData.status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        assertThat(host.io(q, write, null).status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        // Compare without data, and in-capsule data beyond the 256 KiB the capsule may carry
        assertThat(host.io(q, TestHost.rw(NvmOpcode.COMPARE, 2, 1, 0, 1, lbs, false), null).status())
                .isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        Sqe farOffset = new ReadWriteCommand(NvmOpcode.WRITE, 2, 1, 0, 0, false, false, 0, 0,
                SglDescriptor.inCapsule(NvmeLimits.DEFAULT.ioInCapsuleDataBytes() + 4096, 512)).toSqe();
        Reply offset = host.io(q, farOffset, Unpooled.wrappedBuffer(new byte[512]));
        assertThat(offset.status()).isEqualTo(NvmeStatus.SGL_OFFSET_INVALID);
        assertThat(offset.status().dnr()).isTrue();
        // PRINFO without protection information
        Sqe prinfo = new ReadWriteCommand(NvmOpcode.READ, 3, 1, 0, 0, false, false, 1, 0,
                SglDescriptor.transportDataBlock(512)).toSqe();
        assertThat(host.io(q, prinfo, null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // unknown and unsupported opcodes
        assertThat(host.io(q, Sqe.of(0x7E, 4, 1, SglDescriptor.transportDataBlock(0)), null).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
        // Write Uncorrectable on a device without an uncorrectable-block set (ONCS bit 1 clear)
        assertThat(host.io(q, Sqe.of(NvmOpcode.WRITE_UNCORRECTABLE.code(), 4, 1, SglDescriptor.transportDataBlock(0)),
                null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        // DSM range outside the namespace, and DSM data missing
        ByteBuf bad = Unpooled.buffer();
        new DsmRange(0, 10, 95).encode(bad);
        Sqe dsm = TestHost.dsm(5, 1, 0, false, false, true,
                SglDescriptor.inCapsule(0, 16));
        assertThat(host.io(q, dsm, bad).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(host.io(q, dsm, null).status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        // Property Get on an I/O queue
        Reply prop = TestSupport.submit(q, new io.blocktarget.protocol.nvme.PropertyCommand(6,
                io.blocktarget.protocol.nvme.FabricsCommandType.PROPERTY_GET,
                io.blocktarget.protocol.nvme.ControllerRegister.CSTS, 0).toSqe(), null);
        assertThat(prop.status()).isEqualTo(NvmeStatus.INVALID_QUEUE_TYPE);
        host.admin.close();
    }

    @Test
    void transferLargerThanMdtsIsInvalidField() {
        TestHost host = host(65536, 64);
        NvmeQueue q = host.connectIo(1);
        // MDTS = 1 MiB = 16 blocks of 64 KiB; 17 blocks is too much
        Reply r = host.read(q, 1, 0, 17, 65536);
        assertThat(r.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        Reply ok = host.read(q, 1, 0, 16, 65536);
        assertThat(ok.status()).isEqualTo(NvmeStatus.SUCCESS);
        ok.release();
        host.admin.close();
    }

    @Test
    void readOnlyNamespaceAndFullBudget() {
        BlockGeometry g = new BlockGeometry(4096, 65536, 1024);
        NvmeTarget target = NvmeTargets.create(List.of(
                        new NamespaceSpec(NQN, 1, "ro", new RamBlockDevice("ro", g, true, new MemoryBudget(1 << 20))),
                        new NamespaceSpec(NQN, 2, "tiny", new RamBlockDevice("tiny", g, false, new MemoryBudget(65536)))),
                List.of(), NvmeLimits.DEFAULT, clock);
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue q = host.connectIo(1);
        Reply ro = host.write(q, 1, 0, new byte[4096], 4096, false);
        assertThat(ro.status()).isEqualTo(NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED);
        assertThat(ro.status().dnr()).isTrue();
        assertThat(host.io(q, new WriteZeroesCommand(1, 1, 0, 0, true, false, false).toSqe(), null).status())
                .isEqualTo(NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED);
        // the first chunk fits the budget, the second does not
        assertThat(host.write(q, 2, 0, new byte[4096], 4096, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        Reply full = host.write(q, 2, 512, new byte[4096], 4096, false);
        // the shared RAM budget is a resource shortage, retryable (issue 10 item 7), never a media error
        assertThat(full.status()).isEqualTo(NvmeStatus.COMMAND_INTERRUPTED);
        assertThat(full.status().dnr()).isFalse();
        host.admin.close();
    }
}
