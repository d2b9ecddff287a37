package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Standard INQUIRY (SPC-4 Table 138) and VPD pages 00h, 80h, 83h (SPC-4 §7.8), B0h-B2h (SBC-4 §6.6). */
class InquiryDataTest {

    private static final Peripheral DISK = Peripheral.DIRECT_ACCESS_BLOCK_DEVICE;

    @Test
    void standardInquiry() {
        StandardInquiryData data = new StandardInquiryData(DISK, false, StandardInquiryData.VERSION_SPC_4, false,
                true, 0, true, false, true, "BLKTGT", "ram-4k", "0.1",
                List.of(VersionDescriptor.SAM_5, VersionDescriptor.ISCSI, VersionDescriptor.SPC_4,
                        VersionDescriptor.SBC_3, VersionDescriptor.SBC_4));
        byte[] expected = new byte[96];
        expected[0] = 0x00;          // PQ 000b, PDT 00h
        expected[1] = 0x00;          // RMB 0
        expected[2] = 0x06;          // VERSION: SPC-4
        expected[3] = 0x12;          // HISUP, RESPONSE DATA FORMAT 2
        expected[4] = 91;            // ADDITIONAL LENGTH = 96 - 5
        expected[5] = 0x08;          // 3PC
        expected[6] = 0x00;
        expected[7] = 0x02;          // CMDQUE
        System.arraycopy("BLKTGT  ".getBytes(), 0, expected, 8, 8);
        System.arraycopy("ram-4k          ".getBytes(), 0, expected, 16, 16);
        System.arraycopy("0.1 ".getBytes(), 0, expected, 32, 4);
        byte[] versions = hex("00a0 0960 0460 04c0 0600");
        System.arraycopy(versions, 0, expected, 58, versions.length);
        assertThat(encode(data::encode)).isEqualTo(expected);
    }

    @Test
    void standardInquiryFlagsAndNotCapableLun() {
        StandardInquiryData data = new StandardInquiryData(Peripheral.NOT_CAPABLE, true, 0x06, true, false, 3,
                false, true, false, "A", "B", "C", List.of());
        byte[] bytes = encode(data::encode);
        assertThat(bytes).hasSize(96);
        assertThat(bytes[0]).isEqualTo((byte) 0x7F); // PQ 011b, PDT 1Fh
        assertThat(bytes[1]).isEqualTo((byte) 0x80); // RMB
        assertThat(bytes[3]).isEqualTo((byte) 0x22); // NORMACA, format 2
        assertThat(bytes[5]).isEqualTo((byte) 0x31); // TPGS 11b, PROTECT
        assertThat(bytes[7]).isEqualTo((byte) 0x00);
        assertThat(java.util.Arrays.copyOfRange(bytes, 58, 96)).containsOnly(0);
    }

    @Test
    void standardInquiryRejectsBadText() {
        assertThatThrownBy(() -> new StandardInquiryData(DISK, false, 6, false, false, 0, false, false, false,
                "TOO-LONG-VENDOR", "p", "r", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StandardInquiryData(DISK, false, 6, false, false, 0, false, false, false,
                "V", "bad\u00e9", "r", List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void supportedVpdPages() {
        VpdPage page = new SupportedVpdPages(List.of(0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2));
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("00 00 0006 00 80 83 b0 b1 b2"));
        assertThatThrownBy(() -> new SupportedVpdPages(List.of(0x80, 0x00))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unitSerialNumber() {
        VpdPage page = new UnitSerialNumberVpd("SN01");
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("00 80 0004 53 4e 30 31"));
    }

    @Test
    void deviceIdentification() {
        VpdPage page = new DeviceIdentificationVpd(List.of(
                new Designator.NaaRegisteredExtended(0x001405, 0x123456789L, 0x0102030405060708L),
                new Designator.T10VendorId("BLKTGT", "x1"),
                new Designator.RelativeTargetPort(1, OptionalInt.of(Designator.PROTOCOL_ISCSI)),
                new Designator.TargetPortGroup(0x0203, OptionalInt.empty()),
                Designator.ScsiNameString.iscsiTargetPort("iqn.x:y", 1),
                Designator.ScsiNameString.iscsiTargetDevice("iqn.x:y")));
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("""
                00 83 0056   # PAGE LENGTH = 20 + 14 + 8 + 8 + 24 + 12 = 86
                01 03 00 10  60 01 40 51 23 45 67 89 01 02 03 04 05 06 07 08
                02 01 00 0a  42 4c 4b 54 47 54 20 20 78 31
                51 94 00 04  00 00 00 01
                01 15 00 04  00 00 02 03
                53 98 00 14  69 71 6e 2e 78 3a 79 2c 74 2c 30 78 30 30 30 31 00 00 00 00
                53 a8 00 08  69 71 6e 2e 78 3a 79 00
                """.replaceAll("#[^\\n]*", "")));
        // NAA 6: COMPANY_ID 001405h split over nibbles: 6|0, 01, 40, 5|VSID 35-32 (1), then VSID 31-0
        // T10: ASCII, LU, type 1; rel port: PIV, iSCSI 5, binary, assoc target port, type 4
        // TPG: binary, assoc target port, type 5; names: UTF-8 (3), PIV, iSCSI, assoc 1 or 2, type 8
    }

    @Test
    void designatorsValidate() {
        assertThatThrownBy(() -> new Designator.ScsiNameString(Designator.Association.LOGICAL_UNIT,
                OptionalInt.of(5), "iqn")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Designator.NaaRegisteredExtended(0x1000000, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Designator.RelativeTargetPort(0, OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void blockLimits() {
        VpdPage page = new BlockLimitsVpd(true, 1, 16, 0x400, 0x80, 0, 0x40_0000, 256, 16, OptionalLong.of(0),
                0x1_0000_0000L);
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("""
                00 b0 003c
                01          # 4: WSNZ
                01          # 5: MAXIMUM COMPARE AND WRITE LENGTH
                0010        # 6-7: OPTIMAL TRANSFER LENGTH GRANULARITY (PBS/LBS = 16)
                00000400    # 8-11: MAXIMUM TRANSFER LENGTH
                00000080    # 12-15: OPTIMAL TRANSFER LENGTH
                00000000    # 16-19: MAXIMUM PREFETCH LENGTH
                00400000    # 20-23: MAXIMUM UNMAP LBA COUNT
                00000100    # 24-27: MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT
                00000010    # 28-31: OPTIMAL UNMAP GRANULARITY
                80000000    # 32-35: UGAVALID, alignment 0
                0000000100000000 # 36-43: MAXIMUM WRITE SAME LENGTH
                0000000000000000000000000000000000000000 # 44-63: atomic fields
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void blockLimitsWithoutUnmapGranularityAlignment() {
        VpdPage page = new BlockLimitsVpd(false, 0, 1, 0xFFFF_FFFFL, 0, 0, 0, 0, 0, OptionalLong.empty(), 0);
        byte[] bytes = encode(out -> page.encode(out, DISK));
        assertThat(bytes).hasSize(64);
        assertThat(java.util.Arrays.copyOfRange(bytes, 4, 12)).isEqualTo(hex("00 00 0001 ffffffff"));
        assertThat(java.util.Arrays.copyOfRange(bytes, 32, 36)).isEqualTo(hex("00000000"));
    }

    @Test
    void blockDeviceCharacteristics() {
        VpdPage page = BlockDeviceCharacteristicsVpd.nonRotating();
        byte[] expected = new byte[64];
        expected[1] = (byte) 0xB1;
        expected[3] = 0x3C;   // PAGE LENGTH
        expected[5] = 0x01;   // MEDIUM ROTATION RATE 0001h: non-rotating
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(expected);
        VpdPage other = new BlockDeviceCharacteristicsVpd(7200, 0, 0x2, true, true);
        byte[] bytes = encode(out -> other.encode(out, DISK));
        assertThat(java.util.Arrays.copyOfRange(bytes, 4, 9)).isEqualTo(hex("1c20 00 02 03"));
    }

    /** SBC-4 Table 205, byte 7: WABEREQ in bits 7-6, WACEREQ in 5-4, NOMINAL FORM FACTOR in 3-0. */
    @Test
    void blockDeviceCharacteristicsSanitizeRequirements() {
        int good = BlockDeviceCharacteristicsVpd.ERASED_READS_GOOD;
        byte[] bytes = encode(out -> new BlockDeviceCharacteristicsVpd(1, 0, good, good, 0, false, false)
                .encode(out, DISK));
        assertThat(bytes[7]).isEqualTo((byte) 0x50);
        bytes = encode(out -> new BlockDeviceCharacteristicsVpd(1, 0, 0b11, 0b10, 0xF, false, false).encode(out, DISK));
        assertThat(bytes[7]).isEqualTo((byte) 0xEF);
        assertThatThrownBy(() -> new BlockDeviceCharacteristicsVpd(1, 0, 4, 0, 0, false, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void logicalBlockProvisioningThin() {
        VpdPage page = new LogicalBlockProvisioningVpd(0, true, true, false, 1, false, 0,
                LogicalBlockProvisioningVpd.ProvisioningType.THIN_PROVISIONED, 0, Optional.empty());
        // 5: LBPU | LBPWS | LBPRZ=001b<<2 = 80|40|04 = c4; 6: PROVISIONING TYPE 2
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("00 b2 0004 00 c4 02 00"));
    }

    @Test
    void logicalBlockProvisioningWithGroupDescriptorSetsDp() {
        VpdPage page = new LogicalBlockProvisioningVpd(3, false, false, true, 0, true, 0x1F,
                LogicalBlockProvisioningVpd.ProvisioningType.RESOURCE_PROVISIONED, 0x50,
                Optional.of(new Designator.TargetPortGroup(7, OptionalInt.empty())));
        // 5: LBPWS10 | ANC_SUP | DP = 20|02|01 = 23; 6: MINIMUM PERCENTAGE 1Fh << 3 | 1 = f9
        assertThat(encode(out -> page.encode(out, DISK))).isEqualTo(hex("00 b2 000c 03 23 f9 50 01 15 00 04 0000 0007"));
    }
}
