package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.UncorrectableBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Error Information log (Base §5.16.1.2) filled from real failed completions, ELPE, and the SMART / Health
 * counters (Base §5.16.1.3) that count: data units, host commands, media errors, error log entries.
 */
class ErrorLogAndSmartTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:errors";
    private static final int ENTRY = 64;

    private final BlockDevice device = UncorrectableBlockDevice.wrap(new RamBlockDevice("e",
            new BlockGeometry(512, 4096, 4096), false, new MemoryBudget(64L << 20)));
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "e", device)),
            List.of(), NvmeLimits.DEFAULT, new ManualClock(), Map.of());

    private static ByteBuf log(TestHost host, int lid, int length) {
        Reply r = host.getLogPage(lid, lid == 2 ? 0xFFFF_FFFF : 0, 0, length, false);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        return r.data();
    }

    /** CQE status field of an entry: bits 15:1 = SC | SCT << 8 | DNR << 14, bit 0 phase. */
    private static int statusField(NvmeStatus s) {
        return (s.sc() | s.sct().code() << 8 | (s.dnr() ? 1 << 14 : 0)) << 1;
    }

    @Test
    void failedCommandsAreLoggedNewestFirst() {
        TestHost host = TestHost.enabled(target, NQN);
        ByteBuf id = host.identifyData(1, 0);
        assertThat(id.getUnsignedByte(262)).as("ELPE: 64 entries").isEqualTo((short) 63);
        id.release();
        NvmeQueue q = host.connectIo(1);
        ByteBuf empty = log(host, 1, 4096);
        assertThat(empty.readableBytes()).isEqualTo(4096);
        assertThat(empty.forEachByte(b -> b == 0)).as("no error yet: all zero").isEqualTo(-1);
        empty.release();

        // 1: LBA out of range on NSID 1 (CID 0x41); 2: an unknown admin opcode (CID 0x42);
        // 3: an unrecovered read at LBA 102 of a read from SLBA 100 (CID 0x43)
        assertThat(host.io(q, TestHost.rw(NvmOpcode.READ, 0x41, 1, 4096, 1, 512, false), null).status())
                .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(host.admin(Sqe.of(0x7E, 0x42, 0, SglDescriptor.transportDataBlock(0))).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(q, new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, 0x50, 1, 102, 1, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, TestHost.rw(NvmOpcode.READ, 0x43, 1, 100, 8, 512, false), null).status())
                .isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        // not errors: a successful command, and an Abort's own completion (host-requested)
        assertThat(host.admin(new AbortCommand(0x44, 1, 0x99).toSqe()).status()).isEqualTo(NvmeStatus.SUCCESS);

        ByteBuf page = log(host, 1, 4096);
        // entry 0: the newest (Error Count 3)
        assertThat(page.getLongLE(0)).isEqualTo(3);
        assertThat(page.getUnsignedShortLE(8)).as("SQID").isEqualTo(1);
        assertThat(page.getUnsignedShortLE(10)).as("CID").isEqualTo(0x43);
        assertThat(page.getUnsignedShortLE(12)).isEqualTo(statusField(NvmeStatus.UNRECOVERED_READ_ERROR));
        assertThat(page.getUnsignedShortLE(14)).as("parameter location n/a").isEqualTo(0xFFFF);
        assertThat(page.getLongLE(16)).as("first bad LBA").isEqualTo(102);
        assertThat(page.getIntLE(24)).as("NSID").isEqualTo(1);
        assertThat(page.getUnsignedByte(29)).as("TRTYPE TCP").isEqualTo((short) 3);
        // entry 1: the admin error
        assertThat(page.getLongLE(ENTRY)).isEqualTo(2);
        assertThat(page.getUnsignedShortLE(ENTRY + 8)).isZero();
        assertThat(page.getUnsignedShortLE(ENTRY + 10)).isEqualTo(0x42);
        assertThat(page.getUnsignedShortLE(ENTRY + 12)).isEqualTo(statusField(NvmeStatus.INVALID_OPCODE));
        // entry 2: the out-of-range read, LBA = its SLBA
        assertThat(page.getLongLE(2 * ENTRY)).isEqualTo(1);
        assertThat(page.getUnsignedShortLE(2 * ENTRY + 10)).isEqualTo(0x41);
        assertThat(page.getLongLE(2 * ENTRY + 16)).isEqualTo(4096);
        assertThat(page.getLongLE(3 * ENTRY)).as("then empty").isZero();
        page.release();
        host.admin.close();
    }

    @Test
    void theRingKeepsTheLast64() {
        TestHost host = TestHost.enabled(target, NQN);
        for (int i = 0; i < 70; i++) {
            host.admin(Sqe.of(0x7E, 1000 + i, 0, SglDescriptor.transportDataBlock(0)));
        }
        ByteBuf page = log(host, 1, 4096);
        assertThat(page.getLongLE(0)).isEqualTo(70);
        assertThat(page.getUnsignedShortLE(10)).isEqualTo(1069);
        assertThat(page.getLongLE(63 * ENTRY)).as("oldest kept").isEqualTo(7);
        assertThat(page.getUnsignedShortLE(63 * ENTRY + 10)).isEqualTo(1006);
        page.release();
        ByteBuf smart = log(host, 2, 512);
        assertThat(smart.getLongLE(176)).as("Number of Error Information Log Entries (lifetime)").isEqualTo(70);
        smart.release();
        host.admin.close();
    }

    @Test
    void smartCountsOnlyRealMediaErrorsAndEveryReadKind() {
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue q = host.connectIo(1);
        // 1000 x 512 B written in one write is exactly one data unit; one more block makes two
        assertThat(host.write(q, 1, 0, new byte[1000 * 512], 512, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf s = log(host, 2, 512);
        assertThat(s.getLongLE(48)).as("Data Units Written").isEqualTo(1);
        s.release();
        assertThat(host.write(q, 1, 1000, new byte[512], 512, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        // reads: Read 8 blocks, Compare 1 block, Verify 2 blocks
        host.read(q, 1, 0, 8, 512).release();
        Sqe compare = TestHost.rw(NvmOpcode.COMPARE, 7, 1, 0, 1, 512, false);
        assertThat(host.io(q, compare, Unpooled.wrappedBuffer(new byte[512])).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, new LbaRangeCommand(NvmOpcode.VERIFY, 8, 1, 0, 1, false, false).toSqe(), null)
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        // invalid fields and out-of-range LBAs are errors, not media errors; an unrecovered read is one
        host.io(q, TestHost.rw(NvmOpcode.READ, 9, 1, 4095, 2, 512, false), null).release();
        Sqe prinfo = Sqe.of(NvmOpcode.VERIFY.code(), 10, 1, SglDescriptor.transportDataBlock(0), 0, 0, 1 << 26);
        host.io(q, prinfo, null).release();
        host.io(q, new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, 11, 1, 50, 0, false, false).toSqe(), null);
        assertThat(host.read(q, 1, 50, 1, 512).status()).isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);

        s = log(host, 2, 512);
        assertThat(s.getLongLE(32)).as("Data Units Read: 11 blocks -> 1").isEqualTo(1);
        assertThat(s.getLongLE(48)).as("Data Units Written: 1001 blocks -> 2").isEqualTo(2);
        assertThat(s.getLongLE(64)).as("Host Read Commands: Read, Compare, Verify").isEqualTo(3);
        assertThat(s.getLongLE(80)).as("Host Write Commands").isEqualTo(2);
        assertThat(s.getLongLE(160)).as("Media and Data Integrity Errors").isEqualTo(1);
        assertThat(s.getLongLE(176)).as("Error Information Log Entries").isEqualTo(3);
        assertThat(s.getLongLE(40) | s.getLongLE(168)).as("upper halves of the 128-bit counters").isZero();
        s.release();
        host.admin.close();
    }
}
