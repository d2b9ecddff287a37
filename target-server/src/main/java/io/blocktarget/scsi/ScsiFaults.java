package io.blocktarget.scsi;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.FaultHit;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTimer;
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
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.blocktarget.protocol.scsi.WriteSameCdb;
import io.blocktarget.protocol.scsi.ZbcOutCdb;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
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
            case FaultAction.Delay d -> FaultTimer.schedule(() -> unit.executeLater(task, cdb),
                    d.nanos() + (d.jitterNanos() == 0 ? 0 : ThreadLocalRandom.current().nextLong(d.jitterNanos() + 1)));
            case FaultAction.Throttle t -> {
                long wait = hit.rule().reserve(t, command.blocks() * device.geometry().logicalBlockSize(),
                        System.nanoTime());
                if (wait == 0) {
                    return false; // within the limit: on its way at once
                }
                FaultTimer.schedule(() -> unit.executeLater(task, cdb), wait);
            }
            // SAM-5 §5.6: a task ended by task management gets no response; the transport discards this one
            case FaultAction.NoResponse _ -> faults.holds().hold(task.nexus(), task,
                    () -> task.fail(SenseReason.COMMAND_ABORTED_NO_ADDITIONAL_SENSE));
            // device-level actions are applied by the device decorator, never here
            case FaultAction.CorruptRead _, FaultAction.TornWrite _ -> {
                return false;
            }
        }
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
        return new FaultCommand(FaultCommand.Protocol.SCSI, kind, opcode, lba, blocks,
                i < 0 ? port : port.substring(0, i), -1);
    }
}
