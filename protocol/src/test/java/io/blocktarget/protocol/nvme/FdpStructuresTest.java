package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static io.blocktarget.protocol.nvme.TestBytes.putLe;
import static io.blocktarget.protocol.nvme.TestBytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flexible Data Placement structures byte for byte against the TP4146 / NVMe Base 2.1 figures (offsets in the
 * comments), and the fields the Linux host reads from them.
 */
class FdpStructuresTest {

    @Test
    void fdpModeFeatureDword() {
        // DW0 / CDW12: bit 0 FDPE, bits 15:8 FDPCIDX
        assertThat(new FdpMode(true, 0).toDword()).isEqualTo(0x0000_0001);
        assertThat(new FdpMode(true, 3).toDword()).isEqualTo(0x0000_0301);
        assertThat(new FdpMode(false, 0xFF).toDword()).isEqualTo(0x0000_FF00);
        assertThat(FdpMode.fromDword(0xFFFF_0301)).isEqualTo(new FdpMode(true, 3)); // reserved bits ignored
        assertThat(FdpMode.enduranceGroup(0xABCD_0001)).isEqualTo(1);
        assertThatThrownBy(() -> new FdpMode(true, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThat(FdpMode.FEATURE_ID).isEqualTo(0x1D);
    }

    @Test
    void fdpEventsFeature() {
        FdpEventsFeature f = FdpEventsFeature.fromCdw11(0x0006_0003); // NOET 6, PHNDL 3
        assertThat(f).isEqualTo(new FdpEventsFeature(3, 6));
        assertThat(f.toCdw11()).isEqualTo(0x0006_0003);
        byte[] got = TestBytes.encode(out -> FdpEventsFeature.encodeSupported(out, List.of(
                new FdpEventsFeature.SupportedEvent(0x00, true), new FdpEventsFeature.SupportedEvent(0x80, false))));
        assertThat(got).isEqualTo(hex("00 01  80 00"));
        ByteBuf data = Unpooled.wrappedBuffer(hex("00 03 80"));
        try {
            assertThat(new FdpEventsFeature(0, 3).eventTypes(data).orNull()).containsExactly(0x00, 0x03, 0x80);
            assertThat(new FdpEventsFeature(0, 4).eventTypes(data).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
            assertThat(data.readerIndex()).isZero();
        } finally {
            data.release();
        }
    }

    @Test
    void configurationsLogAsLinuxWalksIt() {
        FdpConfigurationsLog log = new FdpConfigurationsLog(List.of(new FdpConfigurationsLog.Configuration(0, false,
                true, 1, 8, 1, 64L << 20, 0, List.of(FdpConfigurationsLog.RuhType.PERSISTENTLY_ISOLATED,
                FdpConfigurationsLog.RuhType.PERSISTENTLY_ISOLATED))));
        byte[] expected = hex("""
                0000 00 00 58000000 0000000000000000     # 0 NUMFDPC 0 (one), VER 0, SZE 88, reserved
                4800 80 00 01000000 0200 0700 01000000   # 16 DSZE 72, FDPA valid, VSS 0, NRG 1, NRUH 2, MAXPIDS 7, NNSS 1
                0000000400000000 00000000                # 32 RUNS 64 MiB, ERUTL 0
                """ + zeros(36) + """
                02000000 02000000                        # 80 RUH descriptors: RUHT persistently isolated
                """);
        assertThat(TestBytes.encode(log::encode)).isEqualTo(expected).hasSize(log.size());
        // what nvme_query_fdp_granularity reads: SZE at 4, NUMFDPC at 0, DSZE, NRG, RUNS of descriptor 0
        assertThat(TestBytes.le(expected, 4, 4)).isEqualTo(88);
        assertThat(TestBytes.le(expected, 16 + 4, 4)).isEqualTo(1);
        assertThat(TestBytes.le(expected, 16 + 16, 8)).isEqualTo(64L << 20);
    }

    @Test
    void configurationsLogWithTwoConfigurationsChainsByDescriptorSize() {
        FdpConfigurationsLog.Configuration one = new FdpConfigurationsLog.Configuration(0, true, true, 1, 1, 1, 4096,
                5, List.of(FdpConfigurationsLog.RuhType.INITIALLY_ISOLATED));
        FdpConfigurationsLog log = new FdpConfigurationsLog(List.of(one, one));
        byte[] got = TestBytes.encode(log::encode);
        assertThat(got).hasSize(16 + 2 * 68);
        assertThat(TestBytes.le(got, 0, 2)).isEqualTo(1);              // NUMFDPC is 0's based
        assertThat(TestBytes.le(got, 16, 2)).isEqualTo(68);            // DSZE: 64 + one RUH descriptor
        assertThat(got[18]).isEqualTo((byte) 0x90);                    // FDPA: valid, FDPVWC
        assertThat(TestBytes.le(got, 16 + 24, 4)).isEqualTo(5);        // ERUTL
        assertThat(got[16 + 64]).isEqualTo((byte) 1);                  // RUHT initially isolated
        assertThat(TestBytes.le(got, 16 + 68, 2)).isEqualTo(68);       // the second descriptor starts at 16 + DSZE
        assertThatThrownBy(() -> new FdpConfigurationsLog(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FdpConfigurationsLog.Configuration(0, false, true, 1, 0, 1, 4096, 0,
                List.of(FdpConfigurationsLog.RuhType.INITIALLY_ISOLATED))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FdpConfigurationsLog.Configuration(0, false, true, 1, 1, 1, 4096, 0, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ruhUsageLog() {
        RuhUsageLog log = new RuhUsageLog(List.of(RuhUsageLog.Attribute.HOST_SPECIFIED,
                RuhUsageLog.Attribute.UNUSED, RuhUsageLog.Attribute.CONTROLLER_SPECIFIED));
        assertThat(TestBytes.encode(log::encode)).isEqualTo(hex("""
                0300 000000000000        # 0 NRUH 3
                01 00000000000000        # 8 RUHA host specified
                00 00000000000000        # 16 unused
                02 00000000000000        # 24 controller specified
                """)).hasSize(log.size());
    }

    @Test
    void statisticsLogHas128BitCounters() {
        FdpStatisticsLog log = new FdpStatisticsLog(0x1000, -1L, 0x0102_0304_0506_0708L);
        assertThat(TestBytes.encode(log::encode)).isEqualTo(hex("""
                0010000000000000 0000000000000000    # 0 HBMW
                FFFFFFFFFFFFFFFF 0000000000000000    # 16 MBMW: 2^64 - 1, upper half zero
                0807060504030201 0000000000000000    # 32 MBE
                """ + zeros(16))).hasSize(FdpStatisticsLog.SIZE);
    }

    @Test
    void eventsLogWithAMediaReallocatedEvent() {
        FdpEventsLog.Event e = new FdpEventsLog.Event(FdpEventsLog.MEDIA_REALLOCATED, 2, 0x0000_0102_0304_0506L, 0x01,
                1, 0, 2, FdpEventsLog.Event.mediaReallocated(0x0203, 0x1122_3344L));
        FdpEventsLog log = new FdpEventsLog(List.of(e));
        byte[] expected = new byte[128];
        putLe(expected, 0, 1, 4);                  // 0 NEVENTS
        int i = 64;
        expected[i] = (byte) 0x80;                 // FDPET Media Reallocated
        expected[i + 1] = 0x07;                    // FDPEF: PIV, NSIDV, LV
        putLe(expected, i + 2, 2, 2);              // PID
        putLe(expected, i + 4, 0x0102_0304_0506L, 6); // timestamp, milliseconds
        expected[i + 10] = 0x01;                   // timestamp attributes: Synch
        putLe(expected, i + 12, 1, 4);             // NSID
        expected[i + 16] = 0x01;                   // LBAV
        putLe(expected, i + 18, 0x0203, 2);        // NLBAM
        putLe(expected, i + 20, 0x1122_3344L, 8);  // LBA
        putLe(expected, i + 32, 0, 2);             // RGID
        expected[i + 34] = 2;                      // RUHID
        assertThat(TestBytes.encode(log::encode)).isEqualTo(expected).hasSize(log.size());
    }

    @Test
    void eventFlagsFollowWhatIsKnown() {
        FdpEventsLog.Event invalidPid = new FdpEventsLog.Event(FdpEventsLog.INVALID_PLACEMENT_IDENTIFIER, 9, 0, 0, 1,
                -1, -1, new byte[16]);
        byte[] got = TestBytes.encode(invalidPid::encode);
        assertThat(got[0]).isEqualTo((byte) 0x03);
        assertThat(got[1]).isEqualTo((byte) 0x03);                     // PIV, NSIDV; no location
        assertThat(TestBytes.le(got, 2, 2)).isEqualTo(9);
        FdpEventsLog.Event anonymous = new FdpEventsLog.Event(FdpEventsLog.MEDIA_REALLOCATED, -1, 0, 0, 0, -1, -1,
                FdpEventsLog.Event.mediaReallocated(1, -1));
        got = TestBytes.encode(anonymous::encode);
        assertThat(got[1]).isZero();
        assertThat(got[16]).as("LBAV clear").isZero();
        assertThatThrownBy(() -> new FdpEventsLog.Event(0, 0, 1L << 48, 0, 0, -1, -1, new byte[16]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FdpEventsLog.Event(0, 0, 0, 0, 0, 0, -1, new byte[16]))
                .as("RGID and RUHID are valid together or not at all").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eventsLogHoldsAtMost63() {
        FdpEventsLog.Event e = new FdpEventsLog.Event(0, 0, 0, 0, 1, 0, 0, new byte[16]);
        assertThat(new FdpEventsLog(java.util.Collections.nCopies(63, e)).size()).isEqualTo(4096);
        assertThatThrownBy(() -> new FdpEventsLog(java.util.Collections.nCopies(64, e)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(TestBytes.encode(new FdpEventsLog(List.of())::encode)).isEqualTo(hex(zeros(64)));
    }

    @Test
    void ruhStatusAsLinuxReadsIt() {
        RuhStatus status = new RuhStatus(List.of(new RuhStatus.Descriptor(0, 0, 0, 16384),
                new RuhStatus.Descriptor(1, 1, 0, 0x1_0000_0000L)));
        byte[] expected = hex(zeros(14) + "0200"                      // 14 NRUHSD 2
                + "0000 0000 00000000 0040000000000000" + zeros(16)   // 16 PID 0, RUHID 0, EARUTR 0, RUAMW 16384
                + "0100 0100 00000000 0000000001000000" + zeros(16)); // 48 PID 1, RUHID 1, RUAMW 2^32
        assertThat(TestBytes.encode(status::encode)).isEqualTo(expected).hasSize(status.size());
        // Linux's buffer: struct_size(ruhs, ruhsd, S8_MAX - 1) = 16 + 126 × 32 bytes holds 126 descriptors
        assertThat(new RuhStatus(java.util.Collections.nCopies(126, new RuhStatus.Descriptor(0, 0, 0, 0))).size())
                .isEqualTo(4048);
    }

    @Test
    void ioManagementReceiveAndSend() {
        Sqe receive = Sqe.of(0x12, 7, 1, SglDescriptor.transportDataBlock(4048), 0x0000_0001, 4048 / 4 - 1);
        IoManagementCommand r = IoManagementCommand.parse(receive).orNull();
        assertThat(r.opcode()).isEqualTo(IoManagementCommand.RECEIVE);
        assertThat(r.mo()).isEqualTo(IoManagementCommand.MO_RUH_STATUS);
        assertThat(r.transferLength()).isEqualTo(4048);
        assertThat(r.toSqe()).isEqualTo(receive);
        Sqe send = Sqe.of(0x1D, 8, 1, SglDescriptor.transportDataBlock(6), 0x0002_0001); // MOS: NPID 2 (three)
        IoManagementCommand s = IoManagementCommand.parse(send).orNull();
        assertThat(s.mo()).isEqualTo(IoManagementCommand.MO_RUH_UPDATE);
        assertThat(s.placementIdentifierCount()).isEqualTo(3);
        assertThat(s.updateDataLength()).isEqualTo(6);
        ByteBuf data = Unpooled.wrappedBuffer(hex("0000 0500 FFFF"));
        try {
            assertThat(s.placementIdentifiers(data).orNull()).containsExactly(0, 5, 0xFFFF);
            data.writerIndex(4);
            assertThat(s.placementIdentifiers(data).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        } finally {
            data.release();
        }
        assertThat(IoManagementCommand.parse(Sqe.of(0x01, 1, 1, SglDescriptor.transportDataBlock(0))).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
        // NUMD is unsigned: FFFFFFFFh asks for 16 GiB, which the command set caps, not a negative length
        assertThat(IoManagementCommand.parse(Sqe.of(0x12, 1, 1, SglDescriptor.transportDataBlock(0), 1, -1))
                .orNull().transferLength()).isEqualTo(1L << 34);
    }

    @Test
    void writeDirectiveFields() {
        // Linux nvme_setup_rw with a stream: control |= NVME_RW_DTYPE_DPLCMT (2 << 4 of the upper half of CDW12),
        // dsmgmt |= plid << 16 (CDW13)
        int cdw12 = (2 << 4) << 16 | 7;             // NLB 7
        int cdw13 = 5 << 16 | 0x03;                 // DSPEC 5, DSM bits kept apart
        DataPlacementDirective d = DataPlacementDirective.of(cdw12, cdw13);
        assertThat(d).isEqualTo(DataPlacementDirective.placement(5));
        assertThat(d.isDataPlacement()).isTrue();
        assertThat(d.applyToCdw12(7)).isEqualTo(cdw12);
        assertThat(d.applyToCdw13(0x03)).isEqualTo(cdw13);
        assertThat(DataPlacementDirective.of(7, 0x03).isDataPlacement()).isFalse();
        assertThat(DataPlacementDirective.of(1 << 20, 0).dtype()).isEqualTo(DataPlacementDirective.DTYPE_STREAMS);
        assertThat(DataPlacementDirective.of(0xFFFF_FFFF, 0xFFFF_FFFF)).isEqualTo(new DataPlacementDirective(0xF, 0xFFFF));
    }

    @Test
    void identifyBitsAndOffsets() {
        assertThat(FdpIdentify.CTRATT_FDPS).isEqualTo(0x0008_0000);
        assertThat(FdpIdentify.CTRATT_ENDURANCE_GROUPS).isEqualTo(0x10);
        assertThat(FdpIdentify.ID_NS_ENDGID_OFFSET).isEqualTo(102);
        assertThat(FdpIdentify.ID_NS_CS_INDEPENDENT_ENDGID_OFFSET).isEqualTo(12);
        assertThat(FdpIdentify.ID_CTRL_ENDGIDMAX_OFFSET).isEqualTo(340);
    }
}
