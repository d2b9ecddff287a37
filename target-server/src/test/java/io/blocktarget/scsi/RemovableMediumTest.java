package io.blocktarget.scsi;

import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.LunFeatures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code removable: true} (issue 28 item 6, SBC-4 §5.15 / §5.25): RMB = 1, PREVENT ALLOW MEDIUM REMOVAL per I_T
 * nexus, START STOP UNIT ejecting and loading the medium, NOT READY / MEDIUM NOT PRESENT while it is out — and none
 * of it on a unit that is not removable (the default).
 */
class RemovableMediumTest {
    private static final int LBS = 4096;

    private final RamBlockDevice device = Scsi.ram("rmb", LBS, LBS, 1 << 20);
    private final ScsiTarget target = unit(device, true);

    private static ScsiTarget unit(RamBlockDevice device, boolean removable) {
        DeviceKnobs knobs = removable ? DeviceKnobs.DEFAULTS.withRemovable(Optional.of(true)) : DeviceKnobs.DEFAULTS;
        ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, device.name(),
                device, new LunState(device.name()), LunFeatures.NONE.withKnobs(knobs)))).get(Scsi.TARGET);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        return target;
    }

    @AfterEach
    void close() {
        device.close();
    }

    static byte[] preventAllow(int prevent) {
        return cdb(0x1E, 0, 0, 0, prevent, 0);
    }

    /** START STOP UNIT: IMMED, POWER CONDITION, LOEJ, START. */
    static byte[] startStop(boolean immed, int powerCondition, boolean loej, boolean start) {
        return cdb(0x1B, immed ? 1 : 0, 0, 0, powerCondition << 4 | (loej ? 2 : 0) | (start ? 1 : 0), 0);
    }

    private Scsi.Reply as(ItNexus nexus, byte[] cdb) {
        return run(target, nexus, 0, cdb, null);
    }

    @Test
    void rmbAndPreventAllowOnlyWhereRemovable() {
        assertThat(as(A, Scsi.inquiry(false, 0, 96)).assertGood().data()[1] & 0x80).as("RMB").isNotZero();
        assertThat(SpcCommandsTest.opcodes(as(A, SpcCommandsTest.rsoc(0, 0, 0, 8192)).data())).contains(0x1E);
        as(A, preventAllow(1)).assertGood();
        as(A, preventAllow(0)).assertGood();
        as(A, preventAllow(2)).assertCheck(0x5, 0x24, 0x00).assertCdbField(4, 1);     // obsolete value
        as(A, cdb(0x1E, 0, 1, 0, 0, 0)).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 0);
        try (RamBlockDevice fixed = Scsi.ram("fixed", LBS, LBS, 1 << 20)) {
            ScsiTarget plain = unit(fixed, false);
            assertThat(run(plain, A, 0, Scsi.inquiry(false, 0, 96), null).data()[1] & 0x80).as("RMB").isZero();
            assertThat(SpcCommandsTest.opcodes(run(plain, A, 0, SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data()))
                    .doesNotContain(0x1E);
            run(plain, A, 0, preventAllow(1), null).assertCheck(0x5, 0x20, 0x00);
            run(plain, A, 0, startStop(false, 0, true, false), null).assertGood();     // nothing to eject
            run(plain, A, 0, testUnitReady(), null).assertGood();
        }
    }

    @Test
    void ejectAndLoad() {
        byte[] data = Scsi.pattern(1, LBS);
        as(A, preventAllow(0)).assertGood();
        run(target, A, 0, Scsi.ten(0x2A, 0, 3, 1), data).assertGood();
        as(A, startStop(false, 0, true, false)).assertGood();                          // eject
        as(A, testUnitReady()).assertCheck(0x2, 0x3A, 0x00);                           // MEDIUM NOT PRESENT
        as(B, testUnitReady()).assertCheck(0x2, 0x3A, 0x00);
        as(A, Scsi.ten(0x28, 0, 3, 1)).assertCheck(0x2, 0x3A, 0x00);
        as(A, Scsi.readCapacity16(32)).assertCheck(0x2, 0x3A, 0x00);
        byte[] sense = as(A, Scsi.requestSense(false, 18)).assertGood().data();
        assertThat(new int[] {sense[2] & 0xF, sense[12] & 0xFF, sense[13] & 0xFF}).containsExactly(0x2, 0x3A, 0x00);
        as(A, Scsi.inquiry(false, 0, 96)).assertGood();                                // what describes the unit runs
        as(A, Scsi.modeSense6(0x08, 0x3F, 0, 255)).assertGood();
        as(A, Scsi.reportLuns(64)).assertGood();
        as(A, startStop(false, 0, true, false)).assertGood();                          // ejecting again: nothing
        as(A, startStop(false, 0, false, true)).assertGood();                          // LOEJ = 0: stays out
        as(A, testUnitReady()).assertCheck(0x2, 0x3A, 0x00);
        as(A, startStop(true, 0, true, true)).assertGood();                            // load (IMMED)
        as(A, testUnitReady()).assertGood();                                           // the one that loaded it knows
        as(B, testUnitReady()).assertCheck(0x6, 0x28, 0x00);                           // MEDIUM MAY HAVE CHANGED, once
        as(B, testUnitReady()).assertGood();
        assertThat(as(A, Scsi.ten(0x28, 0, 3, 1)).assertGood().data()).isEqualTo(data);  // the same medium
    }

    @Test
    void aPowerConditionOrLoejZeroLeavesTheMediumWhereItIs() {
        for (int pc = 1; pc < 16; pc++) {
            as(A, startStop(true, pc, true, false)).assertGood();                      // START, LOEJ ignored
            as(A, testUnitReady()).assertGood();
        }
        as(A, startStop(false, 0, false, false)).assertGood();
        as(A, testUnitReady()).assertGood();
    }

    @Test
    void preventionIsPerNexusAndEndsWithAllowNexusLossAndReset() {
        as(A, preventAllow(1)).assertGood();
        as(A, startStop(false, 0, true, false)).assertCheck(0x5, 0x53, 0x02);          // MEDIUM REMOVAL PREVENTED
        as(B, startStop(false, 0, true, false)).assertCheck(0x5, 0x53, 0x02);          // by any nexus
        as(A, testUnitReady()).assertGood();
        as(B, preventAllow(0)).assertGood();                                           // B's allow is B's only
        as(B, startStop(false, 0, true, false)).assertCheck(0x5, 0x53, 0x02);
        as(A, preventAllow(0)).assertGood();
        as(B, startStop(false, 0, true, false)).assertGood();
        as(B, startStop(false, 0, true, true)).assertGood();
        as(A, testUnitReady()).assertCheck(0x6, 0x28, 0x00);
        // a logical unit reset ends every prevention (SBC-4 §5.15)
        as(B, preventAllow(1)).assertGood();
        target.logicalUnitReset(A, 0);
        WriteProtectTest.clearUnitAttentions(target, A);
        WriteProtectTest.clearUnitAttentions(target, B);
        as(A, startStop(false, 0, true, false)).assertGood();
        as(A, startStop(false, 0, true, true)).assertGood();
        WriteProtectTest.clearUnitAttentions(target, B);
        // so does the loss of the nexus that prevented it
        as(B, preventAllow(1)).assertGood();
        target.nexusLost(B);
        as(A, startStop(false, 0, true, false)).assertGood();
        as(A, testUnitReady()).assertCheck(0x2, 0x3A, 0x00);
        // a reset leaves the medium where it is
        target.logicalUnitReset(A, 0);
        as(A, testUnitReady()).assertCheck(0x6, 0x29, 0x03);
        as(A, testUnitReady()).assertCheck(0x2, 0x3A, 0x00);
    }
}
