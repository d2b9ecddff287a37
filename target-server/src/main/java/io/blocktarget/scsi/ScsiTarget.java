package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.SenseReason;

import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A SCSI target device (SAM-5 §4.6): the logical units behind one iSCSI target name. Routes each
 * command to its logical unit, or to the answers SPC-4 gives for a LUN that does not exist.
 */
public final class ScsiTarget implements ScsiTargetDevice {
    private final String targetName;
    private final NavigableMap<Long, LogicalUnit> units;
    private final List<Long> luns;
    private final NoLogicalUnit noLogicalUnit;

    ScsiTarget(String targetName, List<LogicalUnitSpec> specs) {
        this.targetName = targetName;
        TreeMap<Long, LogicalUnit> map = new TreeMap<>();
        for (LogicalUnitSpec spec : specs) {
            map.put(spec.lun(), new LogicalUnit(this, spec));
        }
        this.units = Collections.unmodifiableNavigableMap(map);
        this.luns = List.copyOf(map.keySet());
        this.noLogicalUnit = new NoLogicalUnit(this);
    }

    @Override
    public String targetName() {
        return targetName;
    }

    @Override
    public List<Long> luns() {
        return luns;
    }

    @Override
    public void execute(ScsiCommand command, ScsiCompletion done) {
        LogicalUnit unit = units.get(command.lun());
        if (unit == null) {
            noLogicalUnit.execute(command, done);
        } else {
            unit.execute(command, done);
        }
    }

    @Override
    public void logicalUnitReset(ItNexus requester, long lun) {
        LogicalUnit unit = units.get(lun);
        if (unit != null) {
            unit.reset(requester);
        }
    }

    @Override
    public void targetReset(ItNexus requester) {
        units.values().forEach(u -> u.reset(requester));
    }

    @Override
    public void nexusLost(ItNexus nexus) {
        units.values().forEach(u -> u.nexusLost(nexus));
    }

    /**
     * The LUN inventory changed (SPC-4 §6.33): every nexus gets REPORTED LUNS DATA HAS CHANGED on
     * every logical unit, cleared by its next REPORT LUNS.
     */
    public void reportedLunsDataChanged() {
        units.values().forEach(u -> u.unitAttentions().raiseForOthers(null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED));
    }

    /** The capacity of {@code lun} changed (SBC-4 §4.6): CAPACITY DATA HAS CHANGED for every nexus. */
    public void capacityDataChanged(long lun) {
        LogicalUnit unit = units.get(lun);
        if (unit != null) {
            unit.unitAttentions().raiseForOthers(null, SenseReason.CAPACITY_DATA_HAS_CHANGED);
        }
    }

    /** The logical unit at {@code lun}, or null; for tests in this package. */
    LogicalUnit unit(long lun) {
        return units.get(lun);
    }

    /** REPORT LUNS clears REPORTED LUNS DATA HAS CHANGED on every logical unit for that nexus. */
    void reportedLunsSeen(ItNexus nexus) {
        units.values().forEach(u -> u.unitAttentions().clear(nexus, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED));
    }
}
