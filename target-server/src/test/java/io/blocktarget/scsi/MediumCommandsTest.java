package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.twelve;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands issue 10 adds: VERIFY(12), WRITE AND VERIFY(12), PRE-FETCH(10/16), READ DEFECT
 * DATA(10/12) (SBC-4) and REPORT TARGET PORT GROUPS (SPC-4), executed against a RAM disk.
 */
class MediumCommandsTest {
    private static final int WRITE_10 = 0x2A, READ_10 = 0x28, VERIFY_12 = 0xAF, WRITE_AND_VERIFY_12 = 0xAE;
    private static final int PRE_FETCH_10 = 0x34, PRE_FETCH_16 = 0x90;

    // ---- VERIFY(12) / WRITE AND VERIFY(12), SBC-4 §5.32, §5.39 ----

    @Test
    void verify12ChecksTheRangeComparesAndComparesOneBlockAgainstAll() {
        try (Scsi.Unit u = Scsi.Unit.ram("v12", 512, 512, 1 << 20)) {
            byte[] data = Scsi.pattern(12, 2048);
            u.run(ten(WRITE_10, 0, 8, 4), data).assertGood();
            u.run(twelve(VERIFY_12, 0, 8, 4), null).assertGood();                       // BYTCHK 00b: range only
            u.run(twelve(VERIFY_12, 0, 2047, 2), null).assertCheck(0x5, 0x21, 0x00);
            Scsi.Reply same = u.run(twelve(VERIFY_12, 0x02, 8, 4), data).assertGood();  // BYTCHK 01b
            assertThat(same.transferLength()).isEqualTo(2048);
            byte[] wrong = data.clone();
            wrong[1500] ^= 0x10;
            assertThat(u.run(twelve(VERIFY_12, 0x02, 8, 4), wrong).assertCheck(0xE, 0x1D, 0x00).information())
                    .isEqualTo(1500);
            byte[] block = Scsi.pattern(13, 512);
            u.run(ten(WRITE_10, 0, 100, 3), ReadWriteTest.concat(block, ReadWriteTest.concat(block, block)))
                    .assertGood();
            u.run(twelve(VERIFY_12, 0x06, 100, 3), block).assertGood();                 // BYTCHK 11b
            u.run(twelve(VERIFY_12, 0x06, 100, 4), block).assertCheck(0xE, 0x1D, 0x00);
            u.run(twelve(VERIFY_12, 0x02, 8, 4), new byte[512]).assertCheck(0x5, 0x0E, 0x03); // short data-out
            u.run(twelve(VERIFY_12, 0, 0, 16385), null).assertCheck(0x5, 0x21, 0x00);     // past the end first
            u.run(twelve(VERIFY_12, 0, 0, 0), null).assertGood();
        }
        try (Scsi.Unit big = Scsi.Unit.ram("v12big", 512, 512, 16 << 20)) {              // > MAXIMUM TRANSFER LENGTH
            big.run(twelve(VERIFY_12, 0, 0, 16385), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(6, 7);
        }
    }

    @Test
    void writeAndVerify12WritesThenComparesAndIsWriteProtectedOnAReadOnlyUnit() {
        try (Scsi.Unit u = Scsi.Unit.ram("wv12", 4096, 4096, 1 << 20)) {
            byte[] data = Scsi.pattern(14, 3 * 4096);
            Scsi.Reply r = u.run(twelve(WRITE_AND_VERIFY_12, 0x02, 5, 3), data).assertGood();
            assertThat(r.transferLength()).isEqualTo(3 * 4096);
            assertThat(u.run(ten(READ_10, 0, 5, 3), null).data()).isEqualTo(data);
            u.run(twelve(WRITE_AND_VERIFY_12, 0, 5, 1), Scsi.pattern(15, 4096)).assertGood(); // BYTCHK 0
            u.run(twelve(WRITE_AND_VERIFY_12, 0, 255, 2), new byte[8192]).assertCheck(0x5, 0x21, 0x00);
            u.run(twelve(WRITE_AND_VERIFY_12, 0, 0, 2049), new byte[4096]).assertCheck(0x5, 0x21, 0x00);
        }
        try (Scsi.Unit big = Scsi.Unit.ram("wv12big", 4096, 4096, 16 << 20)) {           // > MAXIMUM TRANSFER LENGTH
            big.run(twelve(WRITE_AND_VERIFY_12, 0, 0, 2049), new byte[4096]).assertCheck(0x5, 0x24, 0x00)
                    .assertCdbField(6, 7);
        }
        try (Scsi.Unit ro = Scsi.Unit.of(new io.blocktarget.block.ram.RamBlockDevice("ro12",
                new io.blocktarget.block.BlockGeometry(512, 512, 64), true, new io.blocktarget.block.ram.MemoryBudget(1 << 20)))) {
            ro.run(twelve(WRITE_AND_VERIFY_12, 0, 0, 1), new byte[512]).assertCheck(0x7, 0x27, 0x00);
            ro.run(twelve(VERIFY_12, 0, 0, 1), null).assertGood();
        }
    }

    // ---- PRE-FETCH(10/16), SBC-4 §5.12-5.13 ----

    private static byte[] preFetch10(int flags, long lba, int length) {
        return ten(PRE_FETCH_10, flags, lba, length);
    }

    @Test
    void preFetchThatFitsIsConditionMetAndTheRestOfTheMediumBeyondTheLimitIsGood() {
        try (Scsi.Unit u = Scsi.Unit.ram("pf", 512, 512, 16 << 20)) {      // 32768 blocks, limit 16384
            long max = u32(u.run(inquiry(true, 0xB0, 255), null).data(), 16);
            assertThat(max).isEqualTo(16384);
            Scsi.Reply met = u.run(preFetch10(0, 0, 64), null);
            assertThat(met.status()).isEqualTo(ScsiStatus.CONDITION_MET);
            assertThat(met.sense()).isNull();
            assertThat(met.data()).isNull();
            assertThat(u.run(sixteen(PRE_FETCH_16, 0, 0, max), null).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            u.run(sixteen(PRE_FETCH_16, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            // PREFETCH LENGTH 0 = to the last block: 32768 - 100 blocks do not all fit, so GOOD
            u.run(preFetch10(0, 100, 0), null).assertGood();
            // ... and from a point where the rest fits: CONDITION MET
            assertThat(u.run(preFetch10(0, 32768 - 16, 0), null).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            u.run(preFetch10(0, 32767, 2), null).assertCheck(0x5, 0x21, 0x00);
            u.run(preFetch10(0, 32768, 0), null).assertCheck(0x5, 0x21, 0x00);
        }
    }

    @Test
    void preFetchWithImmedAnswersAtOnceWithTheSameStatusAndReadsNothingIntoTheReply() {
        try (Scsi.Unit u = Scsi.Unit.ram("pfi", 4096, 4096, 1 << 20)) {
            Scsi.Reply r = u.run(sixteen(PRE_FETCH_16, 0x02, 0, 16), null);
            assertThat(r.status()).isEqualTo(ScsiStatus.CONDITION_MET);
            assertThat(r.data()).isNull();
            assertThat(u.ram().allocatedBytes()).isZero();                   // a prefetch allocates nothing
        }
    }

    @Test
    void preFetchIsAReadUnderPersistentReservations() {
        try (Scsi.Unit u = Scsi.Unit.ram("pfr", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            Scsi.run(u.target(), A, 0, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24),
                    ReservationsTest.params(0, 0xAAL, 0)).assertGood();
            Scsi.run(u.target(), A, 0, ReservationsTest.prOut(ReservationsTest.RESERVE, ReservationsTest.EA, 24),
                    ReservationsTest.params(0xAAL, 0, 0)).assertGood();          // EXCLUSIVE ACCESS
            assertThat(Scsi.run(u.target(), B, 0, preFetch10(0, 0, 1), null).status())
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(Scsi.run(u.target(), B, 0, readDefectData10(0x08, 8), null).status())
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            assertThat(u.run(preFetch10(0, 0, 1), null).status()).isEqualTo(ScsiStatus.CONDITION_MET);
            // REPORT TARGET PORT GROUPS is allowed under every reservation (SPC-4 Table 60)
            Scsi.run(u.target(), B, 0, rtpg(0, 64), null).assertGood();
        }
    }

    // ---- READ DEFECT DATA(10/12), SBC-4 §5.18-5.19 ----

    static byte[] readDefectData10(int byte2, int allocation) {
        return cdb(0x37, 0, byte2, 0, 0, 0, 0, allocation >> 8, allocation, 0);
    }

    static byte[] readDefectData12(int byte1, long index, long allocation) {
        return cdb(0xB7, byte1, (int) (index >> 24), (int) (index >> 16), (int) (index >> 8), (int) index,
                (int) (allocation >> 24), (int) (allocation >> 16), (int) (allocation >> 8), (int) allocation, 0, 0);
    }

    @Test
    void readDefectDataReturnsAnEmptyListInTheRequestedFormatCutToTheAllocationLength() {
        try (Scsi.Unit u = Scsi.Unit.ram("rdd", 512, 512, 1 << 20)) {
            // grown list, long block format (011b): PLISTV 0, GLISTV 1, DEFECT LIST LENGTH 0
            Scsi.Reply g = u.run(readDefectData10(0x0B, 255), null).assertGood();
            assertThat(g.data()).isEqualTo(cdb(0x00, 0x0B, 0x00, 0x00));
            assertThat(g.transferLength()).isEqualTo(4);
            assertThat(u.run(readDefectData10(0x1D, 255), null).assertGood().data()).isEqualTo(cdb(0, 0x1D, 0, 0));
            assertThat(u.run(readDefectData10(0x04, 2), null).assertGood().data()).isEqualTo(cdb(0, 0x04));
            Scsi.Reply none = u.run(readDefectData10(0x00, 0), null).assertGood();
            assertThat(none.transferLength()).isZero();
            // (12): 8-byte header with GENERATION CODE; the index past the (empty) list changes nothing
            assertThat(u.run(readDefectData12(0x18, 0, 64), null).assertGood().data())
                    .isEqualTo(cdb(0x00, 0x18, 0, 0, 0, 0, 0, 0));
            assertThat(u.run(readDefectData12(0x13, 1000, 64), null).assertGood().data())
                    .isEqualTo(cdb(0x00, 0x13, 0, 0, 0, 0, 0, 0));
            assertThat(u.run(readDefectData12(0x08, 0, 5), null).assertGood().data()).hasSize(5);
            u.run(readDefectData10(0x07, 255), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 2);
        }
    }

    // ---- REPORT TARGET PORT GROUPS, SPC-4 §6.36 ----

    static byte[] rtpg(int format, int allocation) {
        return cdb(0xA3, 0x0A, format << 5, 0, 0, 0, allocation >> 24, allocation >> 16, allocation >> 8,
                allocation, 0, 0);
    }

    @Test
    void reportTargetPortGroupsIsOneActiveOptimizedGroupAgreeingWithInquiry() {
        // one portal: group 1 (no PREF), active/optimized (0h), every state but LBD supported (CFh), STATUS CODE 0
        try (Scsi.Unit u = Scsi.Unit.ram("rtpg", 512, 512, 1 << 20)) {
            byte[] standard = u.run(inquiry(false, 0, 96), null).assertGood().data();
            assertThat((standard[5] >> 4) & 0x3).as("TPGS: implicit ALUA (explicit only with the knob)").isEqualTo(0b01);
            byte[] plain = u.run(rtpg(0, 256), null).assertGood().data();
            assertThat(plain).isEqualTo(cdb(0, 0, 0, 12, 0x00, 0xCF, 0, 1, 0, 0, 0, 1, 0, 0, 0, A.relativeTargetPort()));
            byte[] ext = u.run(rtpg(1, 256), null).assertGood().data();
            assertThat(Arrays.copyOfRange(ext, 0, 8)).isEqualTo(cdb(0, 0, 0, 16, 0x10, 0, 0, 0));
            assertThat(Arrays.copyOfRange(ext, 8, 20)).isEqualTo(Arrays.copyOfRange(plain, 4, 16));
            // the group and the port are the ones VPD 83h names
            byte[] vpd83 = u.run(inquiry(true, 0x83, 1024), null).assertGood().data();
            assertThat(designator(vpd83, 0x5)).isEqualTo(u16(plain, 6));
            assertThat(designator(vpd83, 0x4)).isEqualTo(u16(plain, 14));
            Scsi.Reply cut = u.run(rtpg(0, 6), null).assertGood();
            assertThat(cut.data()).isEqualTo(Arrays.copyOf(plain, 6));
            u.run(rtpg(2, 256), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
        }
    }

    /** The 16-bit value at the end of the first target-port designator of {@code type} in VPD 83h. */
    private static int designator(byte[] vpd83, int type) {
        for (int at = 4; at < vpd83.length; at += 4 + (vpd83[at + 3] & 0xFF)) {
            if ((vpd83[at + 1] & 0x0F) == type && (vpd83[at + 1] & 0x30) == 0x10) {
                return u16(vpd83, at + 6);
            }
        }
        throw new AssertionError("no designator of type " + type);
    }
}
