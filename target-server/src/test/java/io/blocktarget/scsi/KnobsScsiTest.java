package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.LunFeatures;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 knobs on SCSI: what the LUN file's {@code commands:}, {@code limits:}, {@code rotational:} and
 * {@code identity:} make the logical unit advertise — Block Limits VPD (SBC-4 §6.6.3 Table 262), Block Device
 * Characteristics (§6.6.2), Logical Block Provisioning (§6.6.4), RSOC, the mode parameter header and caching page,
 * standard INQUIRY, VPD 80h / 83h (SPC-5 §6.7.2, §7.7.3, §7.7.6) — byte by byte, every enforced limit at the
 * limit and at limit + 1, and a retune in place with its unit attention.
 */
class KnobsScsiTest {
    private static final int LBS = 4096;
    private static final int READ_16 = 0x88, WRITE_SAME_16 = 0x93, UNMAP = 0x42, CAW = 0x89, VERIFY_16 = 0x8F;

    private static LogicalUnitSpec spec(BlockDevice device, DeviceKnobs knobs) {
        return new LogicalUnitSpec(Scsi.TARGET, 0, device.name(), device, new LunState(device.name()),
                LunFeatures.NONE.withKnobs(knobs));
    }

    private static Scsi.Unit unit(int lbs, DeviceKnobs knobs) {
        BlockDevice device = Scsi.ram("knobs", lbs, lbs, 64L << 20);
        ScsiTarget target = ScsiTargetDevices.createTargets(List.of(spec(device, knobs))).get(Scsi.TARGET);
        Scsi.ready(target, A, 0);
        return new Scsi.Unit(device, target);
    }

    private static final DeviceKnobs LIMITS = DeviceKnobs.DEFAULTS.withLimits(Map.of(
            Limit.MAX_TRANSFER, 1L << 20, Limit.OPTIMAL_TRANSFER, 256L << 10,
            Limit.OPTIMAL_TRANSFER_GRANULARITY, 64L << 10, Limit.MAX_UNMAP, 64L << 20,
            Limit.MAX_UNMAP_DESCRIPTORS, 16L, Limit.UNMAP_GRANULARITY, 64L << 10, Limit.UNMAP_ALIGNMENT, 16L << 10,
            Limit.MAX_WRITE_SAME, 32L << 20));

    private static DeviceKnobs commands(Map<Command, Boolean> switches) {
        return DeviceKnobs.DEFAULTS.withCommands(switches);
    }

    private static byte[] vpd(Scsi.Unit u, int page) {
        return u.run(inquiry(true, page, 255), null).assertGood().data();
    }

    /** Operation codes (code << 8 | service action) REPORT SUPPORTED OPERATION CODES lists. */
    private static Set<Integer> listed(Scsi.Unit u) {
        byte[] all = u.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).assertGood().data();
        Set<Integer> listed = new HashSet<>();
        for (int at = 4; at < 4 + u32(all, 0); at += 8) {
            listed.add((all[at] & 0xFF) << 8 | u16(all, at + 2));
        }
        return listed;
    }

    @Test
    void blockLimitsCarryTheKnobsByteForByte() {
        try (Scsi.Unit u = unit(LBS, LIMITS)) {
            byte[] b0 = vpd(u, 0xB0);
            assertThat(u16(b0, 6)).isEqualTo(16);                  // OPTIMAL TRANSFER LENGTH GRANULARITY
            assertThat(u32(b0, 8)).isEqualTo(256);                 // MAXIMUM TRANSFER LENGTH: 1 MiB / 4 KiB
            assertThat(u32(b0, 12)).isEqualTo(64);                 // OPTIMAL TRANSFER LENGTH
            assertThat(u32(b0, 16)).isEqualTo(256);                // MAXIMUM PREFETCH LENGTH = max transfer
            assertThat(u32(b0, 20)).isEqualTo(16384);              // MAXIMUM UNMAP LBA COUNT: 64 MiB
            assertThat(u32(b0, 24)).isEqualTo(16);                 // MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT
            assertThat(u32(b0, 28)).isEqualTo(16);                 // OPTIMAL UNMAP GRANULARITY
            assertThat(u32(b0, 32)).isEqualTo(0x8000_0004L);       // UGAVALID | UNMAP GRANULARITY ALIGNMENT 4
            assertThat(u64(b0, 36)).isEqualTo(8192);               // MAXIMUM WRITE SAME LENGTH: 32 MiB
            assertThat(b0[5] & 0xFF).isEqualTo(128);               // MAXIMUM COMPARE AND WRITE: half of 256
        }
    }

    @Test
    void maxTransferKnobIsEnforcedAtTheLimitAndAbove() {
        try (Scsi.Unit u = unit(LBS, LIMITS)) {
            u.run(sixteen(READ_16, 0, 0, 256), null).assertGood();
            u.run(sixteen(READ_16, 0, 0, 257), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(VERIFY_16, 0, 0, 257), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
        }
    }

    @Test
    void unmapKnobsAreEnforcedAtTheLimitAndAbove() {
        try (Scsi.Unit u = unit(LBS, LIMITS)) {
            byte[] atCount = ProvisioningTest.unmapList(0, 16384);
            u.run(ProvisioningTest.unmapCdb(0, atCount.length), atCount).assertGood();
            byte[] aboveCount = ProvisioningTest.unmapList(0, 16385);
            u.run(ProvisioningTest.unmapCdb(0, aboveCount.length), aboveCount).assertCheck(0x5, 0x26, 0x00);
            long[] sixteenDescriptors = new long[32];
            long[] seventeen = new long[34];
            for (int i = 0; i < 17; i++) {
                if (i < 16) {
                    sixteenDescriptors[2 * i] = i * 8L;
                    sixteenDescriptors[2 * i + 1] = 1;
                }
                seventeen[2 * i] = i * 8L;
                seventeen[2 * i + 1] = 1;
            }
            byte[] at = ProvisioningTest.unmapList(sixteenDescriptors);
            u.run(ProvisioningTest.unmapCdb(0, at.length), at).assertGood();
            byte[] above = ProvisioningTest.unmapList(seventeen);
            u.run(ProvisioningTest.unmapCdb(0, above.length), above).assertCheck(0x5, 0x26, 0x00)
                    .assertParameterField(2, 7);
        }
    }

    @Test
    void maxWriteSameKnobIsEnforcedAtTheLimitAndAbove() {
        try (Scsi.Unit u = unit(LBS, LIMITS)) {
            u.run(sixteen(WRITE_SAME_16, 0, 0, 8192), new byte[LBS]).assertGood();
            u.run(sixteen(WRITE_SAME_16, 0, 0, 8193), new byte[LBS]).assertCheck(0x5, 0x24, 0x00);
        }
    }

    @Test
    void writeSameCanBeSwitchedOnAt16KiB() {
        try (Scsi.Unit off = unit(16384, DeviceKnobs.DEFAULTS);
             Scsi.Unit on = unit(16384, commands(Map.of(Command.WRITE_SAME, true)))) {
            assertThat(listed(off)).doesNotContain(WRITE_SAME_16 << 8);
            off.run(sixteen(WRITE_SAME_16, 0, 0, 4), new byte[16384]).assertCheck(0x5, 0x20, 0x00);
            assertThat(u64(vpd(off, 0xB0), 36)).isZero();

            assertThat(listed(on)).contains(WRITE_SAME_16 << 8, 0x41 << 8);
            assertThat(u64(vpd(on, 0xB0), 36)).isEqualTo((1L << 30) / 16384);
            assertThat(vpd(on, 0xB2)[5] & 0xE0).isEqualTo(0xE0);  // LBPU, LBPWS, LBPWS10
            on.run(sixteen(WRITE_SAME_16, 0x08, 0, 4), new byte[16384]).assertGood(); // with UNMAP
        }
    }

    @Test
    void switchedOffCommandsAreNotListedAndAreInvalidOperationCodes() {
        DeviceKnobs off = commands(Map.of(Command.UNMAP, false, Command.COMPARE_AND_WRITE, false,
                Command.VERIFY, false, Command.GET_LBA_STATUS, false, Command.COPY, false, Command.WRITE_SAME, false));
        try (Scsi.Unit u = unit(LBS, off); Scsi.Unit plain = unit(LBS, DeviceKnobs.DEFAULTS)) {
            Set<Integer> listed = listed(u);
            Set<Integer> all = listed(plain);
            for (int code : new int[] {UNMAP, CAW, VERIFY_16, 0x2F, 0xAF, WRITE_SAME_16, 0x41}) {
                assertThat(all).contains(code << 8);
                assertThat(listed).doesNotContain(code << 8);
            }
            assertThat(all).contains(0x9E << 8 | 0x12, 0x83 << 8, 0x84 << 8);
            assertThat(listed).doesNotContain(0x9E << 8 | 0x12, 0x83 << 8, 0x84 << 8, 0x84 << 8 | 3);
            assertThat(listed).contains(0x9E << 8 | 0x10);          // READ CAPACITY(16) stays
            byte[] list = ProvisioningTest.unmapList(0, 1);
            u.run(ProvisioningTest.unmapCdb(0, list.length), list).assertCheck(0x5, 0x20, 0x00);
            u.run(sixteen(VERIFY_16, 0, 0, 1), null).assertCheck(0x5, 0x20, 0x00);
            u.run(sixteen(CAW, 0, 0, 0), null).assertCheck(0x5, 0x20, 0x00);
            // a switched-off service action of a code with others: INVALID FIELD IN CDB at SERVICE ACTION
            u.run(sixteen(0x9E, 0x12, 0, 0), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4);
            byte[] b2 = vpd(u, 0xB2);
            assertThat(b2[5] & 0xE0).isZero();                      // LBPU, LBPWS, LBPWS10 all 0
            byte[] standard = u.run(inquiry(false, 0, 96), null).assertGood().data();
            assertThat(standard[5] & 0x08).isZero();                // 3PC: no EXTENDED COPY
            assertThat(plain.run(inquiry(false, 0, 96), null).assertGood().data()[5] & 0x08).isEqualTo(0x08);
        }
    }

    @Test
    void rotationalSetsTheMediumRotationRate() {
        try (Scsi.Unit spinning = unit(LBS, DeviceKnobs.DEFAULTS.withRotational(Optional.of(true)));
             Scsi.Unit solid = unit(LBS, DeviceKnobs.DEFAULTS)) {
            assertThat(u16(vpd(spinning, 0xB1), 4)).isEqualTo(7200);
            assertThat(u16(vpd(solid, 0xB1), 4)).isEqualTo(1);     // non-rotating medium
        }
    }

    @Test
    void fuaAndWriteCacheAreInTheModeData() {
        try (Scsi.Unit u = unit(LBS, commands(Map.of(Command.FUA, false, Command.WRITE_CACHE, true)));
             Scsi.Unit plain = unit(LBS, DeviceKnobs.DEFAULTS)) {
            byte[] sense = u.run(Scsi.modeSense6(0x08, 0x08, 0, 255), null).assertGood().data();
            assertThat(sense[2] & 0x10).isZero();                   // DPOFUA (SBC-4 §6.5.1)
            assertThat(sense[4] & 0x3F).isEqualTo(0x08);            // the caching page, after no block descriptor
            assertThat(sense[4 + 2] & 0x04).isEqualTo(0x04);        // WCE
            byte[] plainSense = plain.run(Scsi.modeSense6(0x08, 0x08, 0, 255), null).assertGood().data();
            assertThat(plainSense[2] & 0x10).isEqualTo(0x10);
            assertThat(plainSense[4 + 2] & 0x04).isZero();          // a RAM disk has no cache
        }
    }

    @Test
    void identityIsInInquiryAndTheVpdPages() {
        DeviceKnobs knobs = DeviceKnobs.DEFAULTS.withIdentity(Map.of(Identity.VENDOR, "ACME", Identity.PRODUCT,
                "Roadrunner 9000", Identity.REVISION, "2.1", Identity.SERIAL, "SN-0001",
                Identity.NAA, "6001405abcdef0123456789abcdef012"));
        try (Scsi.Unit u = unit(LBS, knobs)) {
            byte[] standard = u.run(inquiry(false, 0, 96), null).assertGood().data();
            assertThat(new String(standard, 8, 8, StandardCharsets.US_ASCII)).isEqualTo("ACME    ");
            assertThat(new String(standard, 16, 16, StandardCharsets.US_ASCII)).isEqualTo("Roadrunner 9000 ");
            assertThat(new String(standard, 32, 4, StandardCharsets.US_ASCII)).isEqualTo("2.1 ");
            byte[] serial = vpd(u, 0x80);
            assertThat(u16(serial, 2)).isEqualTo(7);
            assertThat(new String(serial, 4, 7, StandardCharsets.US_ASCII)).isEqualTo("SN-0001");
            byte[] ids = vpd(u, 0x83);
            // first designator: binary code set, LU association, type 3h NAA, length 16, then the 16 bytes
            assertThat(HexFormat.of().formatHex(ids, 4, 24))
                    .isEqualTo("01030010" + "6001405abcdef0123456789abcdef012");
            // the T10 vendor ID designator names the configured vendor
            assertThat(new String(ids, 24 + 4, 8, StandardCharsets.US_ASCII)).isEqualTo("ACME    ");
        }
    }

    @Test
    void retuneChangesTheAnswersInPlaceAndRaisesInquiryDataHasChanged() {
        try (Scsi.Unit u = unit(LBS, DeviceKnobs.DEFAULTS)) {
            LogicalUnit before = u.target().unit(0);
            assertThat(u32(vpd(u, 0xB0), 8)).isEqualTo((8 << 20) / LBS);
            assertThat(u.target().retune(spec(u.device(), LIMITS))).isTrue();
            u.run(Scsi.testUnitReady(), null).assertCheck(0x6, 0x3F, 0x03);   // INQUIRY DATA HAS CHANGED
            u.run(Scsi.testUnitReady(), null).assertGood();
            assertThat(u32(vpd(u, 0xB0), 8)).isEqualTo(256);
            u.run(sixteen(READ_16, 0, 0, 257), null).assertCheck(0x5, 0x24, 0x00);
            assertThat(u.target().unit(0)).isSameAs(before);          // the same unit: state and tasks kept
        }
    }

    @Test
    void modeOnlyRetuneRaisesModeParametersChanged() {
        try (Scsi.Unit u = unit(LBS, DeviceKnobs.DEFAULTS)) {
            assertThat(u.target().retune(spec(u.device(), commands(Map.of(Command.FUA, false))))).isTrue();
            u.run(Scsi.testUnitReady(), null).assertCheck(0x6, 0x2A, 0x01);   // MODE PARAMETERS CHANGED
            u.run(Scsi.testUnitReady(), null).assertGood();
            assertThat(u.run(Scsi.modeSense6(0x08, 0x08, 0, 255), null).assertGood().data()[2] & 0x10).isZero();
        }
    }

    @Test
    void retuneOfAnotherDeviceIsRefused() {
        try (Scsi.Unit u = unit(LBS, DeviceKnobs.DEFAULTS)) {
            BlockDevice other = Scsi.ram("knobs", LBS, LBS, 64L << 20);
            assertThat(u.target().retune(spec(other, LIMITS))).isFalse();
            other.close();
        }
    }
}
