package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.CdbError;
import io.blocktarget.protocol.scsi.CompareAndWriteCdb;
import io.blocktarget.protocol.scsi.ExtendedCopyCdb;
import io.blocktarget.protocol.scsi.GetLbaStatusCdb;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.MediumWrites;
import io.blocktarget.protocol.scsi.ModeSelectCdb;
import io.blocktarget.protocol.scsi.ModeSenseCdb;
import io.blocktarget.protocol.scsi.PersistentReserveInCdb;
import io.blocktarget.protocol.scsi.PersistentReserveOutCdb;
import io.blocktarget.protocol.scsi.PreFetchCdb;
import io.blocktarget.protocol.scsi.ReadDefectDataCdb;
import io.blocktarget.protocol.scsi.ReceiveCopyResultsCdb;
import io.blocktarget.protocol.scsi.ReadCapacity10Cdb;
import io.blocktarget.protocol.scsi.ReadCapacity16Cdb;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.Release6Cdb;
import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.ReportSupportedOperationCodesCdb;
import io.blocktarget.protocol.scsi.ReportTargetPortGroupsCdb;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.Reserve6Cdb;
import io.blocktarget.protocol.scsi.SanitizeCdb;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.StartStopUnitCdb;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.TestUnitReadyCdb;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteAtomicCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.blocktarget.protocol.scsi.WriteSameCdb;

import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * One logical unit: its per-LU state (mode pages, unit attentions, reservations, the LBA range lock)
 * and the dispatcher. DESIGN §7, parse then execute: a pending unit attention is reported first (SAM-5
 * §5.14, as LIO's target_cmd_parse_cdb does), then the task attribute and the CDB are checked, then
 * reservation conflicts and write protection, and only then does a handler of its family do I/O.
 */
final class LogicalUnit {
    private static final System.Logger LOG = System.getLogger("blocktarget.scsi");

    private final ScsiTarget target;
    private final LogicalUnitSpec spec;
    /** {@code spec.device().readOnly()}, fixed for a device; asked on every command, it walked the decorators. */
    private final boolean deviceReadOnly;
    // Knob-derived (UnitLimits and the handlers built on it): replaced together by retune(), read per command.
    private volatile LogicalUnitSpec current;
    private volatile UnitLimits limits;
    private final UnitAttentions unitAttentions = new UnitAttentions();
    private final ModePages modePages;
    private final Reservations reservations;
    private volatile InquiryHandler inquiry;
    private volatile SbcReadWrite readWrite;
    private volatile SbcProvisioning provisioning;
    private volatile CompareAndWrite compareAndWrite;
    private final PersistentReserveCommands persistentReserve;
    private final SbcSanitize sanitize;
    /** The tray of a {@code removable: true} unit; consulted only while the current knobs say removable. */
    private final RemovableMedium medium = new RemovableMedium();
    private final ExtendedCopy extendedCopy;
    private final SbcWriteAtomic writeAtomic;
    private final RangeLock rangeLock;
    /** ZBC-2 commands when the device is zoned (host managed); empty for every other unit. */
    private final Optional<ZbcCommands> zbc;
    private final TaskSet taskSet = new TaskSet();
    private final ScsiFaults faults;
    private volatile byte[] naa;
    /** The {@link io.blocktarget.block.lun.PathStates#version()} the nexuses were told of (guarded by unitAttentions). */
    private volatile long pathsSeen;
    /** Permanent streams of a unit with data placement (issue 32); null for every other unit. */
    private final ScsiStreams streams;

    LogicalUnit(ScsiTarget target, LogicalUnitSpec spec) {
        this.target = target;
        this.spec = spec;
        this.deviceReadOnly = spec.device().readOnly();
        this.current = spec;
        this.zbc = spec.device().zones().map(ZbcCommands::new);
        this.streams = ScsiStreams.of(spec.state(), spec.device());
        this.limits = limitsOf(spec, zbc.isPresent());
        this.modePages = new ModePages(spec.device(), unitAttentions, limits, streams);
        this.reservations = new Reservations(spec.state().reservations(), unitAttentions);
        this.rangeLock = new RangeLock(spec.state().rangeLocks());
        this.writeAtomic = new SbcWriteAtomic(spec.device(), modePages, spec.state());
        this.persistentReserve = new PersistentReserveCommands(reservations, (nexuses, done) ->
                target.abortTasksOf(nexuses, spec.lun(), losers -> {
                    tasksCleared(null, losers);   // SAM-5 §5.6, TAS = 0: COMMANDS CLEARED BY ANOTHER INITIATOR
                    done.run();
                }));
        this.sanitize = new SbcSanitize(spec.device(), rangeLock, spec.state().clock());
        this.extendedCopy = new ExtendedCopy(target);
        this.faults = new ScsiFaults(spec.state().faults(), spec.device());
        this.pathsSeen = spec.state().paths().version();
        build(spec);
    }

    /** The knob-derived handlers of {@code spec}, from one {@link UnitLimits}. */
    private void build(LogicalUnitSpec spec) {
        UnitLimits l = limitsOf(spec, zbc.isPresent());
        this.inquiry = new InquiryHandler(target.targetName(), spec.name(), l, spec.features().knobs(),
                SbcWriteAtomic.blockLimits(spec.state()), zbc, streams);
        this.readWrite = new SbcReadWrite(spec.device(), l, modePages, rangeLock, spec.state());
        this.provisioning = new SbcProvisioning(spec.device(), l, rangeLock, spec.state());
        this.compareAndWrite = new CompareAndWrite(spec.device(), l, rangeLock, spec.state());
        this.naa = inquiry.naaBytes();
        this.limits = l;
        this.current = spec;
    }

    /** Geometry and knobs, then zoned (ZBC in, provisioning out), then WRITE ATOMIC(16) where the device has atomics. */
    private static UnitLimits limitsOf(LogicalUnitSpec spec, boolean zoned) {
        UnitLimits derived = UnitLimits.of(spec.device().geometry(), spec.features().knobs(), zoned);
        derived = spec.state().placement() != null ? derived.withStreams() : derived;
        return spec.state().atomicWrites().isPresent() ? derived.withAtomicWrites() : derived;
    }

    /**
     * New knobs for the same device (issue 11: a knob-only change keeps sessions, data and reservations): the limits
     * and identity are rebuilt, and every I_T nexus learns it from a unit attention — INQUIRY DATA HAS CHANGED
     * (3Fh/03h) when what INQUIRY returns changed (VPD pages, identity, supported commands), MODE PARAMETERS CHANGED
     * (2Ah/01h) when only the mode pages did (SPC-5 §5.14, §6.9.1). A command already dispatched finishes with
     * the handlers it started with.
     */
    void retune(LogicalUnitSpec spec) {
        UnitLimits before = limits;
        io.blocktarget.config.DeviceKnobs oldKnobs = current.features().knobs();
        build(spec);
        boolean modes = modePages.retune(limits);
        boolean inquiryChanged = !oldKnobs.identity().equals(spec.features().knobs().identity())
                || !withoutModeFields(before).equals(withoutModeFields(limits));
        if (inquiryChanged) {
            unitAttentions.raiseForOthers(null, SenseReason.INQUIRY_DATA_HAS_CHANGED);
        }
        if (modes) {
            unitAttentions.raiseForOthers(null, SenseReason.MODE_PARAMETERS_CHANGED);
        }
    }

    /** The limits without what only the mode pages show (DPOFUA, WCE). */
    private static UnitLimits withoutModeFields(UnitLimits l) {
        return new UnitLimits(l.maximumTransferLength(), l.optimalTransferLength(), l.transferGranularity(),
                l.maximumCompareAndWrite(), l.maximumWriteSameLength(), l.maximumUnmapLbaCount(),
                l.maximumUnmapDescriptors(), l.maximumPrefetchLength(), l.lbpws(), l.lbpws10(), l.supported(),
                l.optimalUnmapGranularity(), l.unmapGranularityAlignment(), l.lbpu(), true, l.thirdPartyCopy(),
                l.mediumRotationRate(), Optional.empty());
    }

    /** The spec this unit serves now (its knobs change with {@link #retune}). */
    LogicalUnitSpec spec() {
        return current;
    }

    /** For the copy manager of any logical unit of this target (EXTENDED COPY CSCDs). */
    io.blocktarget.block.BlockDevice device() {
        return spec.device();
    }

    RangeLock rangeLock() {
        return rangeLock;
    }

    byte[] naaDesignator() {
        return naa.clone();
    }

    /**
     * What SANITIZE makes {@code cdb} (a segment's read or write) meet here (SBC-4 §4.11): the copy
     * manager of another unit must not read or write a medium that is being or failed to be sanitized.
     */
    Optional<SenseData> sanitizeRefusal(Cdb cdb) {
        return sanitize.refusal(cdb);
    }

    /** Whether {@code cdb} (a segment's read or write) from {@code nexus} meets a reservation here. */
    boolean copyConflicts(ItNexus nexus, Cdb cdb) {
        return reservations.conflicts(nexus, cdb);
    }

    UnitAttentions unitAttentions() {
        return unitAttentions;
    }

    /** LBA ranges currently locked by writes in flight (tests check that every lease came back). */
    long rangeLockHeld() {
        return rangeLock.heldCount();
    }

    /**
     * Runs {@code command} as a task of this unit: counted in the unit's device while it executes (the LUN step);
     * false, with nothing done, when the device is draining (the caller answers as for a missing LUN).
     */
    boolean execute(ScsiCommand command, ScsiCompletion done) {
        Task task = new Task(command, done, modePages.descriptorSense(), taskSet);
        if (!task.enterLun(spec.state())) {
            return false;
        }
        taskSet.enter(task);
        try {
            dispatch(task);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "LUN " + spec.name() + ": command failed", e);
            task.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
        return true;
    }

    private void dispatch(Task task) {
        ItNexus nexus = task.nexus();
        pathsChanged();   // before the nexus is admitted: a nexus new to the unit meets POWER ON only
        int opcode = task.command().cdb().isReadable()
                ? task.command().cdb().getUnsignedByte(task.command().cdb().readerIndex()) : -1;
        // SAM-5 §5.14: INQUIRY, REPORT LUNS and REQUEST SENSE neither report nor clear a unit attention
        // (REQUEST SENSE returns it as its parameter data instead).
        SenseReason attention = unitAttentions.admit(nexus, opcode != 0x12 && opcode != 0xA0 && opcode != 0x03);
        if (attention != null) {
            task.fail(attention);
            return;
        }
        if (task.command().attribute() == TaskAttribute.ACA) {
            // SAM-5 §8.9.3: we report NORMACA = 0, so there is never an ACA condition to serve; LIO
            // (target_cmd_init_cdb) answers an ACA task with INVALID FIELD IN CDB, and so do we.
            task.fail(SenseReason.INVALID_FIELD_IN_CDB);
            return;
        }
        // SPC-5 §5.16.2.4: the asymmetric access state of the nexus's port (its portal) refuses most commands unless
        // active, before the CDB's fields are looked at (as LIO's target_alua_state_check)
        SenseReason pathRefusal = Alua.refusal(spec.state().paths().state(nexus.relativeTargetPort()), opcode,
                serviceAction(task.command().cdb()));
        if (pathRefusal != null) {
            task.fail(pathRefusal);
            return;
        }
        // a write-protected unit (read-only LUN, or SWP in the Control mode page) refuses every command that writes
        // the medium with DATA PROTECT, WRITE PROTECTED — implemented here or not, before its fields are looked at
        if (writeProtected() && MediumWrites.writesMedium(task.command().cdb())) {
            task.fail(SenseReason.WRITE_PROTECTED);
            return;
        }
        // advertise == enforce: a command RSOC does not list is refused as unsupported (UnitLimits)
        Optional<CdbError> unsupported = limits.refusal(opcode, serviceAction(task.command().cdb()));
        if (unsupported.isPresent()) {
            task.fail(unsupported.get());
            return;
        }
        Cdb cdb = Cdb.parse(task.command().cdb());
        if (cdb instanceof CdbError error) {
            task.fail(error);
            return;
        }
        // SBC-4 §5.25: the medium of a removable unit is out: NOT READY, MEDIUM NOT PRESENT
        SenseReason noMedium = removable() ? medium.refusal(cdb) : null;
        if (noMedium != null) {
            task.fail(noMedium);
            return;
        }
        // SBC-4 §4.11: NOT READY / SANITIZE IN PROGRESS while one runs, MEDIUM ERROR after one failed
        Optional<SenseData> sanitizing = sanitize.refusal(cdb);
        if (sanitizing.isPresent()) {
            task.fail(sanitizing.get());
            return;
        }
        if (reservations.conflicts(nexus, cdb)) {
            task.fail(SenseReason.RESERVATION_CONFLICT);
            return;
        }
        if (faults.intercept(this, task, cdb, opcode)) {
            return;
        }
        execute(task, cdb);
    }

    /**
     * Establishes ASYMMETRIC ACCESS STATE CHANGED (2Ah/06h) when the LUN's path states changed since the unit last
     * looked (SPC-5 §5.16.2.6): for every nexus the unit knows, except the one whose SET TARGET PORT GROUPS made the
     * change when it is the only change since; one volatile read per command while nothing changes.
     */
    private void pathsChanged() {
        io.blocktarget.block.lun.PathStates.Stamp now = spec.state().paths().stamp();
        if (now.version() == pathsSeen) {
            return;
        }
        synchronized (unitAttentions) {
            long seen = pathsSeen;
            if (now.version() <= seen) {
                return;
            }
            ItNexus except = now.version() == seen + 1 && now.source() instanceof ItNexus n ? n : null;
            unitAttentions.raiseForOthers(except, SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
            pathsSeen = now.version();
        }
    }

    /** A command a fault rule delayed: it executes now, on the timer's thread (the connection's event loop). */
    void executeLater(Task task, Cdb cdb) {
        try {
            execute(task, cdb);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "LUN " + spec.name() + ": command failed", e);
            task.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    private void execute(Task task, Cdb cdb) {
        BlockGeometry geometry = spec.device().geometry();
        switch (cdb) {
            case TestUnitReadyCdb _ -> task.good();
            case InquiryCdb c -> inquiry.execute(task, c);
            case ReportLunsCdb c -> SpcHandlers.reportLuns(task, target, c);
            case RequestSenseCdb c -> {
                Optional<SenseData> progress = sanitize.pendingSense();
                if (progress.isPresent()) {
                    SpcHandlers.returnSense(task, c, progress.get()); // SBC-4 §4.11.1: progress indication
                } else if (removable() && !medium.present() && unitAttentions.isEmpty(task.nexus())) {
                    SpcHandlers.returnSense(task, c, SenseData.of(SenseReason.MEDIUM_NOT_PRESENT));
                } else {
                    SpcHandlers.requestSense(task, c, unitAttentions);
                }
            }
            // nothing spins: accepted (SBC-4 §5.25); a removable unit's medium moves with LOEJ
            case StartStopUnitCdb c -> {
                if (removable()) {
                    medium.startStop(task, c, unitAttentions);
                } else {
                    task.good();
                }
            }
            case io.blocktarget.protocol.scsi.PreventAllowMediumRemovalCdb c -> medium.preventAllow(task, c);
            case ReportSupportedOperationCodesCdb c -> SpcHandlers.reportSupportedOperationCodes(task, c, limits);
            case ReadCapacity10Cdb _ -> SbcCapacity.readCapacity10(task, geometry);
            case ReadCapacity16Cdb c -> SbcCapacity.readCapacity16(task, c, geometry, zbc.isPresent());
            case ModeSenseCdb c -> modePages.modeSense(task, c);
            case ModeSelectCdb c -> modePages.modeSelect(task, c);
            case ReadCdb c -> readWrite.read(task, c);
            case WriteCdb c -> readWrite.write(task, c);
            case io.blocktarget.protocol.scsi.OrWriteCdb c -> readWrite.orWrite(task, c);
            case VerifyCdb c -> readWrite.verify(task, c);
            case WriteAndVerifyCdb c -> readWrite.writeAndVerify(task, c);
            case SynchronizeCacheCdb c -> readWrite.synchronizeCache(task, c);
            case CompareAndWriteCdb c -> compareAndWrite.execute(task, c);
            case UnmapCdb c -> provisioning.unmap(task, c);
            case WriteSameCdb c -> provisioning.writeSame(task, c);
            case GetLbaStatusCdb c -> provisioning.getLbaStatus(task, c);
            // listed (UnitLimits.withStreams) only where streams exist: the refusal check ran before the parse
            case io.blocktarget.protocol.scsi.GetStreamStatusCdb c -> streams.getStreamStatus(task, c);
            case PersistentReserveInCdb c -> persistentReserve.in(task, c);
            case PersistentReserveOutCdb c -> persistentReserve.out(task, c);
            case Reserve6Cdb _ -> reservations.reserve6(task);
            case Release6Cdb _ -> reservations.release6(task);
            case PreFetchCdb c -> readWrite.preFetch(task, c);
            case SanitizeCdb c -> sanitize.execute(task, c,
                    current.features().knobs().sanitizeDurationNanos().orElse(0L));
            case ExtendedCopyCdb c -> extendedCopy.execute(task, c);
            case ReceiveCopyResultsCdb c -> extendedCopy.receiveCopyResults(task, c);
            case ReadDefectDataCdb c -> SbcCapacity.readDefectData(task, c);
            case ReportTargetPortGroupsCdb c -> SpcHandlers.reportTargetPortGroups(task, c, spec.state().paths());
            case io.blocktarget.protocol.scsi.SetTargetPortGroupsCdb c ->
                    Alua.setTargetPortGroups(task, c, spec.state().paths());
            case WriteAtomicCdb c -> writeAtomic.execute(task, c);
            // UnitLimits lets these through on zoned units only
            case io.blocktarget.protocol.scsi.ReportZonesCdb c -> zbc.orElseThrow().reportZones(task, c);
            case io.blocktarget.protocol.scsi.ZbcOutCdb c -> zbc.orElseThrow().zbcOut(task, c);
            case CdbError e -> task.fail(e);
        }
    }

    /** SERVICE ACTION (byte 1, bits 4-0) of a CDB whose operation code has them; -1 if too short. */
    private static int serviceAction(io.netty.buffer.ByteBuf cdb) {
        return cdb.readableBytes() < 2 ? -1 : cdb.getUnsignedByte(cdb.readerIndex() + 1) & 0x1F;
    }

    /** {@code removable: true} now (a knob: it may change at runtime, RemovableMedium is then consulted or not). */
    private boolean removable() {
        return current.features().knobs().removable().orElse(false);
    }

    /**
     * Whether the medium refuses writing: the device is read-only ({@code read-only:}) or an initiator set SWP in the
     * Control mode page (SPC-4 §7.5.8, software write protect; MODE SENSE shows either as WP = 1).
     */
    boolean writeProtected() {
        return deviceReadOnly || modePages.softwareWriteProtect();
    }

    /** Tasks in execution (tests check that every one left). */
    int tasksInExecution() {
        return taskSet.size();
    }

    /**
     * Aborts this logical unit's tasks that {@code which} selects; {@code stopped} runs once every one of them has
     * completed in the backend, with the nexuses they came from (SAM-5 §7).
     */
    void abortTasks(java.util.function.Predicate<Task> which, java.util.function.Consumer<java.util.Set<ItNexus>> stopped) {
        faults.releaseTasks(which); // held by a no-response rule: they end now, so the task set can empty
        sanitize.releaseTasks(which); // a SANITIZE waiting for its operation ends now; the operation goes on
        taskSet.abort(which, stopped);
    }

    /**
     * CLEAR TASK SET (SAM-5 §7.4) with TAS = 0: every other I_T nexus that lost a task learns it from a unit
     * attention, COMMANDS CLEARED BY ANOTHER INITIATOR.
     */
    void tasksCleared(ItNexus requester, java.util.Set<ItNexus> losers) {
        for (ItNexus n : losers) {
            if (!n.equals(requester)) {
                unitAttentions.raise(n, SenseReason.COMMANDS_CLEARED_BY_ANOTHER_INITIATOR);
            }
        }
    }

    /**
     * A logical unit reset (SAM-5 §6.3.3; by LOGICAL UNIT RESET, §7.7, or a hard reset, §6.3.2): RESERVE(6)
     * reservations are released (persistent ones survive), mode pages return to their defaults, and every I_T nexus
     * — the requester's too: its mode pages changed as well — gets the unit attention {@code reason} once: BUS DEVICE
     * RESET FUNCTION OCCURRED (29h/03h) for the task management function, POWER ON, RESET, OR BUS DEVICE RESET
     * OCCURRED (29h/00h) for a target reset. A SANITIZE in progress goes on (SBC-4 §4.11).
     */
    void reset(SenseReason reason) {
        reservations.reset();
        modePages.reset();
        medium.reset();
        unitAttentions.raiseForAll(reason);
    }

    /**
     * I_T nexus loss (SAM-5 §6.3.4): its RESERVE(6) is released; registrations persist (SPC-4 §5.13.1); when it comes
     * back it meets I_T NEXUS LOSS OCCURRED.
     */
    void nexusLost(ItNexus nexus) {
        faults.releaseNexus(nexus);
        sanitize.releaseTasks(t -> t.nexus().equals(nexus)); // SAM-5 §6.3.4: its tasks end; the operation does not
        reservations.nexusLost(nexus);
        medium.nexusLost(nexus);
        unitAttentions.nexusLost(nexus);
    }
}
