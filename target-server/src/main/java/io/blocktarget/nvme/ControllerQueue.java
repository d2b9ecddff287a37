package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.state.StateMachine;
import io.netty.buffer.ByteBuf;

import java.lang.System.Logger.Level;

/**
 * One queue of a controller, bound to one transport connection (NVMe/TCP §3.3). It routes each command:
 * Fabrics commands first (they are legal before CC.EN = 1), then everything else only while the controller
 * is ENABLED (Base §3.6.1: a fabrics controller aborts other commands with Command Sequence Error until it
 * is ready), admin commands on QID 0 and NVM commands on I/O queues.
 */
final class ControllerQueue implements NvmeQueue {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvme");

    /** LIVE until the host disconnects it (Disconnect command) or the connection closes. */
    enum State {
        LIVE, DISCONNECTED;

        static final StateMachine<State> MACHINE = StateMachine.of("NVMe queue", State.class, LIVE)
                .allow(LIVE, DISCONNECTED)
                .terminal(DISCONNECTED)
                .build();
    }

    private final Controller controller;
    private final int qid;
    private final int entries;
    private final boolean sqFlowControlDisabled;
    private final NvmeHostConnection connection;
    private volatile State state = State.MACHINE.initial();
    /** DH-HMAC-CHAP of this queue; null when the subsystem has no keys (then nothing is checked). */
    private final Authentication authentication;

    ControllerQueue(Controller controller, int qid, int entries, boolean sqFlowControlDisabled,
                    NvmeHostConnection connection) {
        this.controller = controller;
        this.qid = qid;
        this.entries = entries;
        this.sqFlowControlDisabled = sqFlowControlDisabled;
        this.connection = connection;
        this.authentication = controller.subsystem().dhchap()
                .map(keys -> new Authentication(keys.forHost(controller.hostNqn()), controller.hostNqn(),
                        controller.subsystem().nqn(),
                        "NVMe controller " + controller.cntlid() + " QID " + qid + " (" + connection.peerAddress()
                                + ")", controller.target().crypto()))
                .orElse(null);
    }

    boolean authenticationRequired() {
        return authentication != null;
    }

    /** The queue's DH-HMAC-CHAP transaction, null when none is required. */
    Authentication authentication() {
        return authentication;
    }

    @Override
    public int qid() {
        return qid;
    }

    @Override
    public int cntlid() {
        return controller.cntlid();
    }

    @Override
    public int entries() {
        return entries;
    }

    @Override
    public java.util.Optional<NvmeLimits> limits() {
        return java.util.Optional.of(controller.limits());
    }

    @Override
    public boolean sqFlowControlDisabled() {
        return sqFlowControlDisabled;
    }

    Controller controller() {
        return controller;
    }

    NvmeHostConnection connection() {
        return connection;
    }

    @Override
    public void submit(Sqe sqe, ByteBuf dataOut, NvmeCompletion completion) {
        NvmeCompletion done = logged(sqe, completion);
        try {
            route(sqe, dataOut, done);
        } catch (RuntimeException e) {
            // A bug, not a host error: the command fails, the connection and other commands go on.
            LOG.log(Level.ERROR, "NVMe controller " + controller + " QID " + qid + ": opcode "
                    + Integer.toHexString(sqe.opcode()) + " failed", e);
            done.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
        }
    }

    private void route(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        if (state != State.LIVE || controller.state() == ControllerState.TORN_DOWN) {
            done.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        } else if (sqe.fuse() != Sqe.FUSE_NONE) {
            // a fused command alone (the transport pairs adjacent ones: submitFused): its other half is missing
            // (Base §3.4.2); FUSE 11b is reserved, and neither admin nor fabrics commands are ever fused
            done.complete(sqe.fuse() == 0b11 || qid == 0 || sqe.isFabrics() ? NvmeStatus.INVALID_FIELD
                    : NvmeStatus.ABORTED_MISSING_FUSED, 0, 0, null);
        } else if (sqe.isFabrics() && FabricsCommands.allowedBeforeAuthentication(sqe)) {
            FabricsCommands.execute(this, sqe, dataOut, done);
        } else if (authentication != null && !authentication.authenticated()) {
            // Base 2.2 §8.3.4.2: until the queue is authenticated, only Connect, Authentication Send / Receive
            // and Disconnect are processed; the rest is aborted with Authentication Required (nvmet: DNR set).
            done.complete(NvmeStatus.AUTHENTICATION_REQUIRED, 0, 0, null);
        } else if (sqe.isFabrics()) {
            FabricsCommands.execute(this, sqe, dataOut, done);
        } else if (controller.state() != ControllerState.ENABLED) {
            done.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        } else if (qid == 0) {
            AdminCommands.execute(controller, sqe, dataOut, done);
        } else {
            controller.io().execute(qid, sqe, dataOut, done);
        }
    }

    /**
     * A fused pair (Base §3.4.2): the same gates as {@link #route} for both; on an I/O queue Compare and Write
     * ({@link NvmIo#executeFused}), anything else — admin, fabrics — Invalid Field in Command for both (FUSES lists
     * only Compare and Write, for NVM commands).
     */
    @Override
    public void submitFused(Sqe first, ByteBuf firstData, NvmeCompletion firstDone, Sqe second, ByteBuf secondData,
                            NvmeCompletion secondDone) {
        NvmeCompletion done1 = logged(first, firstDone);
        NvmeCompletion done2 = logged(second, secondDone);
        NvmeStatus refused = null;
        if (state != State.LIVE || controller.state() == ControllerState.TORN_DOWN) {
            refused = NvmeStatus.COMMAND_SEQUENCE_ERROR;
        } else if (authentication != null && !authentication.authenticated()) {
            refused = NvmeStatus.AUTHENTICATION_REQUIRED;
        } else if (controller.state() != ControllerState.ENABLED) {
            refused = NvmeStatus.COMMAND_SEQUENCE_ERROR;
        } else if (qid == 0 || first.isFabrics() || second.isFabrics()) {
            refused = NvmeStatus.INVALID_FIELD;
        }
        if (refused != null) {
            done1.complete(refused, 0, 0, null);
            done2.complete(refused, 0, 0, null);
            return;
        }
        try {
            controller.io().executeFused(qid, first, firstData, done1, second, secondData, done2);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "NVMe controller " + controller + " QID " + qid + ": fused operation failed", e);
            done1.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
            done2.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
        }
    }

    @Override
    public boolean retireAsyncEventRequest(int cid) {
        return qid == 0 && controller.events().retire(cid);
    }

    /**
     * {@code done}, recording a failed completion in the controller's Error Information log (Base §5.16.1.2) with
     * this queue's SQID, the command's CID and NSID, and for NVM commands the LBA: SLBA (CDW10..11), or the first
     * unreadable block of a read that met an uncorrectable one.
     */
    private NvmeCompletion logged(Sqe sqe, NvmeCompletion done) {
        return new NvmeCompletion() {
            @Override
            public void complete(NvmeStatus status, int dw0, int dw1, ByteBuf data) {
                if (ErrorLog.records(status)) {
                    controller.errors().record(qid, sqe.cid(), status, errorLba(sqe, status), sqe.nsid());
                }
                done.complete(status, dw0, dw1, data);
            }

            @Override
            public void completeRaw(CqeStatus status, NvmeStatus reason, int dw0, int dw1, ByteBuf data) {
                // a fault rule's exact status: the entry carries it (and the rule's LBA, taken by errorLba)
                if (ErrorLog.records(status)) {
                    controller.errors().record(qid, sqe.cid(), status, errorLba(sqe, reason), sqe.nsid());
                }
                done.completeRaw(status, reason, dw0, dw1, data);
            }
        };
    }

    private long errorLba(Sqe sqe, NvmeStatus status) {
        if (qid == 0 || sqe.isFabrics()) {
            return 0;
        }
        long faulted = controller.io().faults().takeErrorLba(qid, sqe.cid());
        if (faulted >= 0) {
            return faulted; // a fault rule's status: the first LBA of the command in the rule's range
        }
        long slba = Integer.toUnsignedLong(sqe.cdw10()) | (long) sqe.cdw11() << 32;
        Namespace ns = status == NvmeStatus.UNRECOVERED_READ_ERROR
                ? controller.subsystem().namespace(Integer.toUnsignedLong(sqe.nsid())) : null;
        return ns == null ? slba : NvmMediaCommands.firstBadLba(ns, slba, (sqe.cdw12() & 0xFFFF) + 1L);
    }

    /** Disconnect (Base §6.4): the queue takes no more commands; the host closes the connection. */
    void disconnect() {
        disconnected();
        controller.io().faults().release(qid);
        controller.queueClosed(this);
    }

    /** The controller is gone: close the connection. */
    void terminate(String reason) {
        disconnected();
        controller.io().faults().release(qid);
        connection.terminate(reason);
    }

    /**
     * LIVE -> DISCONNECTED once; a second end (a Disconnect, then the connection's close) finds it done. Racing ends
     * from two threads both find LIVE and both store DISCONNECTED: the same end state, so no lock.
     */
    private void disconnected() {
        State current = state;
        if (current != State.DISCONNECTED) {
            state = State.MACHINE.transition(current, State.DISCONNECTED);
        }
    }

    @Override
    public void close() {
        disconnected();
        controller.io().faults().release(qid); // commands held by a no-response rule end with the connection
        controller.queueClosed(this);
    }
}
