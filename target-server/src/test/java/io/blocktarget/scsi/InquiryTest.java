package io.blocktarget.scsi;

import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/** INQUIRY standard data and VPD pages, checked field by field against SPC-4 §6.6.2 / §7.8 and SBC-4 §6.6. */
class InquiryTest {
    private final RamBlockDevice device512 = Scsi.ram("lun-512", 512, 4096, Scsi.GIB);
    private final RamBlockDevice device16k = Scsi.ram("lun-16k", 16384, 65536, Scsi.GIB);
    private final ScsiTarget target = Scsi.target(device512, device16k);

    @AfterEach
    void close() {
        device512.close();
        device16k.close();
    }

    @Test
    void standardInquiryIsSpc4DirectAccessWithVersionDescriptors() {
        Scsi.Reply r = run(target, A, 0, inquiry(false, 0, 255), null).assertGood();
        assertThat(r.transferLength()).isEqualTo(96);   // what was returned: the transport reports the underflow
        byte[] d = r.data();
        byte[] expected = new byte[96];
        expected[0] = 0x00;                  // qualifier 000b, type 00h direct access block device
        expected[2] = 0x06;                  // VERSION SPC-4
        expected[3] = 0x12;                  // HISUP, RESPONSE DATA FORMAT 2
        expected[4] = 91;                    // ADDITIONAL LENGTH = 96 - 5
        expected[5] = 0x18;                  // TPGS 01b (implicit ALUA, RTPG; STPG only with the knob), 3PC (EXTENDED COPY)
        expected[7] = 0x02;                  // CMDQUE
        put(expected, 8, "BLKTARGTblocktarget     0.1 ");
        int[] versions = {0x00A0, 0x0960, 0x0460, 0x04C0}; // SAM-5, iSCSI, SPC-4, SBC-3
        for (int i = 0; i < versions.length; i++) {
            expected[58 + 2 * i] = (byte) (versions[i] >> 8);
            expected[59 + 2 * i] = (byte) versions[i];
        }
        assertThat(d).isEqualTo(expected);
    }

    @Test
    void allocationLengthTruncatesAndSetsTheTransferLength() {
        Scsi.Reply r = run(target, A, 0, inquiry(false, 0, 36), null).assertGood();
        assertThat(r.data()).hasSize(36);
        assertThat(r.transferLength()).isEqualTo(36);
        assertThat(run(target, A, 0, inquiry(false, 0, 0), null).assertGood().data()).isEmpty();
    }

    @Test
    void supportedVpdPages() {
        byte[] d = run(target, A, 0, inquiry(true, 0x00, 255), null).assertGood().data();
        assertThat(d).isEqualTo(Scsi.cdb(0x00, 0x00, 0x00, 0x06, 0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2));
    }

    @Test
    void unitSerialNumberIsTheHashOfTheLunName() throws Exception {
        byte[] d = run(target, A, 0, inquiry(true, 0x80, 255), null).assertGood().data();
        String serial = HexFormat.of().formatHex(sha256("lun-512"), 0, 16);
        assertThat(Arrays.copyOfRange(d, 0, 4)).isEqualTo(Scsi.cdb(0x00, 0x80, 0x00, 32));
        assertThat(new String(d, 4, d.length - 4, StandardCharsets.US_ASCII)).isEqualTo(serial);
    }

    @Test
    void deviceIdentificationCarriesNaaT10PortGroupAndNames() throws Exception {
        byte[] d = run(target, A, 0, inquiry(true, 0x83, 1024), null).assertGood().data();
        assertThat(d[1] & 0xFF).isEqualTo(0x83);
        assertThat(u16(d, 2)).isEqualTo(d.length - 4);
        byte[] h = sha256("lun-512");
        int at = 4;
        // NAA 6h: code set binary, LU association, type 3, length 16
        assertThat(Arrays.copyOfRange(d, at, at + 4)).isEqualTo(Scsi.cdb(0x01, 0x03, 0x00, 0x10));
        long top36 = u64(h, 0) >>> 28;
        assertThat(d[at + 4] & 0xFF).isEqualTo(0x60);                       // NAA 6h, COMPANY_ID 23-20 = 0
        assertThat(u16(d, at + 5)).isEqualTo(0x2000);                       // COMPANY_ID 19-4: 020000h, U/L bit set
        assertThat(d[at + 7] & 0xFF).isEqualTo((int) (top36 >>> 32));       // COMPANY_ID 3-0 = 0, VSID 35-32
        assertThat(u32(d, at + 8)).isEqualTo(top36 & 0xFFFF_FFFFL);
        assertThat(u64(d, at + 12)).isEqualTo(u64(h, 8));
        at += 20;
        // T10 vendor ID: ASCII, LU, type 1
        int t10Length = 8 + "lun-512".length();
        assertThat(Arrays.copyOfRange(d, at, at + 4)).isEqualTo(Scsi.cdb(0x02, 0x01, 0x00, t10Length));
        assertThat(new String(d, at + 4, t10Length, StandardCharsets.US_ASCII)).isEqualTo("BLKTARGTlun-512");
        at += 4 + t10Length;
        // relative target port 1 and target port group 1: iSCSI, PIV, target port association
        assertThat(Arrays.copyOfRange(d, at, at + 16)).isEqualTo(Scsi.cdb(
                0x51, 0x94, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
                0x51, 0x95, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01));
        at += 16;
        // SCSI name string of the target port (UTF-8, PIV, port association, type 8)
        String port = Scsi.TARGET + ",t,0x0001";
        int portLength = (port.length() + 1 + 3) & ~3;
        assertThat(Arrays.copyOfRange(d, at, at + 4)).isEqualTo(Scsi.cdb(0x53, 0x98, 0x00, portLength));
        assertThat(new String(d, at + 4, port.length(), StandardCharsets.UTF_8)).isEqualTo(port);
        at += 4 + portLength;
        // and of the target device (association 2)
        int deviceLength = (Scsi.TARGET.length() + 1 + 3) & ~3;
        assertThat(Arrays.copyOfRange(d, at, at + 4)).isEqualTo(Scsi.cdb(0x53, 0xA8, 0x00, deviceLength));
        assertThat(new String(d, at + 4, Scsi.TARGET.length(), StandardCharsets.UTF_8)).isEqualTo(Scsi.TARGET);
        assertThat(at + 4 + deviceLength).isEqualTo(d.length);
    }

    @Test
    void designatorsDifferBetweenLunsAndAreStable() {
        byte[] first = run(target, A, 0, inquiry(true, 0x83, 1024), null).data();
        byte[] again = run(Scsi.target(device512), A, 0, inquiry(true, 0x83, 1024), null).data();
        byte[] other = run(target, A, 1, inquiry(true, 0x83, 1024), null).data();
        assertThat(again).isEqualTo(first);
        assertThat(Arrays.copyOfRange(other, 8, 24)).isNotEqualTo(Arrays.copyOfRange(first, 8, 24));
    }

    @Test
    void blockLimitsAt512AdvertiseWriteSame() {
        byte[] d = run(target, A, 0, inquiry(true, 0xB0, 255), null).assertGood().data();
        assertThat(d).hasSize(64);
        assertThat(Arrays.copyOfRange(d, 0, 4)).isEqualTo(Scsi.cdb(0x00, 0xB0, 0x00, 0x3C));
        assertThat(d[4]).isEqualTo((byte) 0x01);                 // WSNZ
        assertThat(d[5] & 0xFF).isEqualTo(255);                  // MAXIMUM COMPARE AND WRITE LENGTH
        assertThat(u16(d, 6)).isEqualTo(8);                      // OPTIMAL TRANSFER LENGTH GRANULARITY = 4096/512
        assertThat(u32(d, 8)).isEqualTo(16384);                  // MAXIMUM TRANSFER LENGTH = 8 MiB / 512
        assertThat(u32(d, 12)).isEqualTo(2048);                  // OPTIMAL TRANSFER LENGTH = 1 MiB / 512
        assertThat(u32(d, 16)).isEqualTo(16384);                 // MAXIMUM PREFETCH LENGTH = one maximum transfer
        assertThat(u32(d, 20)).isEqualTo(0xFFFF_FFFFL);          // MAXIMUM UNMAP LBA COUNT: no limit
        assertThat(u32(d, 24)).isEqualTo(256);                   // MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT
        assertThat(u32(d, 28)).isEqualTo(8);                     // OPTIMAL UNMAP GRANULARITY
        assertThat(u32(d, 32)).isEqualTo(0x8000_0000L);          // UGAVALID, alignment 0
        assertThat(u64(d, 36)).isEqualTo((1L << 30) / 512);      // MAXIMUM WRITE SAME LENGTH
        assertThat(Arrays.copyOfRange(d, 44, 64)).isEqualTo(new byte[20]);
    }

    @Test
    void blockLimitsAbove4kHideWriteSame() {
        byte[] d = run(target, A, 1, inquiry(true, 0xB0, 255), null).assertGood().data();
        assertThat(u16(d, 6)).isEqualTo(4);                      // 64 KiB / 16 KiB
        assertThat(u32(d, 8)).isEqualTo(512);                    // 8 MiB / 16 KiB
        assertThat(u32(d, 12)).isEqualTo(64);                    // 1 MiB / 16 KiB
        assertThat(u64(d, 36)).isZero();                         // WRITE SAME not advertised
        assertThat(u32(d, 20)).isEqualTo(0xFFFF_FFFFL);          // UNMAP still is
    }

    @Test
    void blockLimitsCapTheGranularityAt2To15AndTheOptimalAtTheMaximum() {
        try (var huge = new io.blocktarget.block.nil.NullBlockDevice("pbs32m",
                new io.blocktarget.block.BlockGeometry(512, 32 << 20, 1L << 30), false)) {
            byte[] d = run(Scsi.target(huge), A, 0, inquiry(true, 0xB0, 255), null).assertGood().data();
            assertThat(u16(d, 6)).isEqualTo(1 << 15);               // 2^16 blocks per physical block do not fit
            assertThat(u32(d, 8)).isEqualTo(16384);
            assertThat(u32(d, 12)).isEqualTo(16384);                 // max(1 MiB, PBS) capped at the maximum
        }
    }

    @Test
    void blockDeviceCharacteristicsSayNonRotating() {
        byte[] d = run(target, A, 0, inquiry(true, 0xB1, 255), null).assertGood().data();
        byte[] expected = new byte[64];
        expected[1] = (byte) 0xB1;
        expected[3] = 0x3C;
        expected[5] = 0x01;                                      // MEDIUM ROTATION RATE 0001h
        expected[7] = 0x50;                                      // WABEREQ = WACEREQ = 01b: erased blocks read GOOD
        assertThat(d).isEqualTo(expected);
    }

    @Test
    void logicalBlockProvisioningDependsOnWriteSameAdvertising() {
        assertThat(run(target, A, 0, inquiry(true, 0xB2, 255), null).assertGood().data())
                .isEqualTo(Scsi.cdb(0x00, 0xB2, 0x00, 0x04, 0x00, 0xE4, 0x02, 0x00)); // LBPU LBPWS LBPWS10 LBPRZ=1, thin
        assertThat(run(target, A, 1, inquiry(true, 0xB2, 255), null).assertGood().data())
                .isEqualTo(Scsi.cdb(0x00, 0xB2, 0x00, 0x04, 0x00, 0x84, 0x02, 0x00)); // LBPU LBPRZ=1 only
    }

    @Test
    void unknownVpdPageIsInvalidFieldInCdbAtPageCode() {
        run(target, A, 0, inquiry(true, 0x86, 255), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
    }

    @Test
    void pageCodeWithoutEvpdIsRejectedByTheParser() {
        run(target, A, 0, inquiry(false, 0x80, 255), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
    }

    private static void put(byte[] b, int at, String ascii) {
        byte[] s = ascii.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(s, 0, b, at, s.length);
    }

    static byte[] sha256(String s) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    }
}
