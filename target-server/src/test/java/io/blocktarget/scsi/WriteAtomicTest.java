package io.blocktarget.scsi;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.u32;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WRITE ATOMIC(16) (SBC-4 §5.48) and the Block Limits VPD atomic fields (§6.6.3, bytes 44-63): each check at its
 * limit and one beyond, at every logical block size, and RSOC listing the command only where it is configured.
 */
class WriteAtomicTest {

    private record Lu(RamBlockDevice device, ScsiTarget target) implements AutoCloseable {
        static Lu of(int lbs, Optional<AtomicWrites> atomic) {
            RamBlockDevice device = Scsi.ram("wa", lbs, lbs, 512L * Math.max(lbs, 4096));
            ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, "wa",
                    device, new LunState("wa", null, atomic)))).get(Scsi.TARGET);
            Scsi.ready(target, A, 0);
            return new Lu(device, target);
        }

        Scsi.Reply run(byte[] cdb, byte[] dataOut) {
            return Scsi.run(target, A, 0, cdb, dataOut);
        }

        @Override
        public void close() {
            device.close();
        }
    }

    /** WRITE ATOMIC(16): flags (WRPROTECT / DPO / FUA), LBA, ATOMIC BOUNDARY, TRANSFER LENGTH (16 bits). */
    static byte[] writeAtomic(int flags, long lba, int boundary, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x9C;
        c[1] = (byte) flags;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        c[10] = (byte) (boundary >> 8);
        c[11] = (byte) boundary;
        c[12] = (byte) (blocks >> 8);
        c[13] = (byte) blocks;
        return c;
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 4096, 16384, 65536})
    void blockLimitsAtomicFieldsAreByteExact(int lbs) {
        try (Lu lu = Lu.of(lbs, Optional.of(new AtomicWrites(16, 32, 2, 4)))) {
            byte[] page = lu.run(Scsi.inquiry(true, 0xB0, 255), null).assertGood().data();
            assertThat(page).hasSize(64);
            assertThat(page[3] & 0xFF).isEqualTo(0x3C);
            assertThat(Arrays.copyOfRange(page, 44, 64)).isEqualTo(cdb(
                    0, 0, 0, 16,    // MAXIMUM ATOMIC TRANSFER LENGTH
                    0, 0, 0, 4,     // ATOMIC ALIGNMENT
                    0, 0, 0, 2,     // ATOMIC TRANSFER LENGTH GRANULARITY
                    0, 0, 0, 16,    // MAXIMUM ATOMIC TRANSFER LENGTH WITH ATOMIC BOUNDARY
                    0, 0, 0, 16));  // MAXIMUM ATOMIC BOUNDARY SIZE
        }
        try (Lu lu = Lu.of(lbs, Optional.empty())) {
            byte[] page = lu.run(Scsi.inquiry(true, 0xB0, 255), null).assertGood().data();
            assertThat(Arrays.copyOfRange(page, 44, 64)).isEqualTo(new byte[20]);
        }
    }

    @Test
    void reportSupportedOperationCodesListsItOnlyWhenConfigured() {
        try (Lu on = Lu.of(4096, Optional.of(new AtomicWrites(16, 0, 1, 1)));
             Lu off = Lu.of(4096, Optional.empty())) {
            byte[] one = on.run(SpcCommandsTest.rsoc(1, 0x9C, 0, 64), null).assertGood().data();
            assertThat(Arrays.copyOfRange(one, 0, 4)).isEqualTo(cdb(0x00, 0x03, 0x00, 0x10)); // supported, 16 bytes
            assertThat(Arrays.copyOfRange(one, 4, 20)).isEqualTo(cdb(0x9C, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x05));                     // CDB USAGE DATA
            assertThat(off.run(SpcCommandsTest.rsoc(1, 0x9C, 0, 64), null).assertGood().data())
                    .isEqualTo(cdb(0x00, 0x01, 0x00, 0x00));                                // not supported
            assertThat(SpcCommandsTest.opcodes(on.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data())).contains(0x9C);
            assertThat(SpcCommandsTest.opcodes(off.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data()))
                    .doesNotContain(0x9C);
            off.run(writeAtomic(0, 0, 0, 1), new byte[4096]).assertCheck(0x5, 0x20, 0x00);  // INVALID COMMAND OP CODE
        }
    }

    /** max 8 blocks, boundary 16, granularity 2, alignment 4: every check at the limit and at limit + 1. */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void everyCheckAtTheLimitAndBeyond(int lbs) {
        try (Lu lu = Lu.of(lbs, Optional.of(new AtomicWrites(8, 16, 2, 4)))) {
            byte[] eight = Scsi.pattern(1, 8 * lbs);
            lu.run(writeAtomic(0, 4, 0, 8), eight).assertGood();                          // at max, aligned
            assertThat(lu.run(Scsi.sixteen(0x88, 0, 4, 8), null).data()).isEqualTo(eight);
            lu.run(writeAtomic(0, 0, 0, 10), new byte[10 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            lu.run(writeAtomic(0, 2, 0, 2), new byte[2 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
            lu.run(writeAtomic(0, 4, 0, 3), new byte[3 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            lu.run(writeAtomic(0, 8, 8, 8), eight).assertGood();                          // boundary = max
            lu.run(writeAtomic(0, 8, 9, 8), eight).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            lu.run(writeAtomic(0, 8, 8, 10), new byte[10 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            long last = lu.device().geometry().blockCount();
            lu.run(writeAtomic(0, last - 8, 0, 8), eight).assertGood();                   // ends at the last block
            lu.run(writeAtomic(0, last - 4, 0, 8), eight).assertCheck(0x5, 0x21, 0x00);   // LBA OUT OF RANGE
            lu.run(writeAtomic(0, 4, 0, 0), null).assertGood();                           // zero blocks: nothing
            lu.run(writeAtomic(0x08, 12, 0, 2), new byte[2 * lbs]).assertGood();          // FUA
            lu.run(writeAtomic(0x10, 12, 0, 2), new byte[2 * lbs]).assertGood();          // DPO
            lu.run(writeAtomic(0x20, 12, 0, 2), new byte[2 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 7);
            lu.run(writeAtomic(0x04, 12, 0, 2), new byte[2 * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 2);
            assertThat(lu.target().unit(0).rangeLockHeld()).isZero();
        }
    }

    /** A Data-Out Buffer short of the transfer cannot be written all or nothing: refused, nothing written. */
    @Test
    void shortDataOutWritesNothing() {
        try (Lu lu = Lu.of(4096, Optional.of(new AtomicWrites(8, 0, 1, 1)))) {
            byte[] before = lu.run(Scsi.sixteen(0x88, 0, 0, 4), null).assertGood().data();
            Scsi.run(lu.target(), A, 0, writeAtomic(0, 0, 0, 4), Scsi.pattern(2, 3 * 4096), 3 * 4096)
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            assertThat(lu.run(Scsi.sixteen(0x88, 0, 0, 4), null).data()).isEqualTo(before);
        }
    }

    /**
     * What Linux sd makes of the Block Limits page (drivers/scsi/sd.c sd_config_atomic, 6.11 … 7.x), modelled from
     * the bytes: {unit_min, unit_max, boundary, max} in bytes, all 0 when sd leaves atomic writes off.
     */
    static long[] linuxSd(byte[] page, int lbs, int pbs) {
        long maxAtomic = u32(page, 44);
        long alignment = u32(page, 48);
        long granularity = u32(page, 52);
        long withBoundary = u32(page, 56);
        long boundarySize = u32(page, 60);
        if (maxAtomic == 0 && withBoundary == 0) {
            return new long[4];
        }
        long unitMin = Long.highestOneBit(granularity != 0 ? granularity : pbs / lbs);
        long max = maxAtomic != 0 ? maxAtomic : withBoundary;
        long unitMax = Long.highestOneBit(maxAtomic != 0 ? maxAtomic : boundarySize);
        for (long g : new long[] {granularity, alignment}) {
            if (g > 1 && (unitMin > 1 && unitMin % g != 0 || unitMax > 1 && unitMax % g != 0)) {
                return new long[4];
            }
        }
        return new long[] {unitMin * lbs, unitMax * lbs, 0, max * lbs};
    }

    /** The sysfs values LinuxAtomicIT expects over iSCSI, from the model: unit_min = granularity, no boundary. */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void linuxSdWouldShowTheConfiguredLimits(int lbs) {
        try (Lu lu = Lu.of(lbs, Optional.of(new AtomicWrites(16, 16, 1, 1)))) {
            assertThat(linuxSd(lu.run(Scsi.inquiry(true, 0xB0, 255), null).data(), lbs, lbs))
                    .containsExactly(lbs, 16L * lbs, 0, 16L * lbs);
        }
        try (Lu lu = Lu.of(lbs, Optional.of(new AtomicWrites(16, 0, 2, 4)))) {   // alignment > granularity
            assertThat(linuxSd(lu.run(Scsi.inquiry(true, 0xB0, 255), null).data(), lbs, lbs)).containsOnly(0L);
        }
        try (Lu lu = Lu.of(lbs, Optional.empty())) {
            assertThat(linuxSd(lu.run(Scsi.inquiry(true, 0xB0, 255), null).data(), lbs, lbs)).containsOnly(0L);
        }
    }

    /** A plain WRITE of the same blocks still works beside atomic writes (shared range lock). */
    @Test
    void plainWritesAreUnaffected() {
        try (Lu lu = Lu.of(4096, Optional.of(new AtomicWrites(8, 0, 1, 1)))) {
            byte[] data = Scsi.pattern(3, 16 * 4096);
            lu.run(ten(0x2A, 0, 0, 16), data).assertGood();
            assertThat(lu.run(ten(0x28, 0, 0, 16), null).data()).isEqualTo(data);
            assertThat(u32(lu.run(Scsi.inquiry(true, 0xB0, 255), null).data(), 44)).isEqualTo(8);
        }
    }
}
