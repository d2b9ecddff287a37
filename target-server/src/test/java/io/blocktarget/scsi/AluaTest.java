package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.AccessState;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.lun.PathStates;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.TARGET;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.modeSense6;
import static io.blocktarget.scsi.Scsi.readCapacity10;
import static io.blocktarget.scsi.Scsi.reportLuns;
import static io.blocktarget.scsi.Scsi.requestSense;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ALUA over two portals (SPC-5 §5.16, §6.37): REPORT TARGET PORT GROUPS byte for byte per state, VPD 83h's port and
 * group designators per portal, what each state lets through, ASYMMETRIC ACCESS STATE CHANGED once per other nexus,
 * and a transition's end on a manual clock.
 */
class AluaTest {
    /** A nexus through portal 2 (TPGT 2, relative target port 2). */
    private static final ItNexus C = new ItNexus("iqn.2026-11.test:host-c,i,0x23d000000003", TARGET + ",t,0x0002",
            2);

    /** commands.set-target-port-groups: true — explicit ALUA (the default is implicit only: see the last tests). */
    private static final io.blocktarget.config.LunFeatures EXPLICIT = io.blocktarget.config.LunFeatures.NONE.withKnobs(
            io.blocktarget.config.DeviceKnobs.DEFAULTS.withCommands(java.util.Map.of(
                    io.blocktarget.config.DeviceKnobs.Command.SET_TARGET_PORT_GROUPS, true)));

    private final ManualClock clock = new ManualClock();
    private final BlockDevice device = Scsi.ram("alua", 512, 512, 1 << 20);
    private final LunState state = new LunState("alua", null, java.util.Optional.empty(), clock);
    private final ScsiTarget target;

    AluaTest() {
        state.paths().install(List.of(AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED), change -> { });
        target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(TARGET, 0, "alua", device, state,
                EXPLICIT))).get(TARGET);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        Scsi.ready(target, C, 0);
    }

    @AfterEach
    void close() {
        device.close();
    }

    private Scsi.Reply run(ItNexus nexus, byte[] cdb) {
        return Scsi.run(target, nexus, 0, cdb, null);
    }

    private static byte[] rtpg(int format, int allocation) {
        return cdb(0xA3, 0x0A, format << 5, 0, 0, 0, allocation >> 24, allocation >> 16, allocation >> 8,
                allocation, 0, 0);
    }

    /** Sets portal 1 (A's and B's) to {@code s} at once and consumes the unit attention on A. */
    private void portal1(AccessState s) {
        state.paths().set(Map.of(1, s), 0, null);
        run(A, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
    }

    @Test
    void reportTargetPortGroupsHasOneGroupPerPortalByteForByte() {
        assertThat(run(A, rtpg(0, 256)).assertGood().data()).isEqualTo(cdb(
                0, 0, 0, 24,                // RETURN DATA LENGTH: 2 x (8 + 4)
                0x00, 0xCF, 0, 1,           // PREF 0, active/optimized; T_SUP O_SUP U_SUP S_SUP AN_SUP AO_SUP; group 1
                0, 0x00, 0, 1,              // reserved, STATUS CODE 0 (as configured), vendor, TARGET PORT COUNT 1
                0, 0, 0, 1,                 // RELATIVE TARGET PORT IDENTIFIER 1
                0x01, 0xCF, 0, 2,           // active/non-optimized, group 2
                0, 0x00, 0, 1,
                0, 0, 0, 2));
        // extended header: FORMAT TYPE 001b, IMPLICIT TRANSITION TIME 0; the descriptors as above
        byte[] ext = run(A, rtpg(1, 256)).assertGood().data();
        assertThat(Arrays.copyOfRange(ext, 0, 8)).isEqualTo(cdb(0, 0, 0, 28, 0x10, 0, 0, 0));
        assertThat(ext).hasSize(32);
    }

    @Test
    void eachStateHasItsCodeAndAnImplicitChangeItsStatusCode() {
        int[][] expected = {
                {0x0}, {0x1}, {0x3}, {0x2}, {0x3}, {0xE}, {0xF}};
        AccessState[] states = {AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED, AccessState.INACCESSIBLE,
                AccessState.STANDBY, AccessState.UNAVAILABLE, AccessState.PERSISTENT_LOSS, AccessState.TRANSITIONING};
        for (int i = 0; i < states.length; i++) {
            state.paths().set(Map.of(2, states[i]), 0, null);   // each differs from the one before
            run(A, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
            byte[] data = run(A, rtpg(0, 256)).assertGood().data();
            assertThat(data[16] & 0x0F).as(states[i].name()).isEqualTo(expected[i][0]);
            assertThat(data[16] & 0x80).as("PREF").isZero();
            assertThat(data[21]).as("STATUS CODE: altered by implicit behavior").isEqualTo((byte) 0x02);
        }
    }

    @Test
    void vpd83NamesThePortAndGroupOfTheAskingNexusPortal() {
        for (ItNexus n : List.of(A, C)) {
            byte[] vpd = run(n, inquiry(true, 0x83, 1024)).assertGood().data();
            List<int[]> targetPort = new ArrayList<>();   // {type, value}
            for (int at = 4; at < vpd.length; at += 4 + (vpd[at + 3] & 0xFF)) {
                int type = vpd[at + 1] & 0x0F;
                if ((vpd[at + 1] & 0x30) == 0x10 && (type == 4 || type == 5)) {
                    // PIV 1, association 01b target port, binary; 4 bytes: reserved 2, the 16-bit value
                    assertThat(Arrays.copyOfRange(vpd, at, at + 8)).isEqualTo(cdb(0x51, 0x90 | type, 0, 4, 0, 0,
                            0, n.relativeTargetPort()));
                    targetPort.add(new int[] {type, n.relativeTargetPort()});
                }
            }
            assertThat(targetPort).as("relative target port and target port group").hasSize(2);
        }
    }

    /** One command of each class: what it is, its CDB, and whether it is good on an active port. */
    private record Command(String name, byte[] cdb) {
    }

    private static final List<Command> COMMANDS = List.of(
            new Command("TEST UNIT READY", testUnitReady()),
            new Command("READ(10)", ten(0x28, 0, 0, 1)),
            new Command("WRITE(10)", ten(0x2A, 0, 0, 0)),
            new Command("READ CAPACITY(10)", readCapacity10()),
            new Command("MODE SENSE(6)", modeSense6(0, 0x3F, 0, 255)),
            new Command("PERSISTENT RESERVE IN", cdb(0x5E, 0, 0, 0, 0, 0, 0, 0, 255, 0)),
            new Command("INQUIRY", inquiry(false, 0, 96)),
            new Command("REPORT LUNS", reportLuns(256)),
            new Command("REQUEST SENSE", requestSense(false, 252)),
            new Command("REPORT TARGET PORT GROUPS", rtpg(0, 256)));

    /** Per state: the ASCQ of 04h refusing a command, and the commands it lets through (SPC-5 §5.16.2.4, 5.16.2.5). */
    private static final Map<AccessState, Integer> ASCQ = Map.of(AccessState.STANDBY, 0x0B,
            AccessState.UNAVAILABLE, 0x0C, AccessState.INACCESSIBLE, 0x0C, AccessState.TRANSITIONING, 0x0A,
            AccessState.PERSISTENT_LOSS, 0x12);
    private static final List<String> ALWAYS = List.of("INQUIRY", "REPORT LUNS", "REQUEST SENSE",
            "REPORT TARGET PORT GROUPS");
    private static final List<String> STANDBY_TOO = List.of("MODE SENSE(6)", "PERSISTENT RESERVE IN");

    @Test
    void everyStateTimesEveryCommandClass() {
        for (AccessState s : AccessState.values()) {
            if (s != AccessState.OPTIMIZED) {
                portal1(s);
            }
            for (Command c : COMMANDS) {
                Scsi.Reply r = run(A, c.cdb());
                boolean allowed = s.active() || ALWAYS.contains(c.name())
                        || s == AccessState.STANDBY && STANDBY_TOO.contains(c.name());
                if (allowed) {
                    r.assertGood();
                } else {
                    r.assertCheck(0x2, 0x04, ASCQ.get(s));
                }
            }
            // the other portal is untouched: C reads through it whatever portal 1's state
            if (s != AccessState.OPTIMIZED) {
                run(C, ten(0x28, 0, 0, 1)).assertCheck(0x6, 0x2A, 0x06);
            }
            run(C, ten(0x28, 0, 0, 1)).assertGood();
            if (s != AccessState.OPTIMIZED) {
                portal1(AccessState.OPTIMIZED);
                run(C, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
            }
        }
    }

    @Test
    void theChangeIsReportedOnceToEveryNexusAndInquiryDoesNotConsumeIt() {
        state.paths().set(Map.of(2, AccessState.NON_OPTIMIZED), 0, null);
        state.paths().set(Map.of(2, AccessState.OPTIMIZED), 0, null);
        run(A, inquiry(false, 0, 96)).assertGood();
        for (ItNexus n : List.of(A, B, C)) {
            run(n, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
            run(n, testUnitReady()).assertGood();
        }
        // two changes before any command (above, too): one condition each, not two
        state.paths().set(Map.of(2, AccessState.NON_OPTIMIZED), 0, null);
        state.paths().set(Map.of(1, AccessState.NON_OPTIMIZED), 0, null);
        run(B, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
        run(B, testUnitReady()).assertGood();
    }

    @Test
    void anExplicitChangeIsNotReportedToTheNexusThatMadeIt() {
        state.paths().set(Map.of(1, AccessState.NON_OPTIMIZED), 0, A);
        run(A, testUnitReady()).assertGood();
        run(B, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
        byte[] data = run(A, rtpg(0, 256)).assertGood().data();
        assertThat(data[9]).as("STATUS CODE: altered by SET TARGET PORT GROUPS").isEqualTo((byte) 0x01);
    }

    @Test
    void aNexusNewToTheUnitMeetsPowerOnOnly() {
        state.paths().set(Map.of(1, AccessState.NON_OPTIMIZED), 0, null);
        ItNexus d = new ItNexus("iqn.2026-11.test:host-d,i,0x23d000000004", TARGET + ",t,0x0001", 1);
        run(d, testUnitReady()).assertCheck(0x6, 0x29, 0x00);
        run(d, testUnitReady()).assertGood();
    }

    @Test
    void aTransitionRefusesIoUntilItEndsOnTheClock() {
        state.paths().set(Map.of(1, AccessState.STANDBY), 2_000_000_000L, null);
        run(A, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
        run(A, ten(0x28, 0, 0, 1)).assertCheck(0x2, 0x04, 0x0A);
        clock.advanceMillis(1_999);
        run(A, ten(0x28, 0, 0, 1)).assertCheck(0x2, 0x04, 0x0A);
        clock.advanceMillis(1);
        run(A, ten(0x28, 0, 0, 1)).assertCheck(0x6, 0x2A, 0x06);
        run(A, ten(0x28, 0, 0, 1)).assertCheck(0x2, 0x04, 0x0B);
        run(A, modeSense6(0, 0x3F, 0, 255)).assertGood();
        assertThat(state.paths().all().get(0)).isEqualTo(new PathStates.Path(AccessState.STANDBY,
                PathStates.Origin.IMPLICIT));
    }

    // ---- SET TARGET PORT GROUPS (SPC-5 §6.41) --------------------------------------------------------------

    private static byte[] stpg(int length) {
        return cdb(0xA4, 0x0A, 0, 0, 0, 0, length >> 24, length >> 16, length >> 8, length, 0, 0);
    }

    /** A header and one descriptor per {state, group} pair. */
    private static byte[] stpgList(int[]... descriptors) {
        byte[] list = new byte[4 + 4 * descriptors.length];
        for (int i = 0; i < descriptors.length; i++) {
            list[4 + 4 * i] = (byte) descriptors[i][0];
            list[4 + 4 * i + 2] = (byte) (descriptors[i][1] >> 8);
            list[4 + 4 * i + 3] = (byte) descriptors[i][1];
        }
        return list;
    }

    private Scsi.Reply stpg(ItNexus nexus, byte[] list) {
        return Scsi.run(target, nexus, 0, stpg(list.length), list);
    }

    /** SKSV, C/D 0 (parameter list), BPV and the bit, and the field's byte (SPC-5 §4.4.2.2). */
    private static void assertParameterPointer(Scsi.Reply r, int field, int bit) {
        assertThat(Arrays.copyOfRange(r.sense(), 15, 18)).isEqualTo(cdb(0x80 | 0x08 | bit, field >> 8, field));
    }

    @Test
    void inquiryAdvertisesImplicitAndExplicitAsymmetricAccess() {
        byte[] std = run(A, inquiry(false, 0, 96)).assertGood().data();
        assertThat((std[5] >> 4) & 0x3).as("TPGS 11b").isEqualTo(0b11);
    }

    @Test
    void byDefaultAccessIsImplicitOnlyAndSetTargetPortGroupsIsNotSupported() {
        LunState plainState = new LunState("plain", null, java.util.Optional.empty(), clock);
        plainState.paths().install(List.of(AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED), change -> { });
        ScsiTarget plain = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(TARGET, 0, "plain", device,
                plainState))).get(TARGET);
        Scsi.ready(plain, A, 0);
        byte[] std = Scsi.run(plain, A, 0, inquiry(false, 0, 96), null).assertGood().data();
        assertThat((std[5] >> 4) & 0x3).as("TPGS 01b").isEqualTo(0b01);
        byte[] list = stpgList(new int[] {0x0, 2});
        Scsi.Reply refused = Scsi.run(plain, A, 0, stpg(list.length), list);
        assertThat(refused.sense()[2] & 0x0F).as("ILLEGAL REQUEST").isEqualTo(0x05);
        assertThat(refused.sense()[12]).as("INVALID COMMAND OPERATION CODE").isEqualTo((byte) 0x20);
        assertThat(plainState.paths().all()).extracting(PathStates.Path::state)
                .containsExactly(AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED);
    }

    @Test
    void setTargetPortGroupsChangesEveryGroupInOneStepExplicitly() {
        // Linux scsi_dh_alua's STPG: portal 2 active/optimized; with it portal 1 standby
        stpg(A, stpgList(new int[] {0x0, 2}, new int[] {0x2, 1})).assertGood();
        assertThat(state.paths().all()).containsExactly(
                new PathStates.Path(AccessState.STANDBY, PathStates.Origin.EXPLICIT),
                new PathStates.Path(AccessState.OPTIMIZED, PathStates.Origin.EXPLICIT));
        byte[] data = run(C, rtpg(0, 256)).assertCheck(0x6, 0x2A, 0x06).data();
        data = run(C, rtpg(0, 256)).assertGood().data();
        assertThat(data[4] & 0x0F).isEqualTo(0x2);
        assertThat(data[9]).as("STATUS CODE 01h: altered by SET TARGET PORT GROUPS").isEqualTo((byte) 0x01);
        assertThat(data[16] & 0x0F).isEqualTo(0x0);
        assertThat(data[21]).isEqualTo((byte) 0x01);
        // A's port is standby now: A itself gets no unit attention, only NOT READY for I/O; B (same port) does
        run(A, ten(0x28, 0, 0, 1)).assertCheck(0x2, 0x04, 0x0B);
        run(B, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
        // STPG is allowed on a standby port (SPC-5 §5.16.2.4.4): A brings its port back; offline is persistent loss
        stpg(A, stpgList(new int[] {0x0, 1}, new int[] {0xE, 2})).assertGood();
        run(A, ten(0x28, 0, 0, 1)).assertGood();
        assertThat(state.paths().state(2)).isEqualTo(AccessState.PERSISTENT_LOSS);
        run(C, ten(0x28, 0, 0, 1)).assertCheck(0x6, 0x2A, 0x06);
        run(C, ten(0x28, 0, 0, 1)).assertCheck(0x2, 0x04, 0x12);
    }

    @Test
    void aLengthOfZeroChangesNothingAndAnIdenticalStateReportsNothing() {
        Scsi.run(target, A, 0, stpg(0), null).assertGood();
        stpg(A, stpgList(new int[] {0x0, 1}, new int[] {0x1, 2})).assertGood();   // the states they have
        assertThat(state.paths().version()).isZero();
        run(B, testUnitReady()).assertGood();
        assertThat(state.paths().all().get(0).origin()).isEqualTo(PathStates.Origin.CONFIGURED);
    }

    @Test
    void everyRefusalChangesNothing() {
        for (int code : new int[] {0x4, 0x5, 0xD, 0xF}) {   // LBD (LBD_SUP 0), reserved, transitioning
            Scsi.Reply r = stpg(A, stpgList(new int[] {0x1, 1}, new int[] {code, 2})).assertCheck(0x5, 0x26, 0x00);
            assertParameterPointer(r, 8, 3);
        }
        for (int group : new int[] {0, 3, 0xFFFF}) {
            Scsi.Reply r = stpg(A, stpgList(new int[] {0x1, group})).assertCheck(0x5, 0x26, 0x00);
            assertParameterPointer(r, 6, 7);
        }
        Scsi.Reply twice = stpg(A, stpgList(new int[] {0x1, 2}, new int[] {0x2, 2})).assertCheck(0x5, 0x26, 0x00);
        assertParameterPointer(twice, 10, 7);
        Scsi.run(target, A, 0, stpg(6), new byte[6]).assertCheck(0x5, 0x1A, 0x00);   // inside a descriptor
        Scsi.run(target, A, 0, stpg(3), new byte[3]).assertCheck(0x5, 0x1A, 0x00);   // inside the header
        // fewer bytes than PARAMETER LIST LENGTH arrived: INVALID FIELD IN CDB at the length
        Scsi.run(target, A, 0, stpg(8), new byte[4]).assertCheck(0x5, 0x24, 0x00);
        run(A, cdb(0xA4, 0x0B, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0)).assertCheck(0x5, 0x24, 0x00);
        assertThat(state.paths().version()).as("nothing changed").isZero();
        assertThat(state.paths().all()).extracting(PathStates.Path::state)
                .containsExactly(AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED);
    }

    @Test
    void aTransitioningPortRefusesSetTargetPortGroups() {
        state.paths().set(Map.of(1, AccessState.TRANSITIONING), 0, null);
        run(A, testUnitReady()).assertCheck(0x6, 0x2A, 0x06);
        stpg(A, stpgList(new int[] {0x0, 1})).assertCheck(0x2, 0x04, 0x0A);
        stpg(C, stpgList(new int[] {0x0, 1})).assertCheck(0x6, 0x2A, 0x06);
        stpg(C, stpgList(new int[] {0x0, 1})).assertGood();   // through the other port it is allowed
        assertThat(state.paths().state(1)).isEqualTo(AccessState.OPTIMIZED);
    }
}
