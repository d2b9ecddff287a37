package io.blocktarget.scsi;

import io.blocktarget.block.InFlight;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.protocol.scsi.ScsiLun;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;

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
 *
 * <p>The logical unit inventory changes at runtime ({@link #attach}, {@link #detach}): it is an
 * immutable map replaced as a whole (copy-on-write under this object's monitor), so every command
 * reads one consistent inventory with a single volatile load, and a command keeps the logical unit
 * it found while that unit is detached. Each command is counted in its device's {@link InFlight}
 * for as long as it executes; a draining device refuses new commands as a missing LUN would.
 */
public final class ScsiTarget implements ScsiTargetDevice {
    /** A logical unit and the count its commands are kept in. */
    private record Mounted(LogicalUnit unit, LogicalUnitSpec spec) {
    }

    /** The inventory at one moment: LUN → unit, and the LUNs ascending for REPORT LUNS. */
    private record Inventory(NavigableMap<Long, Mounted> units, List<Long> luns, Mounted[] dense) {
        /** LUNs below this are also found by index in {@link #dense} (every command looks its unit up). */
        static final int DENSE_LUNS = 256;

        static Inventory of(TreeMap<Long, Mounted> map) {
            Mounted[] dense = new Mounted[map.isEmpty() ? 0 : (int) Math.min(DENSE_LUNS, map.lastKey() + 1)];
            map.headMap((long) dense.length).forEach((lun, m) -> dense[lun.intValue()] = m);
            return new Inventory(Collections.unmodifiableNavigableMap(map), List.copyOf(map.keySet()), dense);
        }

        /** The unit at {@code lun}, or null: by index below {@link #DENSE_LUNS}, the map above. */
        Mounted unit(long lun) {
            return lun >= 0 && lun < dense.length ? dense[(int) lun] : lun < DENSE_LUNS ? null : units.get(lun);
        }
    }

    private final String targetName;
    private volatile Inventory inventory;
    private final NoLogicalUnit noLogicalUnit;
    /** The transport side of every logged-in I_T nexus (sessions on any event loop). */
    private final Map<ItNexus, NexusTasks> transports = new ConcurrentHashMap<>();

    ScsiTarget(String targetName, List<LogicalUnitSpec> specs) {
        this.targetName = targetName;
        this.noLogicalUnit = new NoLogicalUnit(this);
        TreeMap<Long, Mounted> map = new TreeMap<>();
        for (LogicalUnitSpec spec : specs) {
            map.put(spec.lun(), new Mounted(new LogicalUnit(this, spec), spec));
        }
        this.inventory = Inventory.of(map);
    }

    @Override
    public String targetName() {
        return targetName;
    }

    @Override
    public List<Long> luns() {
        return inventory.luns();
    }

    @Override
    public void execute(ScsiCommand command, ScsiCompletion done) {
        Mounted mounted = inventory.unit(command.lun());
        if (mounted == null) {
            noLogicalUnit.execute(command, done);
            return;
        }
        // the unit's task counts itself in the device while it executes (Task: the LUN step of the pipeline)
        if (!mounted.unit().execute(command, done)) {
            noLogicalUnit.execute(command, done);   // being removed: as if gone (LOGICAL UNIT NOT SUPPORTED)
        }
    }

    /**
     * The opcode class a command is counted in (SBC-4 §5): READ(6/10/12/16); WRITE(6/10/12/16), WRITE AND
     * VERIFY(10/12/16), WRITE ATOMIC(16); SYNCHRONIZE CACHE(10/16); UNMAP and WRITE SAME(10/16) with its UNMAP bit
     * (byte 1 bit 3, SBC-4 §5.49); everything else other.
     */
    static CommandStats.OpClass opClass(ByteBuf cdb) {
        if (cdb.readableBytes() == 0) {
            return CommandStats.OpClass.OTHER;
        }
        int at = cdb.readerIndex();
        return switch (cdb.getUnsignedByte(at)) {
            case 0x08, 0x28, 0xA8, 0x88 -> CommandStats.OpClass.READ;
            case 0x0A, 0x2A, 0xAA, 0x8A, 0x2E, 0xAE, 0x8E, 0x9C -> CommandStats.OpClass.WRITE;
            case 0x35, 0x91 -> CommandStats.OpClass.FLUSH;
            case 0x42 -> CommandStats.OpClass.UNMAP;
            case 0x41, 0x93 -> cdb.readableBytes() > 1 && (cdb.getUnsignedByte(at + 1) & 0x08) != 0
                    ? CommandStats.OpClass.UNMAP : CommandStats.OpClass.OTHER;
            default -> CommandStats.OpClass.OTHER;
        };
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
        NavigableMap<Long, Mounted> units = inventory.units(); // one snapshot for the whole function
        List<LogicalUnit> affected = everyUnit ? units.values().stream().map(Mounted::unit).toList()
                : units.containsKey(lun) ? List.of(units.get(lun).unit()) : List.of();
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

    /**
     * The abort of PREEMPT AND ABORT (SPC-5 §5.14.11.2.6): every task of {@code nexuses} on {@code lun} is aborted —
     * those their transports still hold (waiting for data-out) and those in the logical unit's task set — in the same
     * two phases as {@link #taskManagement}; {@code done} runs, on any thread, once all of them are gone, with the
     * nexuses that lost a task. The PERSISTENT RESERVE OUT itself is not among them: it comes from the preempting
     * nexus, whose registration is never preempted.
     */
    void abortTasksOf(java.util.Set<ItNexus> nexuses, long lun, java.util.function.Consumer<Set<ItNexus>> done) {
        Mounted mounted = inventory.units().get(lun);
        Set<ItNexus> losers = ConcurrentHashMap.newKeySet();
        Map<ItNexus, NexusTasks> reached = new java.util.HashMap<>();
        for (ItNexus n : nexuses) {
            NexusTasks tasks = transports.get(n);
            if (tasks != null) {
                reached.put(n, tasks);
            }
        }
        TaskScope scope = new TaskScope(lun, TaskScope.ANY);
        Countdown transportsDone = new Countdown(reached.size() + 1, () -> {
            if (mounted == null) {
                done.accept(losers);
                return;
            }
            mounted.unit().abortTasks(t -> nexuses.contains(t.nexus()) && t.command().lun() == lun, stopped -> {
                losers.addAll(stopped);
                done.accept(losers);
            });
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
            case LOGICAL_UNIT_RESET -> affected.forEach(u -> u.reset(SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED));
            case TARGET_RESET -> affected.forEach(u -> u.reset(SenseReason.POWER_ON_RESET));
        }
    }

    /** The state part of LOGICAL UNIT RESET (no tasks aborted); see {@link #taskManagement}. */
    public void logicalUnitReset(ItNexus requester, long lun) {
        Mounted mounted = inventory.units().get(lun);
        if (mounted != null) {
            mounted.unit().reset(SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        }
    }

    /** The state part of a hard reset of every logical unit (no tasks aborted); see {@link #taskManagement}. */
    public void targetReset(ItNexus requester) {
        inventory.units().values().forEach(m -> m.unit().reset(SenseReason.POWER_ON_RESET));
    }

    @Override
    public void nexusLost(ItNexus nexus) {
        inventory.units().values().forEach(m -> m.unit().nexusLost(nexus));
    }

    /**
     * Adds a logical unit at {@code spec.lun()} and tells the initiators of the other logical units: REPORTED
     * LUNS DATA HAS CHANGED (SPC-4 §6.33; SAM-5 §5.14 — the inventory of this target changed). The new unit
     * itself starts with POWER ON for every nexus, as any new unit does.
     *
     * @throws IllegalArgumentException when the LUN is outside 0..16383, in use, or the spec names another target
     */
    public synchronized void attach(LogicalUnitSpec spec) {
        if (!spec.targetName().equals(targetName)) {
            throw new IllegalArgumentException("LUN " + spec.name() + " is for target " + spec.targetName()
                    + ", not " + targetName);
        }
        if (spec.lun() < 0 || spec.lun() > ScsiLun.MAX_FLAT_LUN) {
            throw new IllegalArgumentException("LUN " + spec.lun() + " of " + spec.name() + " is outside 0..16383");
        }
        TreeMap<Long, Mounted> map = new TreeMap<>(inventory.units());
        if (map.containsKey(spec.lun())) {
            throw new IllegalArgumentException("LUN " + spec.lun() + " of target " + targetName + " is in use");
        }
        reportedLunsDataChanged();   // on the units that were there: the new one has POWER ON pending anyway
        map.put(spec.lun(), new Mounted(new LogicalUnit(this, spec), spec));
        inventory = Inventory.of(map);
    }

    /**
     * Takes the logical unit at {@code lun} out of the inventory: new commands to it get LOGICAL UNIT NOT
     * SUPPORTED, commands already executing finish (the caller drains the device's {@link InFlight}), and the
     * remaining units report REPORTED LUNS DATA HAS CHANGED. False when there is no such LUN.
     */
    public synchronized boolean detach(long lun) {
        TreeMap<Long, Mounted> map = new TreeMap<>(inventory.units());
        if (map.remove(lun) == null) {
            return false;
        }
        inventory = Inventory.of(map);
        reportedLunsDataChanged();
        return true;
    }

    /**
     * Detaches {@code removed} and attaches {@code added} in one inventory swap: every command sees the inventory
     * before or after, never half of it, and the other units get one REPORTED LUNS DATA HAS CHANGED. A LUN may be in
     * both (a replaced unit: the new one gets POWER ON, as a new unit does).
     *
     * @throws IllegalArgumentException as {@link #attach}; nothing changes then
     */
    public synchronized void change(java.util.Collection<Long> removed, List<LogicalUnitSpec> added) {
        TreeMap<Long, Mounted> map = new TreeMap<>(inventory.units());
        removed.forEach(map::remove);
        for (LogicalUnitSpec spec : added) {
            if (!spec.targetName().equals(targetName) || spec.lun() < 0 || spec.lun() > ScsiLun.MAX_FLAT_LUN
                    || map.containsKey(spec.lun())) {
                throw new IllegalArgumentException("LUN " + spec.lun() + " of " + spec.name() + " cannot join target "
                        + targetName + " (other target, outside 0..16383 or in use)");
            }
            map.put(spec.lun(), new Mounted(new LogicalUnit(this, spec), spec));
        }
        java.util.Set<Long> stayed = new java.util.HashSet<>(inventory.units().keySet());
        stayed.retainAll(map.keySet());
        added.forEach(spec -> stayed.remove(spec.lun()));
        inventory = Inventory.of(map);
        for (Long lun : stayed) {
            map.get(lun).unit().unitAttentions().raiseForOthers(null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED);
        }
    }

    /** True when the target has no logical unit left. */
    public boolean isEmpty() {
        return inventory.units().isEmpty();
    }

    /**
     * The LUN inventory changed (SPC-4 §6.33): every nexus gets REPORTED LUNS DATA HAS CHANGED on
     * every logical unit, cleared by its next REPORT LUNS.
     */
    public void reportedLunsDataChanged() {
        inventory.units().values().forEach(m -> m.unit().unitAttentions()
                .raiseForOthers(null, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED));
    }

    /**
     * The knobs of {@code spec.lun()} changed, its device did not (issue 11): the unit stays — sessions, unit
     * attentions, reservations and tasks in flight with it — and rebuilds its limits and identity, telling every
     * nexus with INQUIRY DATA HAS CHANGED or MODE PARAMETERS CHANGED ({@link LogicalUnit#retune}).
     *
     * @return false when no such LUN is attached (the caller attaches it instead)
     */
    public synchronized boolean retune(LogicalUnitSpec spec) {
        Mounted mounted = inventory.units().get(spec.lun());
        if (mounted == null || mounted.spec().device() != spec.device()) {
            return false;
        }
        TreeMap<Long, Mounted> map = new TreeMap<>(inventory.units());
        map.put(spec.lun(), new Mounted(mounted.unit(), spec));
        inventory = Inventory.of(map);
        mounted.unit().retune(spec);
        return true;
    }

    /** The capacity of {@code lun} changed (SBC-4 §4.6): CAPACITY DATA HAS CHANGED for every nexus. */
    public void capacityDataChanged(long lun) {
        Mounted mounted = inventory.units().get(lun);
        if (mounted != null) {
            mounted.unit().unitAttentions().raiseForOthers(null, SenseReason.CAPACITY_DATA_HAS_CHANGED);
        }
    }

    /** The logical unit at {@code lun}, or null; for tests in this package. */
    LogicalUnit unit(long lun) {
        Mounted mounted = inventory.units().get(lun);
        return mounted == null ? null : mounted.unit();
    }

    /** REPORT LUNS clears REPORTED LUNS DATA HAS CHANGED on every logical unit for that nexus. */
    void reportedLunsSeen(ItNexus nexus) {
        inventory.units().values().forEach(m -> m.unit().unitAttentions()
                .clear(nexus, SenseReason.REPORTED_LUNS_DATA_HAS_CHANGED));
    }
}
