package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ScsiLun;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the SCSI target devices the iSCSI transport serves: one per target name, its LUNs grouped.
 *
 * <p>Behaviour the transport and the integrator should know (details at each class):
 * <ul>
 * <li>Transfer length of a response: for block transfers the bytes the CDB asks for (blocks × LBS);
 *     for parameter data cut by an ALLOCATION LENGTH the bytes actually returned (SPC-4 §4.2.5.6), so
 *     the iSCSI residual of a short INQUIRY is an underflow, as LIO reports it. Failed commands report 0.</li>
 * <li>Data-out shorter than the CDB needs: WRITE / WRITE AND VERIFY write the whole blocks that arrived and
 *     complete GOOD, reporting the CDB's length so the transport sets the overflow residual (RFC 7143
 *     §11.4.5.1, {@code Task.writeData}); VERIFY, COMPARE AND WRITE, WRITE SAME get CHECK CONDITION, ILLEGAL
 *     REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT; parameter lists INVALID FIELD IN CDB at the
 *     PARAMETER LIST LENGTH (LIO target_cmd_size_check). Extra data-out is ignored.</li>
 * <li>Task management ({@link ScsiTargetDevice#taskManagement}) completes once every task it reaches has
 *     stopped; CLEAR TASK SET and the resets reach every I_T nexus (one task set, TST = 000b, TAS = 0).</li>
 * <li>MAXIMUM TRANSFER LENGTH is 8 MiB (at least one block); larger transfers are INVALID FIELD IN CDB.</li>
 * <li>WRITE SAME is executed at every block size but advertised only up to 4 KiB blocks (Linux 7.3
 *     sd bug, see {@link UnitLimits}); UNMAP is advertised everywhere; GET LBA STATUS says "mapped".</li>
 * <li>Persistent reservations live in the block layer (shared with NVMe); REGISTER AND MOVE within the target port; SPEC_I_PT and
 *     ALL_TG_PT are not supported.</li>
 * </ul>
 */
public final class ScsiTargetDevices {
    private ScsiTargetDevices() {
    }

    /**
     * The target devices for {@code units}, keyed by target name in first-seen order.
     *
     * @throws IllegalArgumentException for a LUN outside 0..16383 or a LUN used twice in one target
     */
    public static Map<String, ScsiTargetDevice> create(List<LogicalUnitSpec> units) {
        return Collections.unmodifiableMap(createTargets(units));
    }

    /** As {@link #create}, typed as {@link ScsiTarget} for callers that raise unit attentions. */
    public static Map<String, ScsiTarget> createTargets(List<LogicalUnitSpec> units) {
        Map<String, List<LogicalUnitSpec>> byTarget = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (LogicalUnitSpec unit : units) {
            if (unit.lun() < 0 || unit.lun() > ScsiLun.MAX_FLAT_LUN) {
                throw new IllegalArgumentException("LUN " + unit.lun() + " of " + unit.name() + " is outside 0..16383");
            }
            if (!seen.add(unit.targetName() + "\0" + unit.lun())) {
                throw new IllegalArgumentException("LUN " + unit.lun() + " of target " + unit.targetName()
                        + " is used twice (" + unit.name() + ")");
            }
            byTarget.computeIfAbsent(unit.targetName(), t -> new ArrayList<>()).add(unit);
        }
        Map<String, ScsiTarget> targets = new LinkedHashMap<>();
        byTarget.forEach((name, specs) -> targets.put(name, new ScsiTarget(name, specs)));
        return Collections.unmodifiableMap(targets);
    }
}
