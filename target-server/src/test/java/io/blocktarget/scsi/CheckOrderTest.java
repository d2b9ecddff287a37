package io.blocktarget.scsi;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.LunFeatures;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.sixteen;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order in which a command's checks answer (issue 28 item 4): the operation code, then the CDB's own fields
 * (reserved bits, WSNZ, ANCHOR...), then the LBA range against the capacity (SBC-4 §4.5: LOGICAL BLOCK ADDRESS OUT OF
 * RANGE), and only then the advertised limits of the Block Limits VPD (MAXIMUM TRANSFER LENGTH, MAXIMUM WRITE SAME
 * LENGTH, MAXIMUM COMPARE AND WRITE LENGTH, the atomic limits of §5.48 / §6.6.3), which are INVALID FIELD IN CDB at
 * the length field. Every family is checked on a 4 KiB / 16 KiB unit (LBPPBE 2) with atomic writes up to 1 MiB: one
 * CDB breaking a limit inside the medium, the same beyond its end, and the limit itself.
 */
class CheckOrderTest {
    private static final int LBS = 4096;
    private static final int PBS = 16384;
    /** 2 GiB: larger than one MAXIMUM WRITE SAME LENGTH (1 GiB), so that limit can be broken inside the medium. */
    private static final long BLOCKS = (2L << 30) / LBS;
    private static final int ATOMIC_MAX = 256;   // 1 MiB of 4 KiB blocks

    private record Lu(RamBlockDevice device, ScsiTarget target) implements AutoCloseable {
        static Lu of() {
            return of(DeviceKnobs.DEFAULTS);
        }

        static Lu of(DeviceKnobs knobs) {
            RamBlockDevice device = Scsi.ram("order", LBS, PBS, BLOCKS * LBS);
            ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, "order",
                    device, new LunState("order", null, Optional.of(new AtomicWrites(ATOMIC_MAX, 0, 1, 1))),
                    LunFeatures.NONE.withKnobs(knobs)))).get(Scsi.TARGET);
            Scsi.ready(target, A, 0);
            return new Lu(device, target);
        }

        Scsi.Reply run(byte[] cdb, byte[] dataOut) {
            return Scsi.run(target, A, 0, cdb, dataOut);
        }

        byte[] blockLimits() {
            return run(Scsi.inquiry(true, 0xB0, 255), null).assertGood().data();
        }

        @Override
        public void close() {
            device.close();
        }
    }

    @Test
    void writeAtomicBeyondTheEndIsLbaOutOfRangeBeforeAnyAtomicLimit() {
        try (Lu lu = Lu.of()) {
            // libiscsi's writeatomic16_beyond_eol shape: 2i blocks starting i blocks before the end, i up to 256
            for (int i : new int[] {1, 128, 129, 256}) {
                lu.run(WriteAtomicTest.writeAtomic(0, BLOCKS - i, 0, 2 * i), new byte[2 * i * LBS])
                        .assertCheck(0x5, 0x21, 0x00);
            }
            // ATOMIC BOUNDARY above MAXIMUM ATOMIC BOUNDARY SIZE, and beyond the end: the range answers first
            lu.run(WriteAtomicTest.writeAtomic(0, BLOCKS - 1, ATOMIC_MAX + 1, 2), new byte[2 * LBS])
                    .assertCheck(0x5, 0x21, 0x00);
            // inside the medium the limits still answer, at their fields
            lu.run(WriteAtomicTest.writeAtomic(0, 0, 0, ATOMIC_MAX + 1), new byte[(ATOMIC_MAX + 1) * LBS])
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            lu.run(WriteAtomicTest.writeAtomic(0, 0, ATOMIC_MAX + 1, 1), new byte[LBS])
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            lu.run(WriteAtomicTest.writeAtomic(0, BLOCKS - ATOMIC_MAX, 0, ATOMIC_MAX),
                    new byte[ATOMIC_MAX * LBS]).assertGood();                                   // at both limits
            // a CDB field (WRPROTECT) still comes before the range
            lu.run(WriteAtomicTest.writeAtomic(0x20, BLOCKS, 0, 1), new byte[LBS])
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 7);
        }
    }

    @Test
    void transfersBeyondMaximumTransferLengthAndTheEndAreLbaOutOfRange() {
        try (Lu lu = Lu.of()) {
            long max = Scsi.u32(lu.blockLimits(), 8);                                            // MAXIMUM TRANSFER LENGTH
            assertThat(max).isEqualTo((8 << 20) / LBS);
            for (int op : new int[] {0x88, 0x8F, 0x90}) {                                        // READ, VERIFY, PRE-FETCH
                lu.run(sixteen(op, 0, BLOCKS - 1, max + 1), null).assertCheck(0x5, 0x21, 0x00);
                lu.run(sixteen(op, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            }
            for (int op : new int[] {0x8A, 0x8E}) {                                              // WRITE, WRITE AND VERIFY
                lu.run(sixteen(op, 0, BLOCKS - 1, max + 1), new byte[LBS]).assertCheck(0x5, 0x21, 0x00);
                lu.run(sixteen(op, 0, 0, max + 1), new byte[LBS]).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            }
            lu.run(sixteen(0x88, 0, BLOCKS - max, max), null).assertGood();                     // the limit, to the end
        }
    }

    @Test
    void writeSameWithUnmapBeyondMaximumWriteSameLength() {
        try (Lu lu = Lu.of()) {
            long max = Scsi.u64(lu.blockLimits(), 36);                                           // MAXIMUM WRITE SAME LENGTH
            assertThat(max).isEqualTo((1L << 30) / LBS);
            byte[] zero = new byte[LBS];
            int unmap = 0x08;
            // SBC-4 §5.48: NUMBER OF LOGICAL BLOCKS above MAXIMUM WRITE SAME LENGTH is INVALID FIELD IN CDB, with
            // UNMAP as without, and NDOB (no Data-Out Buffer) as with one
            lu.run(sixteen(0x93, unmap, 0, max + 1), zero).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            lu.run(sixteen(0x93, unmap | 0x01, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            lu.run(sixteen(0x93, 0, 0, max + 1), zero).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            lu.run(sixteen(0x93, unmap, BLOCKS - 1, max + 1), zero).assertCheck(0x5, 0x21, 0x00);
            lu.run(sixteen(0x93, unmap, BLOCKS - max, max), zero).assertGood();                  // the limit, to the end
            // WSNZ = 1: zero blocks is a CDB field error, before the range
            lu.run(sixteen(0x93, unmap, BLOCKS + 5, 0), zero).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
        }
    }

    @Test
    void compareAndWriteSenseForEachCase() {
        try (Lu lu = Lu.of()) {
            int max = lu.blockLimits()[5] & 0xFF;                                                // MAXIMUM COMPARE AND WRITE LENGTH
            assertThat(max).isEqualTo(255);
            // SBC-4 §5.3: NUMBER OF LOGICAL BLOCKS 0 is not an error: nothing read, compared, transferred or written
            Scsi.run(lu.target(), A, 0, CompareAndWriteTest.caw(0, 0), null, 0).assertGood();
            lu.run(CompareAndWriteTest.caw(BLOCKS - 1, 2), new byte[4 * LBS]).assertCheck(0x5, 0x21, 0x00);
            lu.run(CompareAndWriteTest.caw(BLOCKS - max, max), compareThenWrite(max, new byte[max * LBS]))
                    .assertGood();                                                               // at the limit, to the end
            // a real miscompare: MISCOMPARE, MISCOMPARE DURING VERIFY OPERATION, INFORMATION = the offset of the
            // first differing byte from the start of the Data-Out Buffer, nothing written
            for (int blocks : new int[] {1, 3, max}) {
                byte[] medium = Scsi.pattern(blocks, blocks * LBS);
                lu.run(sixteen(0x8A, 0, 64, blocks), medium).assertGood();
                for (int offset : new int[] {0, 1, LBS - 1, blocks * LBS - 27, blocks * LBS - 1}) {
                    byte[] verify = medium.clone();
                    verify[offset] ^= 0x5A;
                    Scsi.Reply miss = lu.run(CompareAndWriteTest.caw(64, blocks),
                            compareThenWrite(blocks, verify)).assertCheck(0xE, 0x1D, 0x00);
                    assertThat(miss.information()).as("%d blocks, offset %d", blocks, offset).isEqualTo(offset);
                }
                assertThat(lu.run(sixteen(0x88, 0, 64, blocks), null).data()).isEqualTo(medium);
            }
        }
    }

    /** 255 is the most the byte holds: a smaller MAXIMUM TRANSFER LENGTH (64 KiB) makes the limit 8 blocks. */
    @Test
    void compareAndWriteBeyondItsMaximumLength() {
        try (Lu lu = Lu.of(DeviceKnobs.DEFAULTS.withLimits(Map.of(DeviceKnobs.Limit.MAX_TRANSFER, 65536L)))) {
            int max = lu.blockLimits()[5] & 0xFF;
            assertThat(max).isEqualTo(8);
            lu.run(CompareAndWriteTest.caw(0, max + 1), new byte[2 * (max + 1) * LBS])
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(13, 7);                        // INVALID FIELD IN CDB
            lu.run(CompareAndWriteTest.caw(BLOCKS - 1, max + 1), new byte[2 * (max + 1) * LBS])
                    .assertCheck(0x5, 0x21, 0x00);                                               // the range first
            lu.run(CompareAndWriteTest.caw(0, max), new byte[2 * max * LBS]).assertGood();
        }
    }

    @Test
    void extendedCopyWithAValidSegmentDescriptorListCopies() {
        try (Lu lu = Lu.of()) {
            byte[] vpd = lu.run(Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
            byte[][] cscds = {ExtendedCopyTest.cscd(Arrays.copyOfRange(vpd, 8, 24), LBS)};
            // libiscsi extendedcopy_simple's shape: min(blocks / 2, 2048) blocks from LBA 0 to the end, LIST ID 1,
            // LIST ID USAGE 10b (the copy manager need not hold the status)
            int blocks = 2048;
            byte[] data = Scsi.pattern(7, blocks * LBS);
            for (int i = 0; i < blocks; i += 1024) {
                lu.run(sixteen(0x8A, 0, i, 1024), Arrays.copyOfRange(data, i * LBS, (i + 1024) * LBS)).assertGood();
            }
            byte[] list = ExtendedCopyTest.list(1, 0x10, cscds,
                    ExtendedCopyTest.segment(0, 0, blocks, 0, BLOCKS - blocks));
            lu.run(ExtendedCopyTest.xcopy(list.length), list).assertGood();
            for (int i = 0; i < blocks; i += 1024) {
                assertThat(lu.run(sixteen(0x88, 0, BLOCKS - blocks + i, 1024), null).data())
                        .isEqualTo(Arrays.copyOfRange(data, i * LBS, (i + 1024) * LBS));
            }
        }
    }

    @Test
    void getLbaStatusAtTheCapacityIsLbaOutOfRange() {
        try (Lu lu = Lu.of()) {
            lu.run(sixteen(0x9E, 0x12, BLOCKS, 24), null).assertCheck(0x5, 0x21, 0x00);
            lu.run(sixteen(0x9E, 0x12, BLOCKS - 1, 24), null).assertGood();
        }
    }

    private static byte[] compareThenWrite(int blocks, byte[] verify) {
        byte[] both = new byte[2 * blocks * LBS];
        System.arraycopy(verify, 0, both, 0, verify.length);
        return both;
    }
}
