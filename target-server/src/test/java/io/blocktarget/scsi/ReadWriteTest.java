package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.twelve;
import static org.assertj.core.api.Assertions.assertThat;

/** READ / WRITE (6/10/12/16), VERIFY, WRITE AND VERIFY, SYNCHRONIZE CACHE over real backends. */
class ReadWriteTest {
    private static final int READ_6 = 0x08, WRITE_6 = 0x0A, READ_10 = 0x28, WRITE_10 = 0x2A, READ_12 = 0xA8,
            WRITE_12 = 0xAA, READ_16 = 0x88, WRITE_16 = 0x8A, VERIFY_10 = 0x2F, VERIFY_16 = 0x8F,
            WRITE_AND_VERIFY_10 = 0x2E, WRITE_AND_VERIFY_16 = 0x8E, SYNC_10 = 0x35, SYNC_16 = 0x91;

    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    void roundTripsAtEveryBlockSizeInEveryCdbSize(int lbs) {
        try (Scsi.Unit u = Scsi.Unit.ram("rw", lbs, lbs, 64L * 65536)) {
            long last = u.device().geometry().blockCount() - 1;
            byte[] two = Scsi.pattern(lbs, 2 * lbs);
            Scsi.Reply w6 = u.run(Scsi.six(WRITE_6, 1, 2), two).assertGood();
            assertThat(w6.transferLength()).isEqualTo(2L * lbs);
            assertThat(u.run(Scsi.six(READ_6, 1, 2), null).assertGood().data()).isEqualTo(two);

            byte[] one = Scsi.pattern(lbs + 1, lbs);
            u.run(ten(WRITE_10, 0, last, 1), one).assertGood();
            Scsi.Reply r10 = u.run(ten(READ_10, 0, last, 1), null).assertGood();
            assertThat(r10.data()).isEqualTo(one);
            assertThat(r10.transferLength()).isEqualTo(lbs);

            byte[] three = Scsi.pattern(lbs + 3, 3 * lbs);
            u.run(twelve(WRITE_12, 0, 10, 3), three).assertGood();
            assertThat(u.run(twelve(READ_12, 0, 10, 3), null).assertGood().data()).isEqualTo(three);

            byte[] fua = Scsi.pattern(lbs + 4, 4 * lbs);
            u.run(sixteen(WRITE_16, 0x08, 20, 4), fua).assertGood();
            assertThat(u.run(sixteen(READ_16, 0x08, 20, 4), null).assertGood().data()).isEqualTo(fua);
            // blocks written by one CDB size read back through another
            assertThat(u.run(sixteen(READ_16, 0, 1, 2), null).data()).isEqualTo(two);
        }
    }

    @Test
    void read6LengthZeroMeans256Blocks() {
        try (Scsi.Unit u = Scsi.Unit.ram("r6", 512, 512, 1 << 20)) {
            Scsi.Reply r = u.run(Scsi.six(READ_6, 0, 0), null).assertGood();
            assertThat(r.data()).hasSize(256 * 512);
        }
    }

    @Test
    void zeroLengthTransfersAreGoodAndMoveNothing() {
        try (Scsi.Unit u = Scsi.Unit.ram("zero", 4096, 4096, 1 << 20)) {
            Scsi.Reply r = u.run(ten(READ_10, 0, 5, 0), null).assertGood();
            assertThat(r.data()).isNull();
            assertThat(r.transferLength()).isZero();
            u.run(ten(WRITE_10, 0, 5, 0), null).assertGood();
        }
    }

    @Test
    void outOfRangeIsLbaOutOfRangeAtBothEndsAndBeyond2To63() {
        try (Scsi.Unit u = Scsi.Unit.ram("range", 4096, 4096, 1 << 20)) {
            long blocks = u.device().geometry().blockCount();
            u.run(ten(READ_10, 0, blocks - 1, 2), null).assertCheck(0x5, 0x21, 0x00);
            u.run(ten(READ_10, 0, blocks, 1), null).assertCheck(0x5, 0x21, 0x00);
            u.run(sixteen(READ_16, 0, -2, 1), null).assertCheck(0x5, 0x21, 0x00);
            u.run(sixteen(READ_16, 0, Long.MAX_VALUE, 1), null).assertCheck(0x5, 0x21, 0x00);
            u.run(ten(WRITE_10, 0, blocks, 1), new byte[4096]).assertCheck(0x5, 0x21, 0x00);
            u.run(ten(READ_10, 0, blocks - 1, 1), null).assertGood();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 65536})
    void moreThanMaximumTransferLengthIsInvalidFieldAtTheLengthField(int lbs) {
        try (Scsi.Unit u = Scsi.Unit.ram("max", lbs, lbs, 64L << 20)) {
            int max = (8 << 20) / lbs;
            assertThat(u.run(ten(READ_10, 0, 0, max), null).assertGood().data()).hasSize(8 << 20);
            u.run(ten(READ_10, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sixteen(READ_16, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00)
                    .assertCdbField(10, 7);
            // past the end as well: the range answers first (CheckOrderTest)
            u.run(sixteen(READ_16, 0, 0, 0xFFFF_FFFFL), null).assertCheck(0x5, 0x21, 0x00);
            u.run(twelve(WRITE_12, 0, 0, max + 1), new byte[lbs]).assertCheck(0x5, 0x24, 0x00)
                    .assertCdbField(6, 7);
        }
    }

    @Test
    void dataOutShorterThanTheTransferWritesTheWholeBlocksThatArrived() {
        try (Scsi.Unit u = Scsi.Unit.ram("short", 4096, 4096, 1 << 20)) {
            // RFC 7143 §11.4.5.1 / SAM-5 §5.4.3 (Task.writeData): GOOD, the transport reports the overflow
            byte[] first = Scsi.pattern(5, 4096);
            assertThat(u.run(ten(WRITE_10, 0, 4, 2), first).assertGood().transferLength()).isEqualTo(8192);
            assertThat(u.run(ten(READ_10, 0, 4, 2), null).data()).isEqualTo(concat(first, new byte[4096]));
            assertThat(u.run(ten(WRITE_10, 0, 0, 1), null).assertGood().transferLength()).isEqualTo(4096);
            // nothing was written
            assertThat(u.run(ten(READ_10, 0, 0, 1), null).data()).isEqualTo(new byte[4096]);
            // more data than needed: the first blocks are written, the transport reports the residual
            byte[] data = Scsi.pattern(9, 3 * 4096);
            Scsi.Reply r = u.run(ten(WRITE_10, 0, 0, 2), data).assertGood();
            assertThat(r.transferLength()).isEqualTo(8192);
            assertThat(u.run(ten(READ_10, 0, 0, 3), null).data())
                    .isEqualTo(concat(Arrays.copyOf(data, 8192), new byte[4096]));
        }
    }

    @Test
    void readOnlyLunRefusesEveryWriteTypeCommandWithWriteProtected() {
        try (RamBlockDevice device = new RamBlockDevice("ro", new BlockGeometry(512, 4096, 2048), true,
                new MemoryBudget(1 << 20))) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            byte[] block = new byte[512];
            run(target, A, 0, Scsi.six(WRITE_6, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, ten(WRITE_10, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, twelve(WRITE_12, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, sixteen(WRITE_16, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, ten(WRITE_AND_VERIFY_10, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, sixteen(WRITE_AND_VERIFY_16, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, ten(0x41, 0, 0, 1), block).assertCheck(0x7, 0x27, 0x00);          // WRITE SAME(10)
            run(target, A, 0, sixteen(0x93, 0x08, 0, 1), block).assertCheck(0x7, 0x27, 0x00);   // WRITE SAME(16)
            run(target, A, 0, Scsi.cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0), new byte[24]).assertCheck(0x7, 0x27, 0x00);
            byte[] caw = Scsi.cdb(0x89, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
            run(target, A, 0, caw, new byte[1024]).assertCheck(0x7, 0x27, 0x00);
            run(target, A, 0, ten(READ_10, 0, 0, 1), null).assertGood();
            run(target, A, 0, ten(SYNC_10, 0, 0, 0), null).assertGood();
        }
    }

    /** Issue 10 item 7: the shared RAM budget is a resource, not the medium: BUSY (retry later), no sense data. */
    @Test
    void exhaustedMemoryBudgetIsBusyNotAMediumOrSpaceAllocationError() {
        try (RamBlockDevice device = new RamBlockDevice("tiny", new BlockGeometry(4096, 4096, 1024), false,
                new MemoryBudget(64 * 1024))) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            run(target, A, 0, ten(WRITE_10, 0, 0, 1), Scsi.pattern(1, 4096))
                    .assertGood();                                          // first 64 KiB chunk fits
            Scsi.Reply busy = run(target, A, 0, ten(WRITE_10, 0, 16, 1), Scsi.pattern(2, 4096));
            assertThat(busy.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.BUSY);
            assertThat(busy.sense()).isNull();
        }
    }

    @Test
    void verifyWithoutByteCheckChecksTheRangeOnly() {
        try (Scsi.Unit u = Scsi.Unit.ram("v0", 512, 512, 1 << 20)) {
            u.run(ten(VERIFY_10, 0, 0, 2048), null).assertGood();
            u.run(ten(VERIFY_10, 0, 2047, 2), null).assertCheck(0x5, 0x21, 0x00);
            u.run(sixteen(VERIFY_16, 0, 1, 8), null).assertGood();
        }
    }

    @Test
    void verifyWithByteCheckReportsTheOffsetOfTheFirstDifference() {
        try (Scsi.Unit u = Scsi.Unit.ram("v1", 512, 512, 1 << 20)) {
            byte[] data = Scsi.pattern(3, 1024);
            u.run(ten(WRITE_10, 0, 4, 2), data).assertGood();
            u.run(ten(VERIFY_10, 0x02, 4, 2), data).assertGood();
            byte[] wrong = data.clone();
            wrong[700] ^= 1;
            Scsi.Reply r = u.run(ten(VERIFY_10, 0x02, 4, 2), wrong).assertCheck(0xE, 0x1D, 0x00);
            assertThat(r.information()).isEqualTo(700);
            u.run(sixteen(VERIFY_16, 0x02, 4, 2), wrong).assertCheck(0xE, 0x1D, 0x00);
            // BYTCHK 11b: one block against every block
            byte[] same = Scsi.pattern(4, 512);
            u.run(ten(WRITE_10, 0, 10, 2), concat(same, same)).assertGood();
            u.run(ten(VERIFY_10, 0x06, 10, 2), same).assertGood();
            Scsi.Reply second = u.run(ten(VERIFY_10, 0x06, 9, 2), same).assertCheck(0xE, 0x1D, 0x00);
            assertThat(second.information()).isLessThan(512);
            // BYTCHK with too little data-out
            u.run(ten(VERIFY_10, 0x02, 4, 2), new byte[512]).assertCheck(0x5, 0x0E, 0x03);
        }
    }

    @Test
    void verifyFindsTheFirstDifferenceAtAnyOffset() {
        try (Scsi.Unit u = Scsi.Unit.ram("vpos", 512, 512, 1 << 20)) {
            byte[] data = Scsi.pattern(8, 1024);
            u.run(ten(WRITE_10, 0, 0, 2), data).assertGood();
            for (int at : new int[] {0, 1, 7, 8, 9, 511, 512, 1016, 1023}) {
                byte[] wrong = data.clone();
                wrong[at] ^= 0x40;
                wrong[Math.min(at + 3, 1023)] ^= 0x01;                  // a later difference does not matter
                assertThat(u.run(ten(VERIFY_10, 0x02, 0, 2), wrong).assertCheck(0xE, 0x1D, 0x00).information())
                        .as("offset %d", at).isEqualTo(at);
            }
        }
    }

    /** SBC-4 §6.6.4 lists VERIFY among the commands MAXIMUM TRANSFER LENGTH bounds, BYTCHK or not (issue 10). */
    @Test
    void verifyIsBoundByTheMaximumTransferLengthWithOrWithoutByteCheck() {
        try (Scsi.Unit u = Scsi.Unit.ram("vlong", 512, 512, 64 << 20)) {
            u.run(sixteen(VERIFY_16, 0, 0, 16384), null).assertGood();
            u.run(sixteen(VERIFY_16, 0, 0, 16385), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(VERIFY_16, 0x02, 0, 16385), new byte[16385 * 512]).assertCheck(0x5, 0x24, 0x00)
                    .assertCdbField(10, 7);
        }
    }

    @Test
    void acaTaskAttributeIsRefused() {
        try (Scsi.Unit u = Scsi.Unit.ram("aca", 512, 512, 1 << 20)) {
            Scsi.run(u.target(), A, 0, ten(READ_10, 0, 0, 1), null, 512, TaskAttribute.ACA).assertCheck(0x5, 0x24, 0x00);
            Scsi.run(u.target(), A, 0, ten(READ_10, 0, 0, 1), null, 512, TaskAttribute.ORDERED).assertGood();
            Scsi.run(u.target(), A, 0, ten(READ_10, 0, 0, 1), null, 512, TaskAttribute.HEAD_OF_QUEUE).assertGood();
        }
    }

    @Test
    void writeAndVerifyWritesAndComparesBack() {
        try (Scsi.Unit u = Scsi.Unit.ram("wv", 4096, 4096, 1 << 20)) {
            byte[] data = Scsi.pattern(5, 8192);
            u.run(ten(WRITE_AND_VERIFY_10, 0x02, 3, 2), data).assertGood();
            assertThat(u.run(ten(READ_10, 0, 3, 2), null).data()).isEqualTo(data);
            byte[] more = Scsi.pattern(6, 4096);
            u.run(sixteen(WRITE_AND_VERIFY_16, 0, 7, 1), more).assertGood();
            assertThat(u.run(ten(READ_10, 0, 7, 1), null).data()).isEqualTo(more);
        }
    }

    @Test
    void nullBackendReadsZerosAndAcceptsWrites() {
        try (Scsi.Unit u = Scsi.Unit.of(new NullBlockDevice("null", new BlockGeometry(4096, 4096, 1L << 30), false))) {
            u.run(ten(WRITE_10, 0, 0, 2), Scsi.pattern(1, 8192)).assertGood();
            assertThat(u.run(ten(READ_10, 0, 0, 2), null).assertGood().data()).isEqualTo(new byte[8192]);
            u.run(ten(SYNC_10, 0, 0, 0), null).assertGood();
        }
    }

    @Test
    void fileBackendCompletesOnWorkerThreadsAndFlushes(@TempDir Path dir) throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 16384, 256);
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (BlockDevice device = FileBlockDevice.open("file", dir.resolve("disk.img"), g,
                new FileBlockDevice.Options(true, false, false), io)) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            byte[] data = Scsi.pattern(7, 3 * 4096);
            run(target, A, 0, sixteen(WRITE_16, 0x08, 100, 3), data).assertGood();
            run(target, A, 0, ten(WRITE_10, 0, 200, 1), data).assertGood();
            assertThat(run(target, A, 0, ten(READ_10, 0, 100, 3), null).assertGood().data()).isEqualTo(data);
            run(target, A, 0, ten(SYNC_10, 0, 0, 0), null).assertGood();
            run(target, A, 0, sixteen(SYNC_16, 0x02, 0, 256), null).assertGood();
            run(target, A, 0, ten(SYNC_10, 0, 257, 0), null).assertCheck(0x5, 0x21, 0x00);
        } finally {
            io.shutdown();
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
