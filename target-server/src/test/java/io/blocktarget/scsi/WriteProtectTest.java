package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.twelve;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Write protection (issue 28 item 7): a read-only LUN, or one whose Control mode page has SWP = 1 (SPC-4 §7.5.8),
 * terminates every command that writes the medium with DATA PROTECT, WRITE PROTECTED — the ones this device server
 * implements and the ones it does not (FORMAT UNIT, WRITE LONG, WRITE(32), ...), and the ones a knob turned off —
 * while reads go on and MODE SENSE reports WP = 1.
 */
class WriteProtectTest {
    private static final int LBS = 4096;

    /** A command and its data-out. */
    private record Command(String name, byte[] cdb, byte[] dataOut) {
    }

    private static byte[] cdb32(int serviceAction) {
        byte[] c = new byte[32];
        c[0] = 0x7F;
        c[7] = 0x18;                 // ADDITIONAL CDB LENGTH
        c[9] = (byte) serviceAction;
        c[31] = 1;                   // TRANSFER LENGTH (bytes 28-31)
        return c;
    }

    /** Every SBC-4 / ZBC-2 / SPC-5 command that writes the medium, in a form that would otherwise be valid. */
    static List<Command> writes() {
        byte[] block = new byte[LBS];
        byte[] two = new byte[2 * LBS];
        byte[] unmapList = ProvisioningTest.unmapList(0, 1);
        byte[] overwrite = SanitizeCommandTest.overwriteList(1, (byte) 0xAA);
        List<Command> list = new ArrayList<>();
        list.add(new Command("WRITE(6)", Scsi.six(0x0A, 0, 1), block));
        list.add(new Command("WRITE(10)", ten(0x2A, 0, 0, 1), block));
        list.add(new Command("WRITE(12)", twelve(0xAA, 0, 0, 1), block));
        list.add(new Command("WRITE(16)", sixteen(0x8A, 0, 0, 1), block));
        list.add(new Command("WRITE AND VERIFY(10)", ten(0x2E, 0x02, 0, 1), block));
        list.add(new Command("WRITE AND VERIFY(12)", twelve(0xAE, 0x02, 0, 1), block));
        list.add(new Command("WRITE AND VERIFY(16)", sixteen(0x8E, 0x02, 0, 1), block));
        list.add(new Command("WRITE SAME(10)", ten(0x41, 0, 0, 1), block));
        list.add(new Command("WRITE SAME(10) UNMAP", ten(0x41, 0x08, 0, 1), block));
        list.add(new Command("WRITE SAME(16)", sixteen(0x93, 0, 0, 1), block));
        list.add(new Command("WRITE SAME(16) UNMAP NDOB", sixteen(0x93, 0x09, 0, 1), null));
        list.add(new Command("UNMAP", ProvisioningTest.unmapCdb(0, unmapList.length), unmapList));
        list.add(new Command("COMPARE AND WRITE", CompareAndWriteTest.caw(0, 1), two));
        list.add(new Command("ORWRITE(16)", sixteen(0x8B, 0, 0, 1), block));
        list.add(new Command("WRITE ATOMIC(16)", WriteAtomicTest.writeAtomic(0, 0, 0, 1), block));
        list.add(new Command("SANITIZE OVERWRITE", SanitizeCommandTest.sanitize(0x01, overwrite.length), overwrite));
        list.add(new Command("SANITIZE BLOCK ERASE", SanitizeCommandTest.sanitize(0x02, 0), null));
        list.add(new Command("SANITIZE CRYPTOGRAPHIC ERASE", SanitizeCommandTest.sanitize(0x03, 0), null));
        list.add(new Command("FORMAT UNIT", cdb(0x04, 0, 0, 0, 0, 0), null));
        list.add(new Command("WRITE LONG(10)", ten(0x3F, 0, 0, 0), null));
        list.add(new Command("WRITE LONG(16)", sixteen(0x9F, 0x11, 0, 0), null));
        list.add(new Command("WRITE SCATTERED(16)", sixteen(0x9F, 0x12, 0, 0), null));
        list.add(new Command("WRITE STREAM(16)", sixteen(0x9A, 0, 0, 1), block));
        list.add(new Command("WRITE USING TOKEN", cdb(0x83, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), null));
        list.add(new Command("WRITE(32)", cdb32(0x0B), block));
        list.add(new Command("WRITE SAME(32)", cdb32(0x0D), block));
        list.add(new Command("ZBC OUT RESET WRITE POINTER", sixteen(0x94, 0x04, 0, 0), null));
        return list;
    }

    private static void assertSense(Scsi.Reply r, String what, int key, int asc, int ascq) {
        assertThat(r.status()).as(what).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).as(what).containsExactly(key, asc, ascq);
    }

    private static RamBlockDevice readOnly(String name, int lbs) {
        return new RamBlockDevice(name, new BlockGeometry(lbs, lbs, 256), true, new MemoryBudget(1 << 20));
    }

    @Test
    void aReadOnlyUnitRefusesEveryWriteTypeCommandImplementedOrNot() {
        try (Scsi.Unit ro = Scsi.Unit.of(readOnly("ro", LBS))) {
            for (Command c : writes()) {
                assertSense(ro.run(c.cdb(), c.dataOut()), c.name(), 0x7, 0x27, 0x00);
            }
            // reads and the commands that leave the medium alone go on
            ro.run(sixteen(0x88, 0, 0, 4), null).assertGood();
            ro.run(sixteen(0x8F, 0, 0, 4), null).assertGood();                                 // VERIFY(16)
            ro.run(sixteen(0x9E, 0x12, 0, 24), null).assertGood();                             // GET LBA STATUS
            ro.run(ten(0x35, 0, 0, 0), null).assertGood();                                     // SYNCHRONIZE CACHE
            byte[] header = ro.run(Scsi.modeSense6(0x08, 0x3F, 0, 255), null).assertGood().data();
            assertThat(header[2] & 0x80).as("WP").isNotZero();
        }
    }

    @Test
    void onAWritableUnitTheUnsupportedOnesAreInvalidOperationCode() {
        try (Scsi.Unit rw = Scsi.Unit.ram("rw", LBS, LBS, 1 << 20)) {
            for (Command c : writes()) {
                Scsi.Reply r = rw.run(c.cdb(), c.dataOut());
                if (r.status() == ScsiStatus.CHECK_CONDITION) {
                    assertThat(r.senseKey()).as(c.name()).isNotEqualTo(0x7);
                }
            }
            for (int i : new int[] {18, 19, 20, 21, 22, 24, 25, 26}) {                   // FORMAT UNIT .. ZBC OUT
                Command c = writes().get(i);
                assertSense(rw.run(c.cdb(), c.dataOut()), c.name(), 0x5, 0x20, 0x00);
            }
            // THIRD-PARTY COPY OUT is supported (EXTENDED COPY), its WRITE USING TOKEN service action is not
            Command token = writes().get(23);
            assertSense(rw.run(token.cdb(), token.dataOut()), token.name(), 0x5, 0x24, 0x00);
            Command atomic = writes().get(14);                                           // not configured here
            assertSense(rw.run(atomic.cdb(), atomic.dataOut()), atomic.name(), 0x5, 0x20, 0x00);
        }
    }

    /** WRITE SAME above 4 KiB blocks and UNMAP turned off by a knob: not supported, still write-protected. */
    @Test
    void commandsAKnobOrTheBlockSizeLeavesOutAreWriteProtectedToo() {
        RamBlockDevice device = readOnly("ro64k", 65536);
        ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, "ro64k",
                device, new LunState("ro64k"), LunFeatures.NONE.withKnobs(DeviceKnobs.DEFAULTS.withCommands(
                        Map.of(DeviceKnobs.Command.UNMAP, false, DeviceKnobs.Command.COMPARE_AND_WRITE, false))))))
                .get(Scsi.TARGET);
        try (Scsi.Unit u = new Scsi.Unit(device, target)) {
            Scsi.ready(target, A, 0);
            byte[] list = ProvisioningTest.unmapList(0, 1);
            u.run(sixteen(0x93, 0, 0, 1), new byte[65536]).assertCheck(0x7, 0x27, 0x00);    // WRITE SAME (> 4 KiB)
            u.run(ProvisioningTest.unmapCdb(0, list.length), list).assertCheck(0x7, 0x27, 0x00);
            u.run(CompareAndWriteTest.caw(0, 1), new byte[2 * 65536]).assertCheck(0x7, 0x27, 0x00);
        }
    }

    /** MODE SELECT parameter list: a 4-byte header, then the Control mode page as it is now with SWP as given. */
    static byte[] controlPage(boolean swp) {
        return CapacityAndModeTest.concat(cdb(0, 0, 0, 0),
                cdb(0x0A, 0x0A, 0x02, 0x10, swp ? 0x08 : 0, 0, 0, 0, 0, 0, 0, 0));
    }

    /** Runs TEST UNIT READY until GOOD, each answer before it a unit attention (the reset's). */
    static void clearUnitAttentions(ScsiTargetDevice target, ItNexus nexus) {
        for (int i = 0; i < UnitAttentions.QUEUE_LIMIT + 1; i++) {
            Scsi.Reply r = Scsi.run(target, nexus, 0, Scsi.testUnitReady(), null);
            if (r.status() == ScsiStatus.GOOD) {
                return;
            }
            r.assertCheck(0x6, r.asc(), r.ascq());
        }
        throw new AssertionError("unit attentions never cleared");
    }

    @Test
    void softwareWriteProtectInTheControlModePage() {
        try (Scsi.Unit u = Scsi.Unit.ram("swp", LBS, LBS, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            byte[] changeable = u.run(Scsi.modeSense6(0x08, 0x40 | 0x0A, 0, 255), null).assertGood().data();
            assertThat(changeable[4 + 4] & 0x08).as("SWP changeable").isNotZero();
            byte[] on = controlPage(true);
            u.run(Scsi.modeSelect6(on.length), on).assertGood();
            // the other nexus learns of it, then meets it; the one that set it meets it too
            Scsi.run(u.target(), B, 0, ten(0x2A, 0, 0, 1), new byte[LBS]).assertCheck(0x6, 0x2A, 0x01);
            Scsi.run(u.target(), B, 0, ten(0x2A, 0, 0, 1), new byte[LBS]).assertCheck(0x7, 0x27, 0x00);
            for (Command c : writes()) {
                assertSense(u.run(c.cdb(), c.dataOut()), c.name(), 0x7, 0x27, 0x00);
            }
            u.run(ten(0x28, 0, 0, 1), null).assertGood();
            assertThat(u.run(Scsi.modeSense6(0x08, 0x0A, 0, 255), null).data()[2] & 0x80).as("WP").isNotZero();
            byte[] control = u.run(Scsi.modeSense6(0x08, 0x0A, 0, 255), null).data();
            assertThat(control[4 + 4] & 0x08).as("SWP current").isNotZero();
            byte[] off = controlPage(false);
            u.run(Scsi.modeSelect6(off.length), off).assertGood();
            u.run(ten(0x2A, 0, 0, 1), new byte[LBS]).assertGood();
            assertThat(u.run(Scsi.modeSense6(0x08, 0x0A, 0, 255), null).data()[2] & 0x80).as("WP").isZero();
            // a logical unit reset returns the mode pages to their defaults: SWP = 0 (SAM-5 §7.7)
            u.run(Scsi.modeSelect6(on.length), on).assertGood();
            u.target().logicalUnitReset(A, 0);
            clearUnitAttentions(u.target(), A);
            u.run(ten(0x2A, 0, 0, 1), new byte[LBS]).assertGood();
        }
    }
}
