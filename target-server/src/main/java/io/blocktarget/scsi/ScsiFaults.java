package io.blocktarget.scsi;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.FaultHit;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.CompareAndWriteCdb;
import io.blocktarget.protocol.scsi.ExtendedCopyCdb;
import io.blocktarget.protocol.scsi.PreFetchCdb;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ReportZonesCdb;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseKey;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.blocktarget.protocol.scsi.WriteSameCdb;
import io.blocktarget.protocol.scsi.ZbcOutCdb;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * The SCSI pre-dispatch hook of the LUN's fault rules (DESIGN §10): after a command passed the device server's own
 * checks (unit attention, CDB, reservation, write protection), a rule may fail it with a status or sense, delay it,
 * or hold it without a response until task management or nexus loss releases it. No rule: one volatile read.
 */
final class ScsiFaults {
    private final LunFaults faults;
    private final io.blocktarget.block.BlockDevice device;

    ScsiFaults(LunFaults faults, io.blocktarget.block.BlockDevice device) {
        this.faults = faults;
        this.device = device;
    }

    /** Whether a rule took {@code task} (it has completed, or will execute or complete later). */
    boolean intercept(LogicalUnit unit, Task task, Cdb cdb, int opcode) {
        if (!faults.commandRules()) {
            return false;
        }
        FaultCommand command = command(task, cdb, opcode);
        FaultHit hit = faults.command(command);
        if (hit == null) {
            return false;
        }
        switch (hit.action()) {
            case FaultAction.Fail f -> fail(task, f.status(), command, hit.firstLba());
            case FaultAction.Delay d -> faults.clock().schedule(hit.rule().delayNanos(d),
                    () -> unit.executeLater(task, cdb));
            case FaultAction.Throttle t -> {
                long wait = hit.rule().reserve(t, command.blocks() * device.geometry().logicalBlockSize(),
                        faults.clock().nanoTime());
                if (wait == 0) {
                    return false; // within the limit: on its way at once
                }
                faults.clock().schedule(wait, () -> unit.executeLater(task, cdb));
            }
            // SAM-5 §5.6: a task ended by task management gets no response; the transport discards this one
            case FaultAction.NoResponse _ -> faults.holds().hold(task.nexus(), task,
                    () -> task.fail(SenseReason.COMMAND_ABORTED_NO_ADDITIONAL_SENSE));
            case FaultAction.PartialTransfer p -> {
                return partial(unit, task, cdb, p, hit);
            }
            case FaultAction.DropConnection drop -> {
                // no response: held like no-response, and the connection's end (I_T nexus loss) releases it
                var held = faults.holds().hold(task.nexus(), task,
                        () -> task.fail(SenseReason.COMMAND_ABORTED_NO_ADDITIONAL_SENSE));
                if (!task.command().connection().applyFault(drop, hit.rule()) && faults.holds().discard(held)) {
                    hit.rule().countNotApplicable();
                    return false; // no connection to drop: the command goes on
                }
            }
            case FaultAction.ConnectionFault fault -> {
                // stall, digest, Async Message: the connection changes, the command itself goes on
                if (!task.command().connection().applyFault(fault, hit.rule())) {
                    hit.rule().countNotApplicable();
                }
                return false;
            }
            // device-level actions are applied by the device decorator, keep-alive stalls by NVMe; never here
            case FaultAction.CorruptRead _, FaultAction.TornWrite _, FaultAction.KeepAliveStall _ -> {
                return false;
            }
        }
        return true;
    }

    /**
     * A READ or WRITE that transfers only its first blocks: executed as the same CDB with the shorter TRANSFER
     * LENGTH, so its response's transfer length is what moved and the transport reports the rest as residual
     * underflow (RFC 7143 §11.4.5.1: U bit, Residual Count = EDTL − bytes transferred; SAM-5 §5.4.3). With
     * check-condition the status becomes CHECK CONDITION, MEDIUM ERROR (UNRECOVERED READ ERROR / WRITE ERROR) with
     * INFORMATION = the first LBA not transferred (SPC-5 §4.4.2.1), the data transferred still going before it.
     */
    private boolean partial(LogicalUnit unit, Task task, Cdb cdb, FaultAction.PartialTransfer p, FaultHit hit) {
        Cdb shorter;
        long firstNotTransferred;
        SenseReason reason;
        switch (cdb) {
            case ReadCdb c when c.transferLength() > 0 -> {
                long n = p.blocksOf(c.transferLength());
                shorter = new ReadCdb(c.opcode(), c.lba(), n, c.dpo(), c.fua());
                firstNotTransferred = c.lba() + n;
                reason = SenseReason.UNRECOVERED_READ_ERROR;
            }
            case WriteCdb c when c.transferLength() > 0 -> {
                long n = p.blocksOf(c.transferLength());
                shorter = new WriteCdb(c.opcode(), c.lba(), n, c.dpo(), c.fua());
                firstNotTransferred = c.lba() + n;
                reason = SenseReason.WRITE_ERROR;
            }
            default -> {
                hit.rule().countNotApplicable(); // nothing to cut short: the command goes on
                return false;
            }
        }
        if (p.checkCondition()) {
            boolean descriptor = task.descriptorSense();
            task.interceptResponse(r -> r.status() != ScsiStatus.GOOD ? r : new ScsiResponse(
                    ScsiStatus.CHECK_CONDITION, r.dataIn(),
                    Task.encode(SenseData.of(reason).withInformation(firstNotTransferred), descriptor),
                    r.transferLength()));
        }
        unit.executeLater(task, shorter);
        return true;
    }

    /** Releases the held tasks {@code which} selects (task management found them). */
    void releaseTasks(Predicate<Task> which) {
        faults.holds().release(h -> h.key() instanceof Task t && which.test(t));
    }

    /** Releases every task held for {@code nexus} (I_T nexus loss: its connection is gone). */
    void releaseNexus(ItNexus nexus) {
        faults.holds().release(h -> nexus.equals(h.owner()));
    }

    private static void fail(Task task, FaultStatus status, FaultCommand command, long firstLba) {
        OptionalLong information = command.lba() >= 0 ? OptionalLong.of(firstLba) : OptionalLong.empty();
        if (status.explicitSense()) {
            // SPC-5 §4.4.2.1: INFORMATION = the first LBA in error, for a command that addresses blocks
            task.fail(new SenseData(senseKey(status.senseKey()), status.asc(), status.ascq(), information,
                    Optional.empty()));
            return;
        }
        SenseReason reason = switch (status.condition()) {
            case MEDIUM_ERROR, EXPLICIT -> reads(command.kind()) ? SenseReason.UNRECOVERED_READ_ERROR : SenseReason.WRITE_ERROR;
            case NOT_READY -> SenseReason.LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE;
            case BUSY -> SenseReason.BUSY_STATUS;
            case TASK_SET_FULL -> SenseReason.TASK_SET_FULL_STATUS;
            case ABORTED -> SenseReason.COMMAND_ABORTED_NO_ADDITIONAL_SENSE;
        };
        if (reason.status() != io.blocktarget.protocol.scsi.ScsiStatus.CHECK_CONDITION) {
            task.fail(reason); // BUSY, TASK SET FULL: a status without sense data (SAM-5 §5.3.1)
            return;
        }
        SenseData sense = SenseData.of(reason);
        task.fail(information.isPresent() && status.condition() == FaultStatus.Condition.MEDIUM_ERROR
                || information.isPresent() && status.condition() == FaultStatus.Condition.EXPLICIT
                ? sense.withInformation(information.getAsLong()) : sense);
    }

    private static boolean reads(IoKind kind) {
        return kind == IoKind.READ || kind == IoKind.VERIFY || kind == IoKind.COMPARE || kind == IoKind.OTHER;
    }

    private static SenseKey senseKey(int code) {
        for (SenseKey k : SenseKey.values()) {
            if (k.code() == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("sense key " + code); // validated by the configuration
    }

    private static FaultCommand command(Task task, Cdb cdb, int opcode) {
        IoKind kind;
        long lba = -1;
        long blocks = 0;
        switch (cdb) {
            case ReadCdb c -> {
                kind = IoKind.READ;
                lba = c.lba();
                blocks = c.transferLength();
            }
            case WriteCdb c -> {
                kind = IoKind.WRITE;
                lba = c.lba();
                blocks = c.transferLength();
            }
            case io.blocktarget.protocol.scsi.OrWriteCdb c -> {
                kind = IoKind.WRITE;
                lba = c.lba();
                blocks = c.transferLength();
            }
            case WriteAndVerifyCdb c -> {
                kind = IoKind.WRITE;
                lba = c.lba();
                blocks = c.transferLength();
            }
            case VerifyCdb c -> {
                kind = IoKind.VERIFY;
                lba = c.lba();
                blocks = c.verificationLength();
            }
            case CompareAndWriteCdb c -> {
                kind = IoKind.COMPARE;
                lba = c.lba();
                blocks = c.numberOfBlocks();
            }
            case WriteSameCdb c -> {
                kind = c.unmap() ? IoKind.UNMAP : IoKind.WRITE_ZEROES;
                lba = c.lba();
                blocks = c.numberOfBlocks();
            }
            case PreFetchCdb c -> {
                kind = IoKind.OTHER;
                lba = c.lba();
                blocks = c.prefetchLength();
            }
            case SynchronizeCacheCdb _ -> kind = IoKind.FLUSH;
            case UnmapCdb _ -> kind = IoKind.UNMAP;
            case ExtendedCopyCdb _ -> kind = IoKind.COPY;
            case ReportZonesCdb c -> {
                kind = IoKind.ZONE_MANAGEMENT;
                lba = c.zoneStartLba();
            }
            case ZbcOutCdb c -> {
                kind = IoKind.ZONE_MANAGEMENT;
                lba = c.all() ? -1 : c.zoneId();
            }
            default -> kind = IoKind.OTHER;
        }
        String port = task.nexus().initiatorPortName();
        int i = port.indexOf(",i,");
        // the relative target port is the portal's id (TPGT): a rule with portal: fails this path only
        return new FaultCommand(FaultCommand.Protocol.SCSI, kind, opcode, lba, blocks,
                i < 0 ? port : port.substring(0, i), -1, Math.max(0, task.nexus().relativeTargetPort()),
                query(cdb));
    }

    /** The data placement query a CDB is (issue 32, as sd asks them), or null. */
    static io.blocktarget.block.fault.FaultQuery query(Cdb cdb) {
        return switch (cdb) {
            case io.blocktarget.protocol.scsi.InquiryCdb c when c.evpd()
                    && c.pageCode() == io.blocktarget.protocol.scsi.BlockLimitsExtensionVpd.PAGE_CODE ->
                    io.blocktarget.block.fault.FaultQuery.BLOCK_LIMITS_EXTENSION;
            case io.blocktarget.protocol.scsi.ModeSenseCdb c
                    when c.pageCode() == io.blocktarget.protocol.scsi.IoAdviceHintsGroupingModePage.PAGE_CODE
                    && c.subpageCode() == io.blocktarget.protocol.scsi.IoAdviceHintsGroupingModePage.SUBPAGE_CODE ->
                    io.blocktarget.block.fault.FaultQuery.IO_ADVICE_HINTS;
            case io.blocktarget.protocol.scsi.GetStreamStatusCdb _ ->
                    io.blocktarget.block.fault.FaultQuery.STREAM_STATUS;
            default -> null;
        };
    }
}
