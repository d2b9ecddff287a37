package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static org.assertj.core.api.Assertions.assertThat;

/** READ CAPACITY (10)/(16), MODE SENSE (6)/(10), MODE SELECT and descriptor-format sense. */
class CapacityAndModeTest {

    @ParameterizedTest
    @CsvSource({"512,512,0", "512,4096,3", "1024,4096,2", "2048,2048,0", "4096,4096,0", "4096,65536,4",
            "8192,8192,0", "16384,65536,2", "32768,32768,0", "65536,65536,0", "65536,33554432,9",
            "512,16777216,15", "512,33554432,15"})
    void readCapacity16ReportsBlockSizeAndPhysicalExponent(int lbs, int pbs, int exponent) {
        long blocks = (64L << 30) / lbs;
        try (Scsi.Unit u = Scsi.Unit.of(new NullBlockDevice("rc", new BlockGeometry(lbs, pbs, blocks), false))) {
            byte[] d = u.run(Scsi.readCapacity16(32), null).assertGood().data();
            byte[] expected = new byte[32];
            long last = blocks - 1;
            for (int i = 0; i < 8; i++) {
                expected[i] = (byte) (last >>> (56 - 8 * i));                   // 0-7: RETURNED LOGICAL BLOCK ADDRESS
            }
            expected[8] = (byte) (lbs >>> 24);                                  // 8-11: LOGICAL BLOCK LENGTH IN BYTES
            expected[9] = (byte) (lbs >>> 16);
            expected[10] = (byte) (lbs >>> 8);
            expected[11] = (byte) lbs;
            expected[13] = (byte) exponent;                                     // 13: LBPPBE
            expected[14] = (byte) 0xC0;                                         // 14: LBPME, LBPRZ
            assertThat(d).isEqualTo(expected);
        }
    }

    @Test
    void readCapacity16HonoursTheAllocationLength() {
        try (Scsi.Unit u = Scsi.Unit.ram("rc16", 4096, 4096, 1 << 20)) {
            Scsi.Reply r = u.run(Scsi.readCapacity16(12), null).assertGood();
            assertThat(r.data()).isEqualTo(cdb(0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0x10, 0));
            assertThat(r.transferLength()).isEqualTo(12);
        }
    }

    @Test
    void readCapacity10() {
        try (RamBlockDevice small = Scsi.ram("rc10", 4096, 4096, 1 << 20);
             NullBlockDevice huge = new NullBlockDevice("huge", new BlockGeometry(512, 512, 1L << 33), false)) {
            ScsiTarget target = Scsi.target(small, huge);
            Scsi.ready(target, A, 0);
            Scsi.ready(target, A, 1);
            assertThat(run(target, A, 0, Scsi.readCapacity10(), null).assertGood().data())
                    .isEqualTo(cdb(0, 0, 0, 0xFF, 0, 0, 0x10, 0));
            // last LBA 2^33 - 1 does not fit: FFFFFFFFh sends the initiator to READ CAPACITY(16)
            assertThat(run(target, A, 1, Scsi.readCapacity10(), null).assertGood().data())
                    .isEqualTo(cdb(0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x02, 0));
        }
    }

    @Test
    void modeSense6AllPagesWithBlockDescriptor() {
        try (Scsi.Unit u = Scsi.Unit.ram("ms6", 4096, 4096, 1 << 20)) {
            byte[] d = u.run(Scsi.modeSense6(0, 0x3F, 0, 255), null).assertGood().data();
            byte[] expected = concat(
                    cdb(55, 0x00, 0x10, 8),                                // MODE DATA LENGTH, MEDIUM TYPE, DPOFUA, BDL
                    cdb(0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00),   // 256 blocks of 4096
                    cdb(0x08, 0x12), new byte[18],                         // caching: WCE = 0 on RAM
                    cdb(0x0A, 0x0A, 0x02, 0x10, 0, 0, 0, 0, 0, 0, 0, 0),   // control: GLTSD, QAM = 1
                    cdb(0x1C, 0x0A, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0));     // IEC: DEXCPT
            assertThat(d).isEqualTo(expected);
        }
    }

    @Test
    void modeSense10WithLongLbaDescriptorAndDbd() {
        try (Scsi.Unit u = Scsi.Unit.ram("ms10", 512, 4096, 1 << 20)) {
            byte[] d = u.run(Scsi.modeSense10(0x10, 0x08, 0, 1024), null).assertGood().data();
            assertThat(d).isEqualTo(concat(
                    cdb(0, 6 + 16 + 20, 0x00, 0x10, 0x01, 0x00, 0, 16),      // LONGLBA, BLOCK DESCRIPTOR LENGTH 16
                    cdb(0, 0, 0, 0, 0, 0, 0x08, 0x00, 0, 0, 0, 0, 0, 0, 0x02, 0x00), // 2048 blocks, 512 bytes
                    cdb(0x08, 0x12), new byte[18]));
            byte[] dbd = u.run(Scsi.modeSense10(0x08, 0x0A, 0, 1024), null).assertGood().data();
            assertThat(dbd).isEqualTo(concat(cdb(0, 6 + 12, 0x00, 0x10, 0, 0, 0, 0),
                    cdb(0x0A, 0x0A, 0x02, 0x10, 0, 0, 0, 0, 0, 0, 0, 0)));
        }
    }

    @Test
    void modeSenseChangeableValuesAndWriteProtect() {
        try (RamBlockDevice device = new RamBlockDevice("ro", new BlockGeometry(512, 512, 64), true,
                new io.blocktarget.block.ram.MemoryBudget(1 << 20))) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            byte[] changeable = run(target, A, 0, Scsi.modeSense6(0x08, 0x40 | 0x3F, 0, 255), null).assertGood().data();
            assertThat(changeable).isEqualTo(concat(cdb(3 + 44, 0x00, 0x90, 0),   // WP, DPOFUA; no descriptor
                    cdb(0x08, 0x12), new byte[18],                                  // WCE not changeable on RAM
                    cdb(0x0A, 0x0A, 0x04, 0x00, 0x08), new byte[7],                 // D_SENSE, SWP changeable
                    cdb(0x1C, 0x0A), new byte[10]));
        }
    }

    @Test
    void modeSenseErrors() {
        try (Scsi.Unit u = Scsi.Unit.ram("mserr", 512, 512, 1 << 20)) {
            u.run(Scsi.modeSense6(0, 0x19, 0, 255), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 5);
            u.run(Scsi.modeSense6(0, 0x08, 0x01, 255), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(3, 7);
            u.run(Scsi.modeSense6(0, 0xC0 | 0x08, 0, 255), null).assertCheck(0x5, 0x39, 0x00);
        }
    }

    @Test
    void modeSelectDSenseSwitchesToDescriptorSenseAndTellsOtherNexuses() {
        try (Scsi.Unit u = Scsi.Unit.ram("dsense", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            byte[] list = concat(cdb(0, 0, 0, 0), cdb(0x0A, 0x0A, 0x06, 0x10, 0, 0, 0, 0, 0, 0, 0, 0));
            u.run(Scsi.modeSelect6(list.length), list).assertGood();
            byte[] control = u.run(Scsi.modeSense6(0x08, 0x0A, 0, 255), null).data();
            assertThat(control[4 + 2]).isEqualTo((byte) 0x06);
            // descriptor format (72h) from now on: LBA OUT OF RANGE without sense key specific
            byte[] sense = u.run(Scsi.ten(0x28, 0, 4096, 1), null).assertCheck(0x5, 0x21, 0x00).sense();
            assertThat(sense).isEqualTo(cdb(0x72, 0x05, 0x21, 0x00, 0, 0, 0, 0));
            // with a field pointer: sense key specific descriptor (02h)
            byte[] invalid = u.run(Scsi.inquiry(true, 0x42, 255), null).sense();
            assertThat(invalid).isEqualTo(cdb(0x72, 0x05, 0x24, 0x00, 0, 0, 0, 8,
                    0x02, 0x06, 0, 0, 0xCF, 0x00, 0x02, 0));
            // with INFORMATION: the information descriptor (00h) carries the miscompare offset in 8 bytes
            byte[] data = Scsi.pattern(12, 512);
            u.run(Scsi.ten(0x2A, 0, 3, 1), data).assertGood();
            byte[] wrong = data.clone();
            wrong[300] ^= 1;
            byte[] miscompare = u.run(Scsi.ten(0x2F, 0x02, 3, 1), wrong).assertCheck(0xE, 0x1D, 0x00).sense();
            assertThat(miscompare).isEqualTo(cdb(0x72, 0x0E, 0x1D, 0x00, 0, 0, 0, 12,
                    0x00, 0x0A, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0x01, 0x2C));
            // the other nexus meets MODE PARAMETERS CHANGED, itself in descriptor format
            byte[] ua = run(u.target(), B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2A, 0x01).sense();
            assertThat(ua[0]).isEqualTo((byte) 0x72);
            run(u.target(), B, 0, Scsi.testUnitReady(), null).assertGood();
            // a logical unit reset restores the default (fixed format)
            u.target().logicalUnitReset(A, 0);
            assertThat(u.run(Scsi.ten(0x28, 0, 4096, 1), null).sense()[0]).isEqualTo((byte) 0x70);
        }
    }

    @Test
    void modeSelectRefusesUnchangeableFields() {
        try (Scsi.Unit u = Scsi.Unit.ram("msel", 512, 512, 1 << 20)) {
            byte[] wce = concat(cdb(0, 0, 0, 0, 0, 0, 0, 0), cdb(0x08, 0x12, 0x04), new byte[17]);
            u.run(Scsi.modeSelect10(wce.length), wce).assertCheck(0x5, 0x26, 0x00).assertParameterField(10, 2);
            byte[] qerr = concat(cdb(0, 0, 0, 0), cdb(0x0A, 0x0A, 0x02, 0x12, 0, 0, 0, 0, 0, 0, 0, 0));
            u.run(Scsi.modeSelect6(qerr.length), qerr).assertCheck(0x5, 0x26, 0x00).assertParameterField(7, 1);
            // parameter list shorter than PARAMETER LIST LENGTH: INVALID FIELD IN CDB at that field
            u.run(Scsi.modeSelect6(16), new byte[8]).assertCheck(0x5, 0x24, 0x00).assertCdbField(4, 7);
            u.run(Scsi.modeSelect10(16), new byte[8]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            // an empty parameter list changes nothing
            u.run(Scsi.modeSelect6(0), null).assertGood();
        }
    }

    @Test
    void fileBackendReportsAndLetsTheInitiatorTurnOffTheWriteCache(@TempDir Path dir) throws Exception {
        ExecutorService io = Executors.newSingleThreadExecutor();
        try (BlockDevice device = FileBlockDevice.open("wce", dir.resolve("d.img"), new BlockGeometry(4096, 4096, 64),
                new FileBlockDevice.Options(true, false, false), io)) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            byte[] caching = run(target, A, 0, Scsi.modeSense6(0x08, 0x08, 0, 255), null).assertGood().data();
            assertThat(caching[4 + 2]).isEqualTo((byte) 0x04);                       // WCE = 1
            byte[] mask = run(target, A, 0, Scsi.modeSense6(0x08, 0x48, 0, 255), null).assertGood().data();
            assertThat(mask[4 + 2]).isEqualTo((byte) 0x04);                          // WCE changeable
            byte[] off = concat(cdb(0, 0, 0, 0), cdb(0x08, 0x12, 0x00), new byte[17]);
            run(target, A, 0, Scsi.modeSelect6(off.length), off).assertGood();
            assertThat(run(target, A, 0, Scsi.modeSense6(0x08, 0x08, 0, 255), null).data()[6]).isZero();
            byte[] data = Scsi.pattern(11, 4096);
            run(target, A, 0, Scsi.ten(0x2A, 0, 1, 1), data).assertGood();           // now written through
            assertThat(run(target, A, 0, Scsi.ten(0x28, 0, 1, 1), null).data()).isEqualTo(data);
        } finally {
            io.shutdown();
        }
    }

    static byte[] concat(byte[]... parts) {
        byte[] all = new byte[0];
        for (byte[] p : parts) {
            all = ReadWriteTest.concat(all, p);
        }
        return all;
    }
}
