package io.blocktarget.nvme;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.FaultHit;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;


/**
 * The NVMe pre-dispatch hook of the namespace's fault rules (DESIGN §10), one per controller: an I/O command may be
 * failed with a status — a row of {@link NvmeStatus}, or any SCT / SC / DNR / CRD / M the rule names, through
 * {@link NvmeCompletion#completeRaw} (its Error Information log entry carries the first LBA in the rule's range and
 * that exact Status Field) — delayed, or held
 * without a completion until an Abort names it, the controller is reset or its queue's connection closes. No rule:
 * one volatile read.
 */
final class NvmeFaults {
    /** Who a held command belongs to: released together when the queue goes or the controller resets. */
    private record Owner(Controller controller, int qid) {
    }

    private final Controller controller;

    NvmeFaults(Controller controller) {
        this.controller = controller;
    }

    /** Runs the rest of the dispatch, later. */
    interface Dispatch {
        void run(Sqe sqe, ByteBuf dataOut, NvmeCompletion done);
    }

    /** Whether a rule took the command (it has completed, or will execute or complete later). */
    boolean intercept(Namespace ns, NvmeRequest done, Dispatch dispatch) {
        LunFaults faults = ns.state().faults();
        if (!faults.commandRules()) {
            return false;
        }
        int qid = done.qid();
        Sqe sqe = done.sqe();
        ByteBuf dataOut = done.dataOut();
        FaultCommand command = command(qid, sqe);
        FaultHit hit = faults.command(command);
        if (hit == null) {
            return false;
        }
        switch (hit.action()) {
            case FaultAction.Fail f -> {
                NvmeStatus status = status(f.status(), command.kind());
                CqeStatus exact = statusField(f.status());
                if (command.lba() >= 0 && (exact == null ? ErrorLog.records(status) : ErrorLog.records(exact))) {
                    done.faultLba(hit.firstLba()); // this completion's log entry names it
                }
                if (exact == null) {
                    done.complete(status, 0, 0, null);
                } else {
                    done.completeRaw(exact, status, 0, 0, null);
                }
            }
            case FaultAction.Delay d -> faults.clock().schedule(hit.rule().delayNanos(d), () -> {
                try {
                    dispatch.run(sqe, dataOut, done);
                } catch (RuntimeException e) {
                    done.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
                }
            });
            case FaultAction.Throttle t -> {
                long wait = hit.rule().reserve(t, command.blocks() * ns.geometry().logicalBlockSize(),
                        faults.clock().nanoTime());
                if (wait == 0) {
                    return false; // within the limit: on its way at once
                }
                faults.clock().schedule(wait, () -> {
                    try {
                        dispatch.run(sqe, dataOut, done);
                    } catch (RuntimeException e) {
                        done.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
                    }
                });
            }
            // Base §5.1: a command the host aborts completes with Command Abort Requested
            case FaultAction.NoResponse _ -> faults.holds().hold(new Owner(controller, qid), sqe.cid(),
                    () -> done.complete(NvmeStatus.ABORTED_BY_REQUEST, 0, 0, null));
            case FaultAction.PartialTransfer p -> {
                return partial(ns, qid, sqe, dataOut, done, dispatch, p, hit);
            }
            case FaultAction.DropConnection drop -> {
                // no completion: held, and the queue's connection closing releases it (its answer goes nowhere)
                Owner owner = new Owner(controller, qid);
                var held = faults.holds().hold(owner, sqe.cid(),
                        () -> done.complete(NvmeStatus.ABORTED_BY_REQUEST, 0, 0, null));
                if (!connection(qid).applyFault(drop, hit.rule()) && faults.holds().discard(held)) {
                    hit.rule().countNotApplicable();
                    return false; // no connection to drop: the command goes on
                }
            }
            case FaultAction.ConnectionFault fault -> {
                // stall, digest (async-logout is iSCSI's: not applicable here); the command itself goes on
                if (!connection(qid).applyFault(fault, hit.rule())) {
                    hit.rule().countNotApplicable();
                }
                return false;
            }
            case FaultAction.CorruptRead _, FaultAction.TornWrite _, FaultAction.KeepAliveStall _ -> {
                return false; // the device decorator applies them; Keep Alive is an admin command (keepAlive)
            }
        }
        return true;
    }

    /**
     * A Read or Write that transfers only its first blocks, then fails. NVMe has no residual count and no GOOD for a
     * short transfer, so the host must see an error: Data Transfer Error (Base §4.2.3.1, Generic Command Status 04h,
     * "transfer of the data or metadata associated with a command had an error"), DNR = 0. Read: the first blocks go
     * to the host — NVMe/TCP §3.6.2.8: C2HData without the SUCCESS flag, then the CapsuleResp with that status (the
     * data buffer's contents past them are undefined for a failed command). Write: only the first blocks are written
     * (the same command with a smaller NLB and SGL length). The Error Information log entry carries the first LBA
     * not transferred.
     */
    private boolean partial(Namespace ns, int qid, Sqe sqe, ByteBuf dataOut, NvmeRequest done, Dispatch dispatch,
                            FaultAction.PartialTransfer p, FaultHit hit) {
        boolean read = qid > 0 && sqe.opcode() == NvmOpcode.READ.code();
        if (!read && (qid == 0 || sqe.opcode() != NvmOpcode.WRITE.code())) {   // QID 0: Get Log Page is 02h too
            hit.rule().countNotApplicable();
            return false;
        }
        long slba = Integer.toUnsignedLong(sqe.cdw10()) | (long) sqe.cdw11() << 32;
        long blocks = (sqe.cdw12() & 0xFFFF) + 1L;
        long n = p.blocksOf(blocks);
        int lbs = ns.geometry().logicalBlockSize();
        done.faultLba(slba + n);
        NvmeStatus error = NvmeStatus.DATA_TRANSFER_ERROR;
        if (read) {
            dispatch.run(sqe, dataOut, (status, dw0, dw1, data) -> {
                if (!status.isSuccess() || data == null) {
                    done.faultLba(-1);
                    done.complete(status, dw0, dw1, data);
                    return;
                }
                data.writerIndex(data.readerIndex() + (int) Math.min(data.readableBytes(), n * lbs));
                done.complete(error, 0, 0, data);
            });
            return true;
        }
        if (n == 0) {
            done.complete(error, 0, 0, null);
            return true;
        }
        Sqe shorter = new Sqe(sqe.opcode(), sqe.fuse(), sqe.psdt(), sqe.cid(), sqe.nsid(), sqe.cdw2(), sqe.cdw3(),
                sqe.mptr(), new io.blocktarget.protocol.nvme.SglDescriptor(sqe.dptr().address(), (int) (n * lbs),
                sqe.dptr().reserved(), sqe.dptr().type(), sqe.dptr().subtype()), sqe.cdw10(), sqe.cdw11(),
                (sqe.cdw12() & ~0xFFFF) | (int) (n - 1), sqe.cdw13(), sqe.cdw14(), sqe.cdw15());
        dispatch.run(shorter, dataOut, (status, dw0, dw1, data) -> {
            if (!status.isSuccess()) {
                done.faultLba(-1);
            }
            done.complete(status.isSuccess() ? error : status, dw0, dw1, data);
        });
        return true;
    }

    /** The transport connection of queue {@code qid} (none once the queue is gone). */
    private io.blocktarget.block.fault.FaultConnection connection(int qid) {
        ControllerQueue queue = qid < 0 ? null : controller.queue(qid);
        return queue == null ? io.blocktarget.block.fault.FaultConnection.NONE : queue.connection();
    }

    /**
     * Keep Alive (Base §5.24) of this controller's host: whether a keep-alive-stall rule of one of its namespaces
     * took it — no completion and no timer restart, so KATO expires; it is held like a no-response command (Abort,
     * a controller reset or the connection's end release it).
     */
    boolean keepAlive(Sqe sqe, NvmeCompletion done) {
        for (Namespace ns : controller.subsystem().namespaces().values()) {
            LunFaults faults = ns.state().faults();
            if (!faults.keepAliveRules()) {
                continue;
            }
            FaultHit hit = faults.keepAlive(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.OTHER, sqe.opcode(),
                    -1, 0, controller.hostNqn(), 0, controller.portId()));
            if (hit != null) {
                faults.holds().hold(new Owner(controller, 0), sqe.cid(),
                        () -> done.complete(NvmeStatus.ABORTED_BY_REQUEST, 0, 0, null));
                return true;
            }
        }
        return false;
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

    /**
     * The rule's exact Status Field (Base §4.2.3) when no {@link NvmeStatus} row carries it — a pair we do not name
     * (1/C0h, 3/02h Asymmetric Access Inaccessible, 7/xx vendor specific, ...) or a DNR, CRD or M of the rule's own;
     * null when the row says it all (or the rule names no NVMe status). DNR left to us: the row's, clear for a pair
     * without one (the host may retry, as for the condition's default statuses).
     */
    static CqeStatus statusField(FaultStatus status) {
        if (!status.explicitNvme()) {
            return null;
        }
        NvmeStatus named = NvmeStatus.of(status.sct(), status.sc());
        boolean dnr = status.dnr() >= 0 ? status.dnr() == 1 : named != null && named.dnr();
        CqeStatus exact = new CqeStatus(status.sc(), status.sct(), status.crd(), status.more(), dnr);
        return named != null && exact.equals(named.toCqeStatus()) ? null : exact;
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
        if (qid == 0) {   // an admin command reaches the rules only as a data placement query (Fdp.faultTarget)
            return new FaultCommand(FaultCommand.Protocol.NVME, IoKind.OTHER, sqe.opcode(), -1, 0,
                    controller.hostNqn(), qid, controller.portId(), Fdp.query(qid, sqe));
        }
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
        // the controller's PORTID is the portal's id: a rule with portal: fails this path only
        return new FaultCommand(FaultCommand.Protocol.NVME, kind, sqe.opcode(), lba, blocks, controller.hostNqn(), qid,
                controller.portId(), Fdp.query(qid, sqe));
    }
}
