package io.blocktarget.nvme;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.FaultHit;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTimer;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The NVMe pre-dispatch hook of the namespace's fault rules (DESIGN §10), one per controller: an I/O command may be
 * failed with a status (its Error Information log entry carries the first LBA in the rule's range), delayed, or held
 * without a completion until an Abort names it, the controller is reset or its queue's connection closes. No rule:
 * one volatile read.
 */
final class NvmeFaults {
    /** Who a held command belongs to: released together when the queue goes or the controller resets. */
    private record Owner(Controller controller, int qid) {
    }

    /** A rule's failure LBA per (QID, CID) until the Error Information log takes it; empty nearly always. */
    private final ConcurrentHashMap<Long, Long> errorLbas = new ConcurrentHashMap<>();
    private final Controller controller;

    NvmeFaults(Controller controller) {
        this.controller = controller;
    }

    /** Runs the rest of the dispatch, later. */
    interface Dispatch {
        void run(Sqe sqe, ByteBuf dataOut, NvmeCompletion done);
    }

    /** Whether a rule took the command (it has completed, or will execute or complete later). */
    boolean intercept(Namespace ns, int qid, Sqe sqe, ByteBuf dataOut, NvmeCompletion done, Dispatch dispatch) {
        LunFaults faults = ns.state().faults();
        if (!faults.commandRules()) {
            return false;
        }
        FaultCommand command = command(qid, sqe);
        FaultHit hit = faults.command(command);
        if (hit == null) {
            return false;
        }
        switch (hit.action()) {
            case FaultAction.Fail f -> {
                NvmeStatus status = status(f.status(), command.kind());
                if (command.lba() >= 0 && ErrorLog.records(status)) {
                    errorLbas.put(key(qid, sqe.cid()), hit.firstLba()); // taken by this completion's log entry
                }
                done.complete(status, 0, 0, null);
            }
            case FaultAction.Delay d -> FaultTimer.schedule(() -> {
                try {
                    dispatch.run(sqe, dataOut, done);
                } catch (RuntimeException e) {
                    done.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
                }
            }, d.nanos() + (d.jitterNanos() == 0 ? 0 : ThreadLocalRandom.current().nextLong(d.jitterNanos() + 1)));
            case FaultAction.Throttle t -> {
                long wait = hit.rule().reserve(t, command.blocks() * ns.geometry().logicalBlockSize(),
                        System.nanoTime());
                if (wait == 0) {
                    return false; // within the limit: on its way at once
                }
                FaultTimer.schedule(() -> {
                    try {
                        dispatch.run(sqe, dataOut, done);
                    } catch (RuntimeException e) {
                        done.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
                    }
                }, wait);
            }
            // Base §5.1: a command the host aborts completes with Command Abort Requested
            case FaultAction.NoResponse _ -> faults.holds().hold(new Owner(controller, qid), sqe.cid(),
                    () -> done.complete(NvmeStatus.ABORTED_BY_REQUEST, 0, 0, null));
            case FaultAction.CorruptRead _, FaultAction.TornWrite _ -> {
                return false; // the device decorator applies them
            }
        }
        return true;
    }

    /** The LBA a rule failed command (QID, CID) at, for its Error Information log entry; -1 when none. */
    long takeErrorLba(int qid, int cid) {
        if (errorLbas.isEmpty()) {
            return -1;
        }
        Long lba = errorLbas.remove(key(qid, cid));
        return lba == null ? -1 : lba;
    }

    /** NVMe Abort: releases the held command (SQID, CID) of this controller; whether there was one. */
    boolean abort(int sqid, int cid) {
        Owner owner = new Owner(controller, sqid);
        int released = 0;
        for (Namespace ns : controller.subsystem().namespaces().values()) {
            released += ns.state().faults().holds().release(h -> owner.equals(h.owner()) && h.key().equals(cid));
        }
        return released > 0;
    }

    /** The queue's connection is gone (qid &gt;= 0) or the controller reset (qid = -1): its held commands end. */
    void release(int qid) {
        for (Namespace ns : controller.subsystem().namespaces().values()) {
            ns.state().faults().holds().release(h -> h.owner() instanceof Owner o && o.controller() == controller
                    && (qid < 0 || o.qid() == qid));
        }
    }

    private static long key(int qid, int cid) {
        return (long) qid << 16 | (cid & 0xFFFF);
    }

    private static NvmeStatus status(FaultStatus status, IoKind kind) {
        if (status.explicitNvme()) {
            NvmeStatus explicit = NvmeStatus.of(status.sct(), status.sc());
            if (explicit != null) {
                return explicit;
            }
        }
        return switch (status.condition()) {
            case MEDIUM_ERROR, EXPLICIT -> kind == IoKind.READ || kind == IoKind.VERIFY || kind == IoKind.COMPARE
                    || kind == IoKind.OTHER ? NvmeStatus.UNRECOVERED_READ_ERROR : NvmeStatus.WRITE_FAULT;
            // NVMe has no BUSY / TASK SET FULL: Namespace Not Ready without DNR is the retry-later status
            case NOT_READY, BUSY, TASK_SET_FULL -> NvmeStatus.NAMESPACE_NOT_READY;
            case ABORTED -> NvmeStatus.COMMAND_INTERRUPTED;
        };
    }

    private FaultCommand command(int qid, Sqe sqe) {
        NvmOpcode opcode = NvmOpcode.of(sqe.opcode()).orElse(null);
        IoKind kind = opcode == null ? IoKind.OTHER : switch (opcode) {
            case READ -> IoKind.READ;
            case WRITE -> IoKind.WRITE;
            case COMPARE -> IoKind.COMPARE;
            case FLUSH -> IoKind.FLUSH;
            case WRITE_ZEROES -> IoKind.WRITE_ZEROES;
            case DATASET_MANAGEMENT -> IoKind.UNMAP;
            case VERIFY -> IoKind.VERIFY;
            case COPY -> IoKind.COPY;
            case ZONE_APPEND -> IoKind.ZONE_APPEND;
            case ZONE_MANAGEMENT_SEND, ZONE_MANAGEMENT_RECEIVE -> IoKind.ZONE_MANAGEMENT;
            default -> IoKind.OTHER;
        };
        // a Zone Append is matched on the blocks it names from ZSLBA (where they land is known only once it runs)
        boolean addressed = switch (kind) {
            case READ, WRITE, COMPARE, WRITE_ZEROES, VERIFY, ZONE_APPEND -> true;
            default -> opcode == NvmOpcode.WRITE_UNCORRECTABLE;
        };
        // NVM Command Set §3.2 / ZNS §3.4.1: SLBA (ZSLBA) in CDW10..11, NLB (0's based) in CDW12 bits 15:0; Zone
        // Management Send / Receive (ZNS §3.4.2-3) address a zone by SLBA and no blocks
        boolean zone = kind == IoKind.ZONE_MANAGEMENT;
        long lba = addressed || zone ? Integer.toUnsignedLong(sqe.cdw10()) | (long) sqe.cdw11() << 32 : -1;
        long blocks = addressed ? (sqe.cdw12() & 0xFFFF) + 1L : 0;
        return new FaultCommand(FaultCommand.Protocol.NVME, kind, sqe.opcode(), lba, blocks, controller.hostNqn(), qid);
    }
}
