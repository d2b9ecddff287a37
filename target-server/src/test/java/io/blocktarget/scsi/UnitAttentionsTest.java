package io.blocktarget.scsi;

import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unit attentions per I_T nexus (SAM-5 §5.14, issue 28 item 3): after a reset, a nexus loss, or a change made
 * through one nexus, each nexus it concerns is told exactly once — including a second nexus of the same initiator
 * name (another iSCSI session: another ISID, so another I_T nexus) — and the others not at all.
 */
class UnitAttentionsTest {
    /** Initiator A's second session: the same initiator name, another ISID. */
    static final ItNexus A2 = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000003", Scsi.TARGET + ",t,0x0001", 1);
    private static final List<ItNexus> ALL = List.of(A, A2, B);

    private final RamBlockDevice lun0 = Scsi.ram("ua0", 512, 4096, 1 << 20);
    private final RamBlockDevice lun1 = Scsi.ram("ua1", 512, 4096, 1 << 20);
    private final ScsiTarget target = Scsi.target(lun0, lun1);

    UnitAttentionsTest() {
        for (ItNexus n : ALL) {
            Scsi.ready(target, n, 0);
            Scsi.ready(target, n, 1);
        }
    }

    @AfterEach
    void close() {
        lun0.close();
        lun1.close();
    }

    /** The nexus's next command meets exactly {@code ascAscq} (or nothing when empty), then nothing more. */
    private void once(ItNexus nexus, long lun, int... ascAscq) {
        if (ascAscq.length > 0) {
            run(target, nexus, lun, testUnitReady(), null).assertCheck(0x6, ascAscq[0], ascAscq[1]);
        }
        run(target, nexus, lun, testUnitReady(), null).assertGood();
    }

    @Test
    void logicalUnitResetTellsEveryNexusOnceTheRequesterToo() {
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.LOGICAL_UNIT_RESET, A, 0, TaskScope.ANY, done::incrementAndGet);
        assertThat(done).hasValue(1);
        for (ItNexus n : ALL) {
            once(n, 0, 0x29, 0x03);   // BUS DEVICE RESET FUNCTION OCCURRED
            once(n, 1);               // the other logical unit was not reset
        }
    }

    @Test
    void targetResetTellsEveryNexusOnEveryUnitOnce() {
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.TARGET_RESET, B, 0, TaskScope.ANY, done::incrementAndGet);
        assertThat(done).hasValue(1);
        for (ItNexus n : ALL) {
            once(n, 0, 0x29, 0x00);
            once(n, 1, 0x29, 0x00);
        }
    }

    /** SAM-5 §6.3.4: the nexus that comes back (same name, same ISID) meets I_T NEXUS LOSS OCCURRED, once. */
    @Test
    void aLostNexusMeetsNexusLossWhenItComesBackAndKeepsWhatItWasNotToldYet() {
        byte[] dSense = CapacityAndModeTest.concat(cdb(0, 0, 0, 0),
                cdb(0x0A, 0x0A, 0x06, 0x10, 0, 0, 0, 0, 0, 0, 0, 0));
        run(target, A, 0, Scsi.modeSelect6(dSense.length), dSense).assertGood();   // MODE PARAMETERS CHANGED for A2, B
        target.nexusLost(A2);
        byte[] back = CapacityAndModeTest.concat(cdb(0, 0, 0, 0),
                cdb(0x0A, 0x0A, 0x02, 0x10, 0, 0, 0, 0, 0, 0, 0, 0));
        run(target, B, 0, Scsi.modeSelect6(back.length), back).assertCheck(0x6, 0x2A, 0x01);
        run(target, B, 0, Scsi.modeSelect6(back.length), back).assertGood();        // while A2 is away
        run(target, A2, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x07);       // I_T NEXUS LOSS OCCURRED
        once(A2, 0, 0x2A, 0x01);                                                      // told once, not twice
        once(A2, 1, 0x29, 0x07);                                                      // per logical unit
        once(A, 0, 0x2A, 0x01);                                                       // B's change, for A
        once(B, 0);
    }

    @Test
    void aResetWhileANexusLossIsPendingIsOneResetConditionNotTwo() {
        target.nexusLost(B);
        target.taskManagement(TaskManagementFunction.LOGICAL_UNIT_RESET, A, 0, TaskScope.ANY, () -> { });
        once(B, 0, 0x29, 0x03);
        once(B, 1, 0x29, 0x07);
    }

    @Test
    void modeAndCapacityChanges() {
        byte[] dSense = CapacityAndModeTest.concat(cdb(0, 0, 0, 0),
                cdb(0x0A, 0x0A, 0x06, 0x10, 0, 0, 0, 0, 0, 0, 0, 0));
        run(target, A2, 1, Scsi.modeSelect6(dSense.length), dSense).assertGood();
        once(A2, 1);                                                                  // not the one that changed it
        once(A, 1, 0x2A, 0x01);                                                       // the same initiator's other session
        once(B, 1, 0x2A, 0x01);
        once(A, 0);
        target.capacityDataChanged(0);
        for (ItNexus n : ALL) {
            once(n, 0, 0x2A, 0x09);
            once(n, 1);
        }
    }

    /** SPC-5 §5.14.11: the preempted registration's nexus is told, the same initiator's other nexus is not. */
    @Test
    void reservationNoticesGoToTheNexusOfTheRegistration() {
        run(target, A, 0, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24), ReservationsTest.params(0, 0xA, 0))
                .assertGood();
        run(target, A2, 0, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24),
                ReservationsTest.params(0, 0xA2, 0)).assertGood();
        run(target, B, 0, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24), ReservationsTest.params(0, 0xB, 0))
                .assertGood();
        run(target, A2, 0, ReservationsTest.prOut(ReservationsTest.RESERVE, ReservationsTest.WE_RO, 24),
                ReservationsTest.params(0xA2, 0, 0)).assertGood();
        run(target, A2, 0, ReservationsTest.prOut(ReservationsTest.RELEASE, ReservationsTest.WE_RO, 24),
                ReservationsTest.params(0xA2, 0, 0)).assertGood();
        once(A, 0, 0x2A, 0x04);                                                       // RESERVATIONS RELEASED
        once(B, 0, 0x2A, 0x04);
        once(A2, 0);
        run(target, B, 0, ReservationsTest.prOut(ReservationsTest.PREEMPT, ReservationsTest.WE, 24),
                ReservationsTest.params(0xB, 0xA2, 0)).assertGood();
        once(A2, 0, 0x2A, 0x05);                                                      // REGISTRATIONS PREEMPTED
        once(A, 0);
        once(B, 0);
    }

    @Test
    void lostNexusesAreRememberedUpToALimit() {
        LogicalUnit unit = target.unit(0);
        int before = unit.unitAttentions().known();
        for (int i = 0; i < UnitAttentions.LOST_NEXUS_LIMIT + 10; i++) {
            ItNexus n = new ItNexus("iqn.2026-11.test:many,i,0x" + Integer.toHexString(0x400000 + i),
                    Scsi.TARGET + ",t,0x0001", 1);
            run(target, n, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
            target.nexusLost(n);
        }
        assertThat(unit.unitAttentions().known()).isEqualTo(before + UnitAttentions.LOST_NEXUS_LIMIT);
        ItNexus first = new ItNexus("iqn.2026-11.test:many,i,0x400000", Scsi.TARGET + ",t,0x0001", 1);
        run(target, first, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);   // forgotten: a new nexus
        ItNexus last = new ItNexus("iqn.2026-11.test:many,i,0x" + Integer.toHexString(0x400000
                + UnitAttentions.LOST_NEXUS_LIMIT + 9), Scsi.TARGET + ",t,0x0001", 1);
        run(target, last, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x07);
    }
}
