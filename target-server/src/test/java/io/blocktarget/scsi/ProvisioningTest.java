package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.ten;
import static org.assertj.core.api.Assertions.assertThat;

/** UNMAP, WRITE SAME (10)/(16) and GET LBA STATUS (SBC-4 §4.7, §5.7, §5.32, §5.47-5.48). */
class ProvisioningTest {
    private static final int WRITE_10 = 0x2A, READ_10 = 0x28, WRITE_SAME_10 = 0x41, WRITE_SAME_16 = 0x93;

    static byte[] unmapCdb(int flags, int length) {
        return cdb(0x42, flags, 0, 0, 0, 0, 0, length >> 8, length, 0);
    }

    /** UNMAP parameter list (SBC-4 Table 93-94) from (lba, count) pairs. */
    static byte[] unmapList(long... lbaCount) {
        int n = lbaCount.length / 2;
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * n);
        b.putShort((short) (6 + 16 * n)).putShort((short) (16 * n)).putInt(0);
        for (int i = 0; i < n; i++) {
            b.putLong(lbaCount[2 * i]).putInt((int) lbaCount[2 * i + 1]).putInt(0);
        }
        return b.array();
    }

    @Test
    void unmapDeallocatesAndReadsZeros() {
        try (Scsi.Unit u = Scsi.Unit.ram("unmap", 4096, 4096, 4 << 20)) {
            byte[] data = Scsi.pattern(1, 64 * 4096);
            u.run(ten(WRITE_10, 0, 0, 64), data).assertGood();
            assertThat(u.ram().allocatedBytes()).isEqualTo(4 * 65536);
            byte[] list = unmapList(16, 16, 40, 2);
            Scsi.Reply r = u.run(unmapCdb(0, list.length), list).assertGood();
            assertThat(r.transferLength()).isEqualTo(list.length);
            byte[] expected = data.clone();
            Arrays.fill(expected, 16 * 4096, 32 * 4096, (byte) 0);
            Arrays.fill(expected, 40 * 4096, 42 * 4096, (byte) 0);
            assertThat(u.run(ten(READ_10, 0, 0, 64), null).data()).isEqualTo(expected);
            assertThat(u.ram().allocatedBytes()).isEqualTo(3 * 65536);   // the whole chunk 16..31 was freed
        }
    }

    @Test
    void unmapErrors() {
        try (Scsi.Unit u = Scsi.Unit.ram("unmaperr", 512, 512, 1 << 20)) {
            u.run(unmapCdb(0, 0), null).assertGood();
            u.run(unmapCdb(0, 4), new byte[4]).assertCheck(0x5, 0x1A, 0x00);
            byte[] claimsMore = unmapList(0, 1);
            claimsMore[3] = 32;                                           // descriptor data length 32, 16 sent
            u.run(unmapCdb(0, claimsMore.length), claimsMore).assertCheck(0x5, 0x1A, 0x00);
            byte[] list = unmapList(2047, 2);
            u.run(unmapCdb(0, list.length), list).assertCheck(0x5, 0x21, 0x00);
            u.run(unmapCdb(0x01, list.length), list).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 0);
            u.run(unmapCdb(0, 24), new byte[8]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            long[] many = new long[2 * 257];
            for (int i = 0; i < 257; i++) {
                many[2 * i] = i;
                many[2 * i + 1] = 1;
            }
            byte[] tooMany = unmapList(many);
            u.run(unmapCdb(0, tooMany.length), tooMany).assertCheck(0x5, 0x26, 0x00).assertParameterField(2, 7);
        }
    }

    @Test
    void unmapOfMoreThanTheMaximumLbaCountPointsAtTheDescriptor() {
        try (Scsi.Unit u = Scsi.Unit.of(new NullBlockDevice("big", new BlockGeometry(512, 512, 1L << 34), false))) {
            byte[] list = unmapList(0, 0xFFFF_FFFFL, 1L << 33, 1);
            u.run(unmapCdb(0, list.length), list).assertCheck(0x5, 0x26, 0x00).assertParameterField(32, 7);
        }
    }

    @Test
    void writeSameWithUnmapDeallocatesAndNdobNeedsNoData() {
        try (Scsi.Unit u = Scsi.Unit.ram("wsu", 512, 4096, 4 << 20)) {
            u.run(ten(WRITE_10, 0, 0, 1024), Scsi.pattern(2, 1024 * 512)).assertGood();
            long before = u.ram().allocatedBytes();
            u.run(sixteen(WRITE_SAME_16, 0x08, 0, 128), new byte[512]).assertGood();
            assertThat(u.ram().allocatedBytes()).isEqualTo(before - 65536);
            assertThat(u.run(ten(READ_10, 0, 0, 128), null).data()).isEqualTo(new byte[128 * 512]);
            Scsi.Reply ndob = u.run(sixteen(WRITE_SAME_16, 0x09, 128, 128), null).assertGood();
            assertThat(ndob.transferLength()).isZero();
            assertThat(u.ram().allocatedBytes()).isEqualTo(before - 2 * 65536);
            u.run(ten(WRITE_SAME_10, 0x08, 300, 10), new byte[512]).assertGood();
            assertThat(u.run(ten(READ_10, 0, 300, 10), null).data()).isEqualTo(new byte[10 * 512]);
        }
    }

    @Test
    void writeSameRepeatsAPatternAcrossPieces() {
        try (Scsi.Unit u = Scsi.Unit.ram("wsp", 512, 512, 4 << 20)) {
            byte[] block = Scsi.pattern(3, 512);
            int blocks = 2048 + 2048 + 100;                               // pieces are 1 MiB = 2048 blocks
            Scsi.Reply r = u.run(ten(WRITE_SAME_10, 0, 7, blocks), block).assertGood();
            assertThat(r.transferLength()).isEqualTo(512);
            byte[] back = u.run(sixteen(0x88, 0, 6, blocks + 2), null).data();
            assertThat(Arrays.copyOfRange(back, 0, 512)).isEqualTo(new byte[512]);
            for (int i = 1; i <= blocks; i++) {
                assertThat(Arrays.copyOfRange(back, i * 512, (i + 1) * 512)).as("block %d", i).isEqualTo(block);
            }
            assertThat(Arrays.copyOfRange(back, (blocks + 1) * 512, (blocks + 2) * 512)).isEqualTo(new byte[512]);
            // UNMAP bit with non-zero data: the data is written (it would not read back as zeros)
            u.run(sixteen(WRITE_SAME_16, 0x08, 7000, 3), block).assertGood();
            assertThat(Arrays.copyOfRange(u.run(ten(READ_10, 0, 7002, 1), null).data(), 0, 512)).isEqualTo(block);
        }
    }

    /**
     * Above 4 KiB WRITE SAME is not advertised (DESIGN §9), so it is not executed either: INVALID COMMAND
     * OPERATION CODE like any unsupported command (was executed before issue 10; advertise == enforce).
     */
    @Test
    void writeSameAbove4kIsRefusedLikeTheUnsupportedCommandItIsAdvertisedAs() {
        try (Scsi.Unit u = Scsi.Unit.ram("ws64k", 65536, 65536, 4 << 20)) {
            byte[] block = Scsi.pattern(4, 65536);
            u.run(sixteen(WRITE_SAME_16, 0, 2, 20), block).assertCheck(0x5, 0x20, 0x00).assertCdbField(0, 7);
            u.run(ten(WRITE_SAME_10, 0x08, 2, 20), block).assertCheck(0x5, 0x20, 0x00).assertCdbField(0, 7);
            assertThat(u.run(ten(READ_10, 0, 2, 1), null).data()).isEqualTo(new byte[65536]); // nothing written
        }
    }

    @Test
    void writeSamePatternOnTheFileBackendCompletesAcrossWorkerThreads(@TempDir Path dir) throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (BlockDevice device = FileBlockDevice.open("wsfile", dir.resolve("d.img"), new BlockGeometry(4096, 4096, 1024),
                new FileBlockDevice.Options(true, false, false), io)) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            byte[] block = Scsi.pattern(6, 4096);
            run(target, A, 0, ten(WRITE_SAME_10, 0, 1, 600), block).assertGood();   // 3 pieces of 256 blocks
            byte[] back = run(target, A, 0, ten(READ_10, 0, 0, 602), null).data();
            assertThat(Arrays.copyOfRange(back, 0, 4096)).isEqualTo(new byte[4096]);
            for (int i = 1; i <= 600; i++) {
                assertThat(Arrays.copyOfRange(back, i * 4096, (i + 1) * 4096)).as("block %d", i).isEqualTo(block);
            }
            assertThat(Arrays.copyOfRange(back, 601 * 4096, 602 * 4096)).isEqualTo(new byte[4096]);
            run(target, A, 0, ten(WRITE_SAME_10, 0, 1000, 30), block).assertCheck(0x5, 0x21, 0x00);
        } finally {
            io.shutdown();
        }
    }

    @Test
    void writeSameErrors() {
        try (Scsi.Unit u = Scsi.Unit.ram("wserr", 512, 512, 1 << 20)) {
            byte[] block = new byte[512];
            u.run(ten(WRITE_SAME_10, 0, 0, 0), block).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sixteen(WRITE_SAME_16, 0, 0, 0), block).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(WRITE_SAME_16, 0, 0, (1L << 30) / 512 + 1), block)
                    .assertCheck(0x5, 0x21, 0x00);                  // > MAXIMUM WRITE SAME LENGTH, past the end: the range
            u.run(ten(WRITE_SAME_10, 0, 2040, 9), block).assertCheck(0x5, 0x21, 0x00);
            u.run(ten(WRITE_SAME_10, 0, 0, 1), new byte[100]).assertCheck(0x5, 0x0E, 0x03);
            u.run(ten(WRITE_SAME_10, 0x10, 0, 1), block).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4);
        }
    }

    /**
     * Issue 10 item 7: the RAM budget running out is a resource shortage — BUSY without sense (SAM-5
     * §5.3.1), never MEDIUM ERROR nor the permanent SPACE ALLOCATION FAILED — and once another write's
     * unmap refilled the budget the same command succeeds.
     */
    @Test
    void writeSamePatternWithTheBudgetExhaustedIsBusyAndSucceedsOnceMemoryIsFreed() {
        try (RamBlockDevice device = new RamBlockDevice("wsfull", new BlockGeometry(4096, 4096, 1024), false,
                new MemoryBudget(2 * 65536))) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            Scsi.Reply busy = run(target, A, 0, ten(WRITE_SAME_10, 0, 0, 64), Scsi.pattern(5, 4096));
            assertThat(busy.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.BUSY);
            assertThat(busy.sense()).isNull();
            run(target, A, 0, ten(WRITE_SAME_10, 0x08, 0, 64), new byte[4096]).assertGood(); // unmap frees it
            run(target, A, 0, ten(WRITE_SAME_10, 0, 0, 32), Scsi.pattern(5, 4096)).assertGood();
        }
    }

}
