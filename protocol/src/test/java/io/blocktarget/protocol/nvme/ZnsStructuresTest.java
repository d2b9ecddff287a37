package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static io.blocktarget.protocol.nvme.TestBytes.putLe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** Zoned Namespace Command Set 1.1 wire structures, byte for byte at the offsets of the spec's figures. */
class ZnsStructuresTest {

    @Test
    void znsIdentifyControllerIsZaslInByteZero() {
        byte[] e = new byte[4096];
        e[0] = 5; // ZASL: 2^5 × 4 KiB = 128 KiB
        assertThat(TestBytes.encode(new ZnsIdentifyController(5)::encode)).isEqualTo(e);
        assertThat(ZnsIdentifyController.get(Unpooled.wrappedBuffer(e)).zasl()).isEqualTo(5);
        assertThatThrownBy(() -> new ZnsIdentifyController(256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void znsIdentifyNamespaceAtSpecOffsets() {
        byte[] e = new byte[4096];
        putLe(e, 0, 0, 2);                 // 0..1 ZOC: no variable capacity, no active excursions (Linux needs 0)
        putLe(e, 2, 1, 2);                 // 2..3 OZCS: RAZB
        putLe(e, 4, 13, 4);                // 4..7 MAR: 14 active zones, 0's based
        putLe(e, 8, 0xFFFF_FFFFL, 4);      // 8..11 MOR: no limit
        putLe(e, 12, 7, 4);                // 12..15 RRL
        putLe(e, 16, 9, 4);                // 16..19 FRL
        putLe(e, 2816, 0x8000, 8);         // 2816 LBAFE0 ZSZE: 32768 blocks
        e[2824] = 0;                       // 2824 LBAFE0 ZDES
        putLe(e, 2832, 0x4000, 8);         // 2832 LBAFE1 ZSZE
        e[2840] = 2;                       // 2840 LBAFE1 ZDES: 128 bytes of extension
        ZnsIdentifyNamespace ns = new ZnsIdentifyNamespace(0, ZnsIdentifyNamespace.OZCS_READ_ACROSS_ZONE_BOUNDARIES,
                ZnsIdentifyNamespace.resources(14), ZnsIdentifyNamespace.resources(0), 7, 9,
                List.of(new ZnsIdentifyNamespace.LbaFormatExtension(0x8000, 0),
                        new ZnsIdentifyNamespace.LbaFormatExtension(0x4000, 2)));
        assertThat(TestBytes.encode(ns::encode)).isEqualTo(e).hasSize(ZnsIdentifyNamespace.SIZE);
        assertThat(ZnsIdentifyNamespace.get(Unpooled.wrappedBuffer(e), 2)).isEqualTo(ns);
    }

    @Test
    void resourcesAreZerosBasedWithAllOnesForNoLimit() {
        assertThat(ZnsIdentifyNamespace.resources(1)).isZero();
        assertThat(ZnsIdentifyNamespace.resources(0)).isEqualTo(0xFFFF_FFFFL);
        assertThat(ZnsIdentifyNamespace.resources(0xFFFF_FFFFL)).isEqualTo(0xFFFF_FFFEL);
        assertThatThrownBy(() -> ZnsIdentifyNamespace.resources(0x1_0000_0000L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZnsIdentifyNamespace.resources(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void lbaFormatExtensionsStopAtSixtyFour() {
        List<ZnsIdentifyNamespace.LbaFormatExtension> ext = new ArrayList<>();
        for (int k = 0; k < 64; k++) {
            ext.add(new ZnsIdentifyNamespace.LbaFormatExtension(1L << k, 0));
        }
        byte[] b = TestBytes.encode(new ZnsIdentifyNamespace(0, 0, 0, 0, 0, 0, ext)::encode);
        assertThat(TestBytes.le(b, 2816 + 16 * 63, 8)).isEqualTo(1L << 63); // the last one ends at 3839
        assertThat(TestBytes.le(b, 3840, 8)).isZero();                      // vendor specific from 3840
        ext.add(new ZnsIdentifyNamespace.LbaFormatExtension(1, 0));
        assertThatThrownBy(() -> new ZnsIdentifyNamespace(0, 0, 0, 0, 0, 0, ext))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ioCommandSetCombinationsAreCsiBitVectors() {
        byte[] e = new byte[4096];
        putLe(e, 0, 0b101, 8);  // combination 0: NVM (CSI 0) + Zoned Namespace (CSI 2)
        putLe(e, 8, 0b001, 8);  // combination 1: NVM only
        long nvmZns = IoCommandSets.vector(IdentifyCommand.CSI_NVM, IdentifyCommand.CSI_ZNS);
        assertThat(nvmZns).isEqualTo(5);
        assertThat(TestBytes.encode(out -> IoCommandSets.encode(out, List.of(nvmZns, 1L)))).isEqualTo(e);
        assertThatThrownBy(() -> IoCommandSets.vector(64)).isInstanceOf(IllegalArgumentException.class);
        List<Long> tooMany = new ArrayList<>();
        for (int k = 0; k <= 512; k++) {
            tooMany.add(1L);
        }
        assertThatThrownBy(() -> TestBytes.encode(out -> IoCommandSets.encode(out, tooMany)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void zoneDescriptorAtSpecOffsets() {
        byte[] e = hex("""
                02            # 0 ZT: sequential write required
                20            # 1 ZS bits 7:4 = 2h implicitly opened
                04            # 2 ZA: reset zone recommended
                00            # 3 ZAI
                00000000      # 4..7 reserved
                0040000000000000  # 8..15 ZCAP 4000h
                0080000000000000  # 16..23 ZSLBA 8000h
                1080000000000000  # 24..31 WP 8010h
                """ + TestBytes.zeros(32));  // 32..63 reserved
        ZoneDescriptor d = ZoneDescriptor.of(ZoneState.IMPLICITLY_OPENED, ZoneDescriptor.ZA_RESET_ZONE_RECOMMENDED,
                0x4000, 0x8000, 0x8010);
        assertThat(TestBytes.encode(d::encode)).isEqualTo(e).hasSize(ZoneDescriptor.SIZE);
        assertThat(ZoneDescriptor.get(Unpooled.wrappedBuffer(e), 0)).isEqualTo(d);
    }

    @Test
    void writePointerIsAllOnesWhereTheStateHasNone() {
        for (ZoneState s : ZoneState.values()) {
            ZoneDescriptor d = ZoneDescriptor.of(s, 0, 16, 32, 40);
            boolean valid = s != ZoneState.FULL && s != ZoneState.READ_ONLY && s != ZoneState.OFFLINE;
            assertThat(d.wp()).as(s.name()).isEqualTo(valid ? 40 : -1L);
        }
    }

    @Test
    void zoneStatesHaveTheSpecCodes() {
        assertThat(ZoneState.EMPTY.code()).isEqualTo(0x1);
        assertThat(ZoneState.IMPLICITLY_OPENED.code()).isEqualTo(0x2);
        assertThat(ZoneState.EXPLICITLY_OPENED.code()).isEqualTo(0x3);
        assertThat(ZoneState.CLOSED.code()).isEqualTo(0x4);
        assertThat(ZoneState.READ_ONLY.code()).isEqualTo(0xD);
        assertThat(ZoneState.FULL.code()).isEqualTo(0xE);
        assertThat(ZoneState.OFFLINE.code()).isEqualTo(0xF);
        assertThat(ZoneState.of(0x5)).isEmpty();
        assertThat(ZoneDescriptor.get(Unpooled.wrappedBuffer(new byte[64]), 0)).isNull(); // ZS 0 is no state
    }

    @Test
    void reportZonesHeaderThenDescriptorsFromByte64() {
        ZoneDescriptor a = ZoneDescriptor.of(ZoneState.EMPTY, 0, 8, 0, 0);
        ZoneDescriptor b = ZoneDescriptor.of(ZoneState.FULL, 0, 8, 8, 16);
        byte[] out = TestBytes.encode(buf -> ZoneReport.encode(buf, 5, List.of(a, b), 0, 64 + 128 + 16));
        assertThat(out).hasSize(208);
        assertThat(TestBytes.le(out, 0, 8)).isEqualTo(5);         // NZ as given (not partial: all matching)
        assertThat(TestBytes.le(out, 8, 8)).isZero();             // 8..63 reserved
        assertThat(out[64]).isEqualTo((byte) 0x02);
        assertThat(out[65]).isEqualTo((byte) 0x10);
        assertThat(out[128 + 1]).isEqualTo((byte) 0xE0);
        assertThat(TestBytes.le(out, 128 + 16, 8)).isEqualTo(8);  // second ZSLBA
        assertThat(TestBytes.le(out, 128 + 24, 8)).isEqualTo(-1L); // Full: WP not valid
        assertThat(TestBytes.le(out, 192, 8)).isZero();           // padding
    }

    @Test
    void reportZonesStopsAtTheBufferAndLeavesRoomForExtensions() {
        ZoneDescriptor a = ZoneDescriptor.of(ZoneState.EMPTY, 0, 8, 0, 0);
        ZoneDescriptor b = ZoneDescriptor.of(ZoneState.EMPTY, 0, 8, 8, 8);
        // extended report, ZDES 1: 128-byte entries; a 64 + 200 byte buffer holds one
        byte[] out = TestBytes.encode(buf -> ZoneReport.encode(buf, 1, List.of(a, b), 64, 264));
        assertThat(out).hasSize(264);
        assertThat(TestBytes.le(out, 64 + 16, 8)).isZero();
        assertThat(out[64]).isEqualTo((byte) 2);
        assertThat(out[192]).isZero(); // the second entry did not fit
        assertThat(ZoneReport.capacity(264, 128)).isEqualTo(1);
        assertThat(ZoneReport.capacity(64 + 255, 64)).isEqualTo(3);
        assertThat(ZoneReport.capacity(63, 64)).isZero();
        // shorter than the header: the first bytes of NZ only
        assertThat(TestBytes.encode(buf -> ZoneReport.encode(buf, 0x0102, List.of(a), 0, 4)))
                .isEqualTo(hex("02010000"));
    }

    @Test
    void changedZoneListHoldsFiveHundredElevenIdentifiers() {
        List<Long> zones = new ArrayList<>();
        for (long k = 0; k < 511; k++) {
            zones.add(k << 20);
        }
        byte[] full = TestBytes.encode(out -> ChangedZoneList.encode(out, zones));
        assertThat(full).hasSize(4096);
        assertThat(TestBytes.le(full, 0, 2)).isEqualTo(511);
        assertThat(TestBytes.le(full, 2, 6)).isZero();                 // 2..7 reserved
        assertThat(TestBytes.le(full, 8, 8)).isZero();                 // identifier 0: ZSLBA 0
        assertThat(TestBytes.le(full, 16, 8)).isEqualTo(1L << 20);
        assertThat(TestBytes.le(full, 4088, 8)).isEqualTo(510L << 20); // the 511th ends the page
        zones.add(511L << 20);
        byte[] over = TestBytes.encode(out -> ChangedZoneList.encode(out, zones));
        assertThat(TestBytes.le(over, 0, 2)).isEqualTo(0xFFFF);
        assertThat(TestBytes.le(over, 8, 8)).isZero();
        assertThat(TestBytes.le(over, 16, 8)).isZero();
    }

    @Test
    void zoneManagementSendFields() {
        byte[] sqe = hex("""
                79 40 07 00   # opcode 79h; PSDT 01b; CID 7
                01 00 00 00   # NSID 1
                """ + TestBytes.zeros(16) + """
                00000000 00000000 00000000 0000005a   # SGL: transport data block, length 0
                00 80 00 00   # CDW10 SLBA bits 31:0 = 8000h
                01 00 00 00   # CDW11 SLBA bits 63:32 = 1
                00 00 00 00   # CDW12 reserved
                04 01 00 00   # CDW13 ZSA 04h reset, bit 8 Select All
                00000000 00000000
                """);
        Sqe s = Sqe.get(Unpooled.wrappedBuffer(sqe), 0);
        ZoneManagementSendCommand c = ZoneManagementSendCommand.parse(s).orNull();
        assertThat(c).isNotNull();
        assertThat(c.slba()).isEqualTo(0x1_0000_8000L);
        assertThat(c.zsa()).isEqualTo(ZoneManagementSendCommand.Action.RESET);
        assertThat(c.selectAll()).isTrue();
        assertThat(c.zsaso()).isFalse();
        assertThat(encode(c.toSqe())).isEqualTo(sqe);
        for (var a : ZoneManagementSendCommand.Action.values()) {
            Sqe one = new ZoneManagementSendCommand(1, 1, 0, a, false, true, SglDescriptor.transportDataBlock(0))
                    .toSqe();
            assertThat(one.cdw13()).isEqualTo(a.code() | 1 << 9);
            assertThat(ZoneManagementSendCommand.parse(one).orNull().zsa()).isEqualTo(a);
        }
        assertThat(List.of(0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x11)).containsExactlyElementsOf(
                java.util.Arrays.stream(ZoneManagementSendCommand.Action.values()).map(a -> a.code()).toList());
    }

    @Test
    void zoneManagementSendRejectsReservedActions() {
        for (int zsa : new int[] {0x00, 0x06, 0x0F, 0x12, 0xFF}) {
            Sqe s = Sqe.of(0x79, 1, 1, SglDescriptor.transportDataBlock(0), 0, 0, 0, zsa);
            assertThat(ZoneManagementSendCommand.parse(s).status()).as("ZSA %x", zsa)
                    .isEqualTo(NvmeStatus.INVALID_FIELD);
        }
        assertThat(ZoneManagementSendCommand.parse(Sqe.of(0x7A, 1, 1, SglDescriptor.transportDataBlock(0))).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    @Test
    void zoneManagementReceiveAsLinuxSendsIt() {
        // nvme_ns_report_zones: ZRA 00h, ZRASF 00h (all), partial report, NUMD for a 4 KiB + 64 buffer
        byte[] sqe = hex("""
                7a 40 09 00   # opcode 7Ah; PSDT 01b; CID 9
                02 00 00 00   # NSID 2
                """ + TestBytes.zeros(16) + """
                00000000 00000000 40100000 0000005a   # SGL length 1040h
                00 00 10 00   # CDW10 SLBA 100000h
                00 00 00 00   # CDW11
                0f 04 00 00   # CDW12 NUMD 40Fh: 1040h bytes
                00 00 01 00   # CDW13 ZRA 0, ZRASF 0, bit 16 partial report
                00000000 00000000
                """);
        Sqe s = Sqe.get(Unpooled.wrappedBuffer(sqe), 0);
        ZoneManagementReceiveCommand c = ZoneManagementReceiveCommand.parse(s).orNull();
        assertThat(c).isNotNull();
        assertThat(c.slba()).isEqualTo(0x10_0000L);
        assertThat(c.lengthBytes()).isEqualTo(0x1040);
        assertThat(c.zra()).isEqualTo(ZoneManagementReceiveCommand.Action.REPORT_ZONES);
        assertThat(c.zrasf()).isEqualTo(ZoneManagementReceiveCommand.ReportingOption.ALL);
        assertThat(c.partial()).isTrue();
        assertThat(encode(c.toSqe())).isEqualTo(sqe);
    }

    @Test
    void zoneManagementReceiveChecksActionOptionAndLength() {
        SglDescriptor page = SglDescriptor.transportDataBlock(4096);
        // every reporting option 0..7 parses and selects its state; 8 and above are reserved
        for (var o : ZoneManagementReceiveCommand.ReportingOption.values()) {
            Sqe s = Sqe.of(0x7A, 1, 1, page, 0, 0, 1023, 0x01 | o.code() << 8);
            assertThat(ZoneManagementReceiveCommand.parse(s).orNull().zrasf()).isEqualTo(o);
        }
        assertThat(ZoneManagementReceiveCommand.ReportingOption.ALL.matches(ZoneState.OFFLINE)).isTrue();
        assertThat(ZoneManagementReceiveCommand.ReportingOption.CLOSED.matches(ZoneState.CLOSED)).isTrue();
        assertThat(ZoneManagementReceiveCommand.ReportingOption.CLOSED.matches(ZoneState.FULL)).isFalse();
        assertThat(ZoneManagementReceiveCommand.ReportingOption.READ_ONLY.code()).isEqualTo(6);
        assertThat(ZoneManagementReceiveCommand.parse(Sqe.of(0x7A, 1, 1, page, 0, 0, 1023, 8 << 8)).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(ZoneManagementReceiveCommand.parse(Sqe.of(0x7A, 1, 1, page, 0, 0, 1023, 0x02)).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD); // ZRA 02h reserved
        // NUMD 1023 = 4096 bytes fits the SGL exactly; 1024 is one dword more than it holds
        assertThat(ZoneManagementReceiveCommand.parse(Sqe.of(0x7A, 1, 1, page, 0, 0, 1023, 0)).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(ZoneManagementReceiveCommand.parse(Sqe.of(0x7A, 1, 1, page, 0, 0, 1024, 0)).status())
                .isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
    }

    @Test
    void zoneAppendFieldsAndAssignedLba() {
        byte[] sqe = hex("""
                7d 40 0b 00   # opcode 7Dh; PSDT 01b; CID 11
                01 00 00 00   # NSID 1
                """ + TestBytes.zeros(16) + """
                00000000 00000000 00200000 0000005a   # SGL length 8192
                00 00 02 00   # CDW10 ZSLBA 20000h
                00 00 00 00   # CDW11
                01 00 00 40   # CDW12 NLB 1 (2 blocks), FUA
                00000000 00000000 00000000
                """);
        ZoneAppendCommand c = ZoneAppendCommand.parse(Sqe.get(Unpooled.wrappedBuffer(sqe), 0)).orNull();
        assertThat(c).isNotNull();
        assertThat(c.zslba()).isEqualTo(0x2_0000L);
        assertThat(c.blocks()).isEqualTo(2);
        assertThat(c.fua()).isTrue();
        assertThat(encode(c.toSqe())).isEqualTo(sqe);
        assertThat(ZoneAppendCommand.assignedLbaDw0(0x1_2345_6789L)).isEqualTo(0x2345_6789);
        assertThat(ZoneAppendCommand.assignedLbaDw1(0x1_2345_6789L)).isEqualTo(1);
    }

    @Test
    void zoneAppendLimits() {
        ZoneAppendCommand c = new ZoneAppendCommand(1, 1, 0x20, 1, false, false, false,
                SglDescriptor.transportDataBlock(8192));
        // ZASL at the limit passes, one block more than ZASL is Invalid Field
        assertThat(c.validate(0x40, 4096, 8192, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(c.validate(0x40, 4096, 4096, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);
        // ZSLBA outside the namespace
        assertThat(c.validate(0x20, 4096, 8192, 0)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        // the data pointer must be exactly NLB × LBS
        assertThat(new ZoneAppendCommand(1, 1, 0, 0, false, false, false, SglDescriptor.transportDataBlock(8192))
                .validate(0x40, 4096, 8192, 0)).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        // protection information fields on a namespace without it
        assertThat(ZoneAppendCommand.parse(Sqe.of(0x7D, 1, 1, SglDescriptor.transportDataBlock(4096), 0, 0,
                1 << 25)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(ZoneAppendCommand.parse(Sqe.of(0x7D, 1, 1, SglDescriptor.transportDataBlock(4096), 0, 0,
                1 << 26)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void znsStatusCodesAreCommandSpecific() {
        assertThat(List.of(NvmeStatus.ZONE_BOUNDARY_ERROR, NvmeStatus.ZONE_IS_FULL, NvmeStatus.ZONE_IS_READ_ONLY,
                NvmeStatus.ZONE_IS_OFFLINE, NvmeStatus.ZONE_INVALID_WRITE, NvmeStatus.TOO_MANY_ACTIVE_ZONES,
                NvmeStatus.TOO_MANY_OPEN_ZONES, NvmeStatus.INVALID_ZONE_STATE_TRANSITION))
                .extracting(NvmeStatus::sc).containsExactly(0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF);
        for (int sc = 0xB8; sc <= 0xBF; sc++) {
            NvmeStatus s = NvmeStatus.of(1, sc);
            assertThat(s.sct()).isEqualTo(NvmeStatus.StatusCodeType.COMMAND_SPECIFIC);
            assertThat(s.toCqeStatus().encode(0) >>> 1 & 0xFF).isEqualTo(sc);
        }
        assertThat(NvmeStatus.IO_COMMAND_SET_COMBINATION_REJECTED.sct()).isEqualTo(NvmeStatus.StatusCodeType.GENERIC);
        assertThat(NvmeStatus.IO_COMMAND_SET_COMBINATION_REJECTED.sc()).isEqualTo(0x2B);
        assertThat(NvmOpcode.of(0x79)).contains(NvmOpcode.ZONE_MANAGEMENT_SEND);
        assertThat(NvmOpcode.of(0x7A)).contains(NvmOpcode.ZONE_MANAGEMENT_RECEIVE);
        assertThat(NvmOpcode.of(0x7D)).contains(NvmOpcode.ZONE_APPEND);
        assertThat(FeatureId.of(0x19)).contains(FeatureId.IO_COMMAND_SET_PROFILE);
    }

    private static byte[] encode(Sqe sqe) {
        return TestBytes.encode(sqe::encode);
    }
}
