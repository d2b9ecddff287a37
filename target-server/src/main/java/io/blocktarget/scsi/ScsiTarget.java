package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.SenseReason;

import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A SCSI target device (SAM-5 §4.6): the logical units behind one iSCSI target name. Routes each
 * command to its logical unit, or to the answers SPC-4 gives for a LUN that does not exist.
 */
public final class ScsiTarget implements ScsiTargetDevice {
    private final String targetName;
    private final NavigableMap<Long, LogicalUnit> units;
    private final List<Long> luns;
    private final NoLogicalUnit noLogicalUnit;
    /** The transport side of every logged-in I_T nexus (sessions on any event loop). */
    private final Map<ItNexus, NexusTasks> transports = new ConcurrentHashMap<>();

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
    public void attach(ItNexus nexus, NexusTasks tasks) {
        transports.put(nexus, tasks);
    }

    @Override
    public void detach(ItNexus nexus, NexusTasks tasks) {
        transports.remove(nexus, tasks);
    }

    /**
     * Two phases, so that no task slips between them: first every transport the function reaches drops the tasks it
     * still holds and stops answering for those it handed over (after this no aborted task can start executing);
     * then the task sets of the logical units are scanned and the function waits until each task found has left
     * (its I/O ended). Tasks that arrive during the second phase are waited for too, which is harmless.
     */
    @Override
    public void taskManagement(TaskManagementFunction function, ItNexus requester, long lun, long taskTag,
                               Runnable done) {
        boolean everyUnit = function.units() == TaskManagementFunction.Units.EVERY;
        List<LogicalUnit> affected = everyUnit ? List.copyOf(units.values())
                : units.containsKey(lun) ? List.of(units.get(lun)) : List.of();
        TaskScope scope = new TaskScope(everyUnit ? TaskScope.ANY : lun,
                function == TaskManagementFunction.ABORT_TASK ? taskTag : TaskScope.ANY);
        boolean everyNexus = function.reach() == TaskManagementFunction.Reach.EVERY_NEXUS;
        Map<ItNexus, NexusTasks> reached = everyNexus ? Map.copyOf(transports)
                : transports.containsKey(requester) ? Map.of(requester, transports.get(requester)) : Map.of();
        Set<ItNexus> losers = ConcurrentHashMap.newKeySet();
        Countdown taskSetsEmpty = new Countdown(affected.size() + 1, () -> {
            finish(function, requester, affected, losers);
            done.run();
        });
        Countdown transportsDone = new Countdown(reached.size() + 1, () -> {
            for (LogicalUnit u : affected) {
                u.abortTasks(t -> (everyNexus || t.nexus().equals(requester))
                        && scope.matches(t.command().lun(), t.command().taskTag()), nexuses -> {
                    losers.addAll(nexuses);
                    taskSetsEmpty.arrive();
                });
            }
            taskSetsEmpty.arrive();
        });
        reached.forEach((nexus, tasks) -> tasks.abort(scope, aborted -> {
            if (aborted > 0) {
                losers.add(nexus);
            }
            transportsDone.arrive();
        }));
        transportsDone.arrive();
    }

    /** What the function does to the logical units once their tasks are gone. */
    private void finish(TaskManagementFunction function, ItNexus requester, List<LogicalUnit> affected,
                        Set<ItNexus> losers) {
        switch (function) {
            case ABORT_TASK, ABORT_TASK_SET -> {
                // SAM-5 §7.2 / §7.3: only the requester's tasks; nothing to tell others
            }
            case CLEAR_TASK_SET -> affected.forEach(u -> u.tasksCleared(requester, new HashSet<>(losers)));
            case LOGICAL_UNIT_RESET, TARGET_RESET -> affected.forEach(u -> u.reset(requester));
        }
    }

    /** The state part of LOGICAL UNIT RESET (no tasks aborted); see {@link #taskManagement}. */
    public void logicalUnitReset(ItNexus requester, long lun) {
        LogicalUnit unit = units.get(lun);
        if (unit != null) {
            unit.reset(requester);
        }
    }

    /** The state part of a hard reset of every logical unit (no tasks aborted); see {@link #taskManagement}. */
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
