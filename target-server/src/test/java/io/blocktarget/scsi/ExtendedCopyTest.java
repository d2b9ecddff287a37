package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * EXTENDED COPY (LID1) between the logical units of one target and RECEIVE COPY RESULTS (SPC-4 §6.4,
 * §6.18): parameter lists built byte by byte from SPC-4 Tables 105, 113 and 126, the way sg_xcopy does.
 */
class ExtendedCopyTest {
    private static final int READ_10 = 0x28, WRITE_10 = 0x2A;
    private final RamBlockDevice lun0 = Scsi.ram("xc0", 512, 4096, 1 << 20);
    private final RamBlockDevice lun1 = Scsi.ram("xc1", 512, 4096, 1 << 20);
    private final RamBlockDevice lun2 = Scsi.ram("xc2-4k", 4096, 4096, 1 << 20);
    private final RamBlockDevice lun3 = new RamBlockDevice("xc3-ro", new BlockGeometry(512, 512, 2048), true,
            new MemoryBudget(1 << 20));
    private final ScsiTarget target = Scsi.target(lun0, lun1, lun2, lun3);

    @BeforeEach
    void ready() {
        for (int lun = 0; lun < 4; lun++) {
            Scsi.ready(target, A, lun);
            Scsi.ready(target, B, lun);
        }
    }

    @AfterEach
    void close() {
        lun0.close();
        lun1.close();
        lun2.close();
        lun3.close();
    }

    /** The 16 NAA designator bytes VPD 83h reports for {@code lun} (its first designator). */
    private byte[] naa(int lun) {
        byte[] vpd = run(target, A, lun, Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
        assertThat(vpd[5] & 0x0F).isEqualTo(3);                        // NAA
        assertThat(vpd[7] & 0xFF).isEqualTo(16);
        return Arrays.copyOfRange(vpd, 8, 24);
    }

    /** Identification descriptor CSCD (SPC-4 Table 113) with the block device parameters (Table 114). */
    static byte[] cscd(byte[] naa, int blockLength) {
        ByteBuffer b = ByteBuffer.allocate(32);
        b.put((byte) 0xE4).put((byte) 0x00).putShort((short) 0);      // type, LU ID TYPE 00b / device type 00h, RIPI
        b.put((byte) 0x01).put((byte) 0x03).put((byte) 0).put((byte) naa.length); // binary; LU, NAA; length
        b.put(naa);
        b.position(28);
        b.put((byte) 0).put((byte) (blockLength >> 16)).putShort((short) blockLength); // PAD 0; DISK BLOCK LENGTH
        return b.array();
    }

    /** Block device to block device segment descriptor (SPC-4 Table 126). */
    static byte[] segment(int source, int destination, int blocks, long sourceLba, long destinationLba) {
        return ByteBuffer.allocate(28).put((byte) 0x02).put((byte) 0).putShort((short) 24)
                .putShort((short) source).putShort((short) destination).putShort((short) 0)
                .putShort((short) blocks).putLong(sourceLba).putLong(destinationLba).array();
    }

    /** Parameter list header (SPC-4 Table 105) followed by the descriptors. */
    static byte[] list(int listId, int flags, byte[][] cscds, byte[]... segments) {
        int cscdLength = cscds.length * 32;
        int segmentLength = segments.length * 28;
        ByteBuffer b = ByteBuffer.allocate(16 + cscdLength + segmentLength);
        b.put((byte) listId).put((byte) flags).putShort((short) cscdLength).putInt(0).putInt(segmentLength).putInt(0);
        for (byte[] c : cscds) {
            b.put(c);
        }
        for (byte[] s : segments) {
            b.put(s);
        }
        return b.array();
    }

    static byte[] xcopy(int length) {
        return cdb(0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, length >> 24, length >> 16, length >> 8, length, 0, 0);
    }

    static byte[] rcr(int sa, int listId, int allocation) {
        return cdb(0x84, sa, listId, 0, 0, 0, 0, 0, 0, 0, allocation >> 24, allocation >> 16, allocation >> 8,
                allocation, 0, 0);
    }

    private Scsi.Reply send(ItNexus nexus, int lun, byte[] list) {
        return run(target, nexus, lun, xcopy(list.length), list);
    }

    @Test
    void copiesBetweenAndWithinLogicalUnitsAndReportsTheStatus() {
        byte[] data = Scsi.pattern(21, 64 * 512);
        run(target, A, 0, ten(WRITE_10, 0, 100, 64), data).assertGood();
        byte[][] cscds = {cscd(naa(0), 512), cscd(naa(1), 512)};
        byte[] list = list(7, 0, cscds,
                segment(0, 1, 32, 100, 0),          // LU 0 -> LU 1
                segment(0, 1, 32, 132, 1000),
                segment(0, 0, 8, 100, 1500));       // within LU 0
        Scsi.Reply r = send(A, 0, list).assertGood();
        assertThat(r.transferLength()).isEqualTo(list.length);
        assertThat(run(target, A, 1, ten(READ_10, 0, 0, 32), null).data()).isEqualTo(Arrays.copyOf(data, 32 * 512));
        assertThat(run(target, A, 1, ten(READ_10, 0, 1000, 32), null).data())
                .isEqualTo(Arrays.copyOfRange(data, 32 * 512, 64 * 512));
        assertThat(run(target, A, 0, ten(READ_10, 0, 1500, 8), null).data()).isEqualTo(Arrays.copyOf(data, 8 * 512));
        // COPY STATUS for list 7 of this nexus: completed without errors, 3 segments, 72 blocks of bytes
        assertThat(run(target, A, 0, rcr(0x00, 7, 64), null).assertGood().data())
                .isEqualTo(cdb(0, 0, 0, 8, 0x01, 0, 3, 0x00, 0, 0, 0x90, 0x00));
        // another nexus, or another list identifier, has no such copy
        run(target, B, 0, rcr(0x00, 7, 64), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
        run(target, A, 0, rcr(0x00, 8, 64), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
        // LIST ID USAGE 11b: nothing is held
        send(A, 0, list(0, 0x18, cscds, segment(0, 1, 1, 0, 0))).assertGood();
        run(target, A, 0, rcr(0x00, 0, 64), null).assertCheck(0x5, 0x24, 0x00);
    }

    @Test
    void operatingParametersAreTheLimitsThatAreEnforced() {
        byte[] d = run(target, A, 0, rcr(0x03, 0, 256), null).assertGood().data();
        assertThat(d).isEqualTo(cdb(0, 0, 0, 42,             // AVAILABLE DATA = 46 - 4
                1, 0, 0, 0,                                  // SNLID: LIST ID USAGE 11b is accepted
                0, 16, 0, 16,                                // MAXIMUM CSCD / SEGMENT DESCRIPTOR COUNT
                0, 0, 0x04, 0x00,                            // MAXIMUM DESCRIPTOR LIST LENGTH 1024
                0, 0x80, 0, 0,                               // MAXIMUM SEGMENT LENGTH 8 MiB
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,          // no inline / held data, no stream devices
                0, 0, 0, 16, 16, 0, 0, 0, 0, 0, 0,           // TOTAL / MAXIMUM CONCURRENT COPIES 16, granularities
                2, 0x02, 0xE4));                             // implemented descriptor types
        int maxCscds = u16(d, 8), maxSegments = u16(d, 10);
        // SNLID = 1 promises a list without identifier (LIST ID USAGE 11b, LIST IDENTIFIER 0) is accepted
        send(A, 0, list(0, 0x18, new byte[][] {cscd(naa(0), 512)}, segment(0, 0, 1, 0, 1))).assertGood();
        byte[] c = cscd(naa(0), 512);
        byte[][] atLimit = new byte[maxCscds][];
        Arrays.fill(atLimit, c);
        send(A, 0, list(1, 0, atLimit, segment(15, 0, 1, 0, 1))).assertGood();
        byte[][] above = new byte[maxCscds + 1][];
        Arrays.fill(above, c);
        send(A, 0, list(1, 0, above)).assertCheck(0x5, 0x26, 0x06).assertParameterField(2, 7);
        byte[][] one = {c};
        byte[][] segs = new byte[maxSegments][];
        Arrays.fill(segs, segment(0, 0, 1, 0, 1));
        send(A, 0, list(2, 0, one, segs)).assertGood();
        byte[][] tooMany = new byte[maxSegments + 1][];
        Arrays.fill(tooMany, segment(0, 0, 1, 0, 1));
        send(A, 0, list(2, 0, one, tooMany)).assertCheck(0x5, 0x26, 0x08).assertParameterField(8, 7);
        long maxSegmentBlocks = u32(d, 16) / 512;                   // 16384 blocks: larger than the field? no, 16 bits
        assertThat(maxSegmentBlocks).isEqualTo(16384);
        run(target, A, 0, ten(WRITE_10, 0, 0, 2048), Scsi.pattern(3, 2048 * 512)).assertGood();
        // a segment at the limit fits the 1 MiB disks only partly: 2048 blocks; above the limit is refused first
        byte[][] big = {cscd(naa(0), 512)};
        send(A, 0, list(3, 0, big, segment(0, 0, 16385, 0, 0))).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(16 + 32 + 10, 7);
        // then the range, found when the segment is processed: COPY ABORTED at segment 0, SOURCE LBA (byte 12)
        assertCopyAborted(send(A, 0, list(3, 0, big, segment(0, 0, 16384, 0, 0))), 0x21, 0x00, 0, 0xAF000C);
        // the whole list may not pass MAXIMUM DESCRIPTOR LIST LENGTH
        run(target, A, 0, xcopy(16 + 1025), new byte[16 + 1025]).assertCheck(0x5, 0x1A, 0x00).assertCdbField(10, 7);
    }

    @Test
    void descriptorErrorsPointAtTheField() {
        byte[] c0 = cscd(naa(0), 512);
        byte[] unknown = cscd(new byte[16], 512);
        send(A, 0, list(1, 0, new byte[][] {c0, unknown}, segment(0, 1, 1, 0, 0)))
                .assertCheck(0xA, 0x0D, 0x02);                                      // COPY ABORTED, not reachable
        byte[] otherType = c0.clone();
        otherType[0] = (byte) 0xE0;                                                 // Fibre Channel N_Port name
        send(A, 0, list(1, 0, new byte[][] {otherType})).assertCheck(0x5, 0x26, 0x07).assertParameterField(16, 7);
        byte[] streamSegment = segment(0, 0, 1, 0, 0);
        streamSegment[0] = 0x00;                                                    // block -> stream
        send(A, 0, list(1, 0, new byte[][] {c0}, streamSegment)).assertCheck(0x5, 0x26, 0x09)
                .assertParameterField(48, 7);
        send(A, 0, list(1, 0, new byte[][] {cscd(naa(0), 4096)})).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(16 + 29, 7);                                  // DISK BLOCK LENGTH
        send(A, 0, list(1, 0, new byte[][] {c0, cscd(naa(2), 4096)}, segment(0, 1, 8, 0, 0)))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(80 + 6, 7);     // 512 -> 4096: no residue handling
        send(A, 0, list(1, 0, new byte[][] {c0}, segment(0, 0x0800, 1, 0, 0))).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(48 + 6, 7);                                   // reserved CSCD descriptor ID
        send(A, 0, list(1, 0x08, new byte[][] {c0})).assertCheck(0x5, 0x26, 0x00).assertParameterField(1, 4);
        send(A, 0, list(1, 0x18, new byte[][] {c0})).assertCheck(0x5, 0x26, 0x00).assertParameterField(0, 7);
        byte[] inline = list(1, 0, new byte[][] {c0});
        inline[15] = 4;
        send(A, 0, inline).assertCheck(0x5, 0x26, 0x00).assertParameterField(12, 7);
        run(target, A, 0, xcopy(0), null).assertGood();
        run(target, A, 0, xcopy(40), new byte[20]).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
    }

    /**
     * Fixed-format sense (SPC-4 §4.5.3) of an EXTENDED COPY stopped while processing segment
     * {@code segment} (SPC §5.17.7.4): COPY ABORTED, VALID = 0 (nothing of the segment was written),
     * the segment number in the third and fourth bytes of COMMAND-SPECIFIC INFORMATION, and the
     * three SENSE KEY SPECIFIC segment pointer bytes {@code sks} (SKSV, SD, BPV, bit; FIELD POINTER).
     */
    private static void assertCopyAborted(Scsi.Reply r, int asc, int ascq, int segment, int sks) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(r.sense()).isEqualTo(cdb(0x70, 0, 0x0A, 0, 0, 0, 0, 0x0A,
                0, 0, segment >> 8, segment, asc, ascq, 0, sks >> 16, sks >> 8, sks));
    }

    @Test
    void aSegmentNamingNoCscdDescriptorAbortsTheCopyAtThatSegment() {
        byte[] data = Scsi.pattern(41, 2 * 512);
        run(target, A, 0, ten(WRITE_10, 0, 0, 2), data).assertGood();
        byte[][] cscds = {cscd(naa(0), 512), cscd(naa(1), 512)};
        // SPC §6.4.6.1: the CSCD a DESTINATION CSCD DESCRIPTOR ID specifies is not accessible (there is
        // no CSCD descriptor 2): COPY ABORTED, UNREACHABLE COPY TARGET; segment 1, SD = 1, byte 6 bit 7
        assertCopyAborted(send(A, 0, list(9, 0, cscds, segment(0, 1, 1, 0, 0), segment(0, 2, 1, 1, 1))),
                0x08, 0x04, 1, 0xAF0006);
        // segment 0 was processed, segment 1 not; RECEIVE COPY RESULTS: completed with errors, 1 segment, 512 bytes
        assertThat(run(target, A, 1, ten(READ_10, 0, 0, 2), null).data())
                .isEqualTo(concat(Arrays.copyOf(data, 512), new byte[512]));
        assertThat(run(target, A, 0, rcr(0x00, 9, 64), null).assertGood().data())
                .isEqualTo(cdb(0, 0, 0, 8, 0x02, 0, 1, 0x00, 0, 0, 0x02, 0x00));
        // the SOURCE CSCD DESCRIPTOR ID of the first segment: segment 0, byte 4; the last index that fits
        // the list (1) is copied, the first that does not (2) is not
        assertCopyAborted(send(A, 0, list(9, 0, cscds, segment(2, 1, 1, 0, 0))), 0x08, 0x04, 0, 0xAF0004);
        send(A, 0, list(9, 0, cscds, segment(1, 1, 1, 0, 5))).assertGood();
        // IDs that index no list (07FFh is the last that does, SPC Table 148) or are not supported:
        // invalid parameter data, refused before any segment runs (§5.17.7.3) as ILLEGAL REQUEST
        assertCopyAborted(send(A, 0, list(9, 0, cscds, segment(0, 0x07FF, 1, 0, 0))), 0x08, 0x04, 0, 0xAF0006);
        for (int id : new int[] {0x0800, 0xC000, 0xF800, 0xFFFF}) {
            send(A, 0, list(9, 0, cscds, segment(id, 1, 1, 0, 0))).assertCheck(0x5, 0x26, 0x00)
                    .assertParameterField(16 + 64 + 4, 7);
        }
    }

    @Test
    void blocksBeyondACapacityAbortTheCopyAtThatSegment() {
        byte[] data = Scsi.pattern(43, 512);
        run(target, A, 0, ten(WRITE_10, 0, 0, 1), data).assertGood();
        byte[][] cscds = {cscd(naa(0), 512), cscd(naa(1), 512)};
        // the destination (2048 blocks): 2 blocks at 2046 fit, at 2047 they do not: COPY ABORTED, LOGICAL
        // BLOCK ADDRESS OUT OF RANGE at segment 1, DESTINATION BLOCK DEVICE LOGICAL BLOCK ADDRESS (byte 20)
        send(A, 0, list(10, 0, cscds, segment(0, 1, 2, 0, 2046))).assertGood();
        assertCopyAborted(send(A, 0, list(10, 0, cscds, segment(0, 1, 1, 0, 0), segment(0, 1, 2, 0, 2047))),
                0x21, 0x00, 1, 0xAF0014);
        assertThat(run(target, A, 1, ten(READ_10, 0, 0, 1), null).data()).isEqualTo(data);   // segment 0 was done
        assertThat(run(target, A, 0, rcr(0x00, 10, 64), null).assertGood().data())
                .isEqualTo(cdb(0, 0, 0, 8, 0x02, 0, 1, 0x00, 0, 0, 0x02, 0x00));
        // the source: SOURCE BLOCK DEVICE LOGICAL BLOCK ADDRESS (byte 12), nothing copied
        run(target, A, 1, ten(WRITE_10, 0, 0, 1), new byte[512]).assertGood();
        assertCopyAborted(send(A, 0, list(10, 0, cscds, segment(0, 1, 2, 2047, 0))), 0x21, 0x00, 0, 0xAF000C);
        assertThat(run(target, A, 1, ten(READ_10, 0, 0, 1), null).data()).isEqualTo(new byte[512]);
        // zero blocks at the capacity is no error; one past it is
        send(A, 0, list(10, 0, cscds, segment(0, 1, 0, 0, 2048))).assertGood();
        assertCopyAborted(send(A, 0, list(10, 0, cscds, segment(0, 1, 0, 0, 2049))), 0x21, 0x00, 0, 0xAF0014);
    }

    @Test
    void theIdentificationCscdIgnoresLuIdTypeAndTheObsoleteNulBit() {
        byte[] data = Scsi.pattern(47, 512);
        run(target, A, 0, ten(WRITE_10, 0, 0, 1), data).assertGood();
        // SPC §6.4.5.6: "The LU ID TYPE field shall be ignored in the Identification Descriptor CSCD
        // descriptor" (01b proxy token, 10b / 11b reserved alike); byte 1 bit 5 (SPC-3's NUL) is obsolete
        for (int byte1 : new int[] {0x40, 0x80, 0xC0, 0x20}) {
            byte[] c0 = cscd(naa(0), 512), c1 = cscd(naa(1), 512);
            c0[1] = (byte) byte1;
            c1[1] = (byte) byte1;
            run(target, A, 1, ten(WRITE_10, 0, 0, 1), new byte[512]).assertGood();
            send(A, 0, list(11, 0, new byte[][] {c0, c1}, segment(0, 1, 1, 0, 0))).assertGood();
            assertThat(run(target, A, 1, ten(READ_10, 0, 0, 1), null).data()).as("byte 1 %02x", byte1)
                    .isEqualTo(data);
        }
        byte[] tape = cscd(naa(0), 512);
        tape[1] = 0x01;                                                          // PERIPHERAL DEVICE TYPE 01h
        send(A, 0, list(11, 0, new byte[][] {tape})).assertCheck(0x5, 0x26, 0x00).assertParameterField(17, 4);
    }

    @Test
    void aReadFailureMidCopyIsCopyAbortedAtThatSegmentPointingAtTheSourceCscd() {
        RamBlockDevice ram = Scsi.ram("xcu0", 512, 4096, 1 << 20);
        io.blocktarget.block.BlockDevice bad = io.blocktarget.block.UncorrectableBlockDevice.wrap(ram);
        RamBlockDevice other = Scsi.ram("xcu1", 512, 4096, 1 << 20);
        ScsiTarget t = Scsi.target(bad, other);
        try {
            for (int lun = 0; lun < 2; lun++) {
                Scsi.ready(t, A, lun);
            }
            byte[] data = Scsi.pattern(53, 512);
            run(t, A, 0, ten(WRITE_10, 0, 0, 1), data).assertGood();
            bad.uncorrectableBlocks().orElseThrow().mark(7, 1);
            byte[] vpd0 = run(t, A, 0, Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
            byte[] vpd1 = run(t, A, 1, Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
            // CSCD 1 is LU 0 (the failing source): its descriptor starts at byte 16 + 32 = 48
            byte[][] cscds = {cscd(Arrays.copyOfRange(vpd1, 8, 24), 512), cscd(Arrays.copyOfRange(vpd0, 8, 24), 512)};
            // segment 0 copies, segment 1 reads the uncorrectable block: COPY ABORTED, UNRECOVERED READ ERROR,
            // segment 1 (SPC §5.17.7.4 b), segment pointer SD = 0 at the source's CSCD descriptor (f)
            assertCopyAborted(run(t, A, 1, xcopy(16 + 64 + 56), list(12, 0, cscds, segment(1, 0, 1, 0, 0),
                    segment(1, 0, 1, 7, 1))), 0x11, 0x00, 1, 0x800030);
            assertThat(run(t, A, 1, ten(READ_10, 0, 0, 1), null).data()).isEqualTo(data);
            assertThat(run(t, A, 1, rcr(0x00, 12, 64), null).assertGood().data())
                    .isEqualTo(cdb(0, 0, 0, 8, 0x02, 0, 1, 0x00, 0, 0, 0x02, 0x00));
        } finally {
            ram.close();
            other.close();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void writeProtectionAndReservationsOfTheNamedUnitsApply() {
        byte[][] toReadOnly = {cscd(naa(0), 512), cscd(naa(3), 512)};
        send(A, 0, list(1, 0, toReadOnly, segment(0, 1, 1, 0, 0))).assertCheck(0x7, 0x27, 0x00);
        send(A, 0, list(1, 0, toReadOnly, segment(1, 0, 1, 0, 0))).assertGood();  // reading it is fine
        // B holds WRITE EXCLUSIVE on LU 1: A may copy from it but not into it
        run(target, B, 1, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24),
                ReservationsTest.params(0, 0xBBL, 0)).assertGood();
        run(target, B, 1, ReservationsTest.prOut(ReservationsTest.RESERVE, ReservationsTest.WE, 24),
                ReservationsTest.params(0xBBL, 0, 0)).assertGood();
        byte[][] cscds = {cscd(naa(0), 512), cscd(naa(1), 512)};
        assertThat(send(A, 0, list(1, 0, cscds, segment(0, 1, 1, 0, 0))).status())
                .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        send(A, 0, list(1, 0, cscds, segment(1, 0, 1, 0, 0))).assertGood();
        send(B, 0, list(1, 0, cscds, segment(0, 1, 1, 0, 0))).assertGood();      // the holder may
    }

    /** A RAM disk whose reads wait until the test releases them: copies stay in progress. */
    static final class HeldReads implements io.blocktarget.block.BlockDevice {
        private final RamBlockDevice ram;
        final java.util.Queue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();

        HeldReads(RamBlockDevice ram) {
            this.ram = ram;
        }

        @Override public String name() { return ram.name(); }
        @Override public BlockGeometry geometry() { return ram.geometry(); }
        @Override public boolean readOnly() { return false; }
        @Override public void read(long lba, int blockCount, io.blocktarget.block.IoCallback<io.netty.buffer.ByteBuf> callback) {
            held.add(() -> ram.read(lba, blockCount, callback));
        }
        @Override public void write(long lba, io.netty.buffer.ByteBuf data, boolean fua,
                                    io.blocktarget.block.IoCallback<Void> callback) {
            ram.write(lba, data, fua, callback);
        }
        @Override public void flush(io.blocktarget.block.IoCallback<Void> callback) { ram.flush(callback); }
        @Override public void unmap(java.util.List<io.blocktarget.block.BlockRange> ranges,
                                    io.blocktarget.block.IoCallback<Void> callback) {
            ram.unmap(ranges, callback);
        }
        @Override public void writeZeroes(long lba, long blockCount, io.blocktarget.block.IoCallback<Void> callback) {
            ram.writeZeroes(lba, blockCount, callback);
        }
        @Override public void close() { ram.close(); }
    }

    /** Starts an EXTENDED COPY without waiting; the future completes with status and sense bytes. */
    private static java.util.concurrent.CompletableFuture<Scsi.Reply> start(ScsiTarget t, byte[] list) {
        byte[] cdb = xcopy(list.length);
        io.netty.buffer.ByteBuf cdbBuf = io.netty.buffer.Unpooled.wrappedBuffer(cdb);
        io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.wrappedBuffer(list.clone());
        java.util.concurrent.CompletableFuture<Scsi.Reply> done = new java.util.concurrent.CompletableFuture<>();
        t.execute(ScsiCommand.of(A, 0, cdbBuf, TaskAttribute.SIMPLE, 1, list.length, out), r -> {
            byte[] sense = null;
            if (r.senseData() != null) {
                sense = io.netty.buffer.ByteBufUtil.getBytes(r.senseData());
                r.senseData().release();
            }
            done.complete(new Scsi.Reply(r.status(), null, sense, r.transferLength()));
        });
        return done;
    }

    @Test
    void maximumConcurrentCopiesIsEnforced() {
        HeldReads source = new HeldReads(Scsi.ram("held-src", 512, 512, 1 << 20));
        RamBlockDevice destination = Scsi.ram("dst", 512, 512, 1 << 20);
        ScsiTarget t = Scsi.target(source, destination);
        try {
            Scsi.ready(t, A, 0);
            Scsi.ready(t, A, 1);
            byte[] d = run(t, A, 0, rcr(0x03, 0, 256), null).assertGood().data();
            int limit = u16(d, 34);
            assertThat(d[36] & 0xFF).isEqualTo(limit);
            byte[][] cscds = new byte[2][];
            for (int lun = 0; lun < 2; lun++) {
                byte[] vpd = run(t, A, lun, Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
                cscds[lun] = cscd(Arrays.copyOfRange(vpd, 8, 24), 512);
            }
            java.util.List<java.util.concurrent.CompletableFuture<Scsi.Reply>> copies = new java.util.ArrayList<>();
            for (int i = 0; i < limit; i++) {                                   // at the limit: all run
                copies.add(start(t, list(0, 0x18, cscds, segment(0, 1, 1, i, i))));
            }
            assertThat(source.held).hasSize(limit);
            assertThat(copies).noneMatch(java.util.concurrent.CompletableFuture::isDone);
            java.util.concurrent.CompletableFuture<Scsi.Reply> oneMore = start(t, list(0, 0x18, cscds,
                    segment(0, 1, 1, 0, 0)));                                    // limit + 1
            assertThat(oneMore).as("refused at once, not queued behind the held reads").isDone();
            Scsi.Reply refused = oneMore.join();
            refused.assertCheck(0x5, 0x55, 0x03);                               // INSUFFICIENT RESOURCES
            assertThat(source.held).hasSize(limit);                              // refused before reading
            source.held.poll().run();
            assertThat(copies.get(0).join().status()).isEqualTo(ScsiStatus.GOOD);
            java.util.concurrent.CompletableFuture<Scsi.Reply> again = start(t, list(0, 0x18, cscds, segment(0, 1, 1, 0, 0)));
            assertThat(again).isNotDone();                                       // a slot was free again
            while (!source.held.isEmpty()) {
                source.held.poll().run();
            }
            assertThat(again.join().status()).isEqualTo(ScsiStatus.GOOD);
            copies.forEach(c -> assertThat(c.join().status()).isEqualTo(ScsiStatus.GOOD));
        } finally {
            source.close();
            destination.close();
        }
    }

    @Test
    void standardInquiryAdvertisesTheCopyManager() {
        byte[] d = run(target, A, 0, Scsi.inquiry(false, 0, 96), null).assertGood().data();
        assertThat(d[5] & 0x08).as("3PC").isEqualTo(0x08);
    }
}
