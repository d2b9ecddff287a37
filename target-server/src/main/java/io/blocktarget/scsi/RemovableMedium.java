package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.ModeSelectCdb;
import io.blocktarget.protocol.scsi.ModeSenseCdb;
import io.blocktarget.protocol.scsi.PersistentReserveInCdb;
import io.blocktarget.protocol.scsi.PersistentReserveOutCdb;
import io.blocktarget.protocol.scsi.PreventAllowMediumRemovalCdb;
import io.blocktarget.protocol.scsi.Release6Cdb;
import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.ReportSupportedOperationCodesCdb;
import io.blocktarget.protocol.scsi.ReportTargetPortGroupsCdb;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.Reserve6Cdb;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.StartStopUnitCdb;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The medium of a logical unit with {@code removable: true} (RMB = 1 in the standard INQUIRY data): a virtual tray
 * that START STOP UNIT with LOEJ = 1 opens (START = 0: eject) and closes (START = 1: load), and whose opening any I_T
 * nexus may prevent with PREVENT ALLOW MEDIUM REMOVAL (SBC-4 §5.15, §5.25). The data stays with the device: loading
 * brings the same medium back.
 *
 * <ul>
 * <li>Prevention is per I_T nexus; an eject while any nexus prevents it is ILLEGAL REQUEST, MEDIUM REMOVAL PREVENTED
 *     (53h/02h). It ends with PREVENT = 00b from that nexus, the nexus's loss, and a logical unit or hard reset
 *     (SBC-4 §5.15).</li>
 * <li>While the medium is out, every command that needs it — TEST UNIT READY, READ CAPACITY and the medium access
 *     commands — is NOT READY, MEDIUM NOT PRESENT (3Ah/00h), and REQUEST SENSE returns that sense; what describes or
 *     manages the unit (INQUIRY, REPORT LUNS, MODE SENSE / SELECT, RSOC, reservations, START STOP UNIT, PREVENT
 *     ALLOW MEDIUM REMOVAL) still runs. A load tells the other nexuses NOT READY TO READY CHANGE, MEDIUM MAY HAVE
 *     CHANGED (28h/00h); the nexus that loaded it knows.</li>
 * <li>A non-zero POWER CONDITION makes START STOP UNIT ignore START and LOEJ (SBC-4 §5.25); nothing here has power
 *     states, so such a command changes nothing. LOEJ = 0 leaves the medium where it is.</li>
 * </ul>
 * Shared by sessions on different event loops: the state is a volatile flag and a concurrent set.
 */
final class RemovableMedium {
    private volatile boolean present = true;
    private final Set<ItNexus> preventing = ConcurrentHashMap.newKeySet();

    boolean present() {
        return present;
    }

    /** MEDIUM NOT PRESENT for {@code cdb} while the medium is out and the command needs it, else null. */
    SenseReason refusal(Cdb cdb) {
        if (present) {
            return null;
        }
        return switch (cdb) {
            case InquiryCdb _, ReportLunsCdb _, RequestSenseCdb _, ModeSenseCdb _, ModeSelectCdb _,
                 ReportSupportedOperationCodesCdb _, ReportTargetPortGroupsCdb _, PersistentReserveInCdb _,
                 PersistentReserveOutCdb _, Reserve6Cdb _, Release6Cdb _, StartStopUnitCdb _,
                 PreventAllowMediumRemovalCdb _ -> null;
            default -> SenseReason.MEDIUM_NOT_PRESENT;
        };
    }

    void preventAllow(Task task, PreventAllowMediumRemovalCdb cdb) {
        if (cdb.prevent()) {
            preventing.add(task.nexus());
        } else {
            preventing.remove(task.nexus());
        }
        task.good();
    }

    void startStop(Task task, StartStopUnitCdb cdb, UnitAttentions unitAttentions) {
        if (cdb.powerCondition() != 0 || !cdb.loej()) {
            task.good();
            return;
        }
        if (cdb.start()) {
            boolean wasOut = !present;
            present = true;
            if (wasOut) {
                unitAttentions.raiseForOthers(task.nexus(), SenseReason.NOT_READY_TO_READY_CHANGE_MEDIUM_MAY_HAVE_CHANGED);
            }
            task.good();
            return;
        }
        if (!preventing.isEmpty()) {
            task.fail(SenseReason.MEDIUM_REMOVAL_PREVENTED);
            return;
        }
        present = false;
        task.good();
    }

    /** The nexus is gone: its prevention with it. */
    void nexusLost(ItNexus nexus) {
        preventing.remove(nexus);
    }

    /** A logical unit or hard reset ends every prevention; the medium stays where it is. */
    void reset() {
        preventing.clear();
    }
}
