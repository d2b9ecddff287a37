package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ScsiLun;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds the SCSI target devices the iSCSI transport serves: one per target name, its LUNs grouped. */
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
