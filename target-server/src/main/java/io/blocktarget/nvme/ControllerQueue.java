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
    /**
     * The answer to a command that reaches a controller already torn down (keep-alive expiry, a session dropped from
     * the control plane) in the moment before its connections close: Internal Path Error, a path related status
     * without DNR (Base §4.2.3.4), so a multipath host retries it on another path. Command Sequence Error with DNR
     * made Linux fail such writes to the application (EIO) instead of failing over.
     */
    static final NvmeStatus GONE = NvmeStatus.INTERNAL_PATH_ERROR;
    /** Set by {@link #terminate}: the controller ended this queue (its connection closes next). */
    private volatile boolean terminated;

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

    /** An in-process submitter's command: a request completed through {@code completion}, then as any other. */
    @Override
    public void submit(Sqe sqe, ByteBuf dataOut, NvmeCompletion completion) {
        submit(NvmeRequest.of(sqe, dataOut, completion));
    }

    @Override
    public void submit(NvmeRequest r) {
        r.queue(this);
        try {
            route(r);
        } catch (RuntimeException e) {
            // A bug, not a host error: the command fails, the connection and other commands go on.
            LOG.log(Level.ERROR, "NVMe controller " + controller + " QID " + qid + ": opcode "
                    + Integer.toHexString(r.sqe().opcode()) + " failed", e);
            r.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
        }
    }

    private void route(NvmeRequest r) {
        Sqe sqe = r.sqe();
        ByteBuf dataOut = r.dataOut();
        if (goneWithController()) {
            r.complete(GONE, 0, 0, null);
        } else if (state != State.LIVE || controller.state() == ControllerState.TORN_DOWN) {
            r.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        } else if (sqe.fuse() != Sqe.FUSE_NONE) {
            // a fused command alone (the transport pairs adjacent ones: submitFused): its other half is missing
            // (Base §3.4.2); FUSE 11b is reserved, and neither admin nor fabrics commands are ever fused
            r.complete(sqe.fuse() == 0b11 || qid == 0 || sqe.isFabrics() ? NvmeStatus.INVALID_FIELD
                    : NvmeStatus.ABORTED_MISSING_FUSED, 0, 0, null);
        } else if (sqe.isFabrics() && FabricsCommands.allowedBeforeAuthentication(sqe)) {
            FabricsCommands.execute(this, sqe, dataOut, r);
        } else if (authentication != null && !authentication.authenticated()) {
            // Base 2.2 §8.3.4.2: until the queue is authenticated, only Connect, Authentication Send / Receive
            // and Disconnect are processed; the rest is aborted with Authentication Required (nvmet: DNR set).
            r.complete(NvmeStatus.AUTHENTICATION_REQUIRED, 0, 0, null);
        } else if (sqe.isFabrics()) {
            FabricsCommands.execute(this, sqe, dataOut, r);
        } else if (controller.state() != ControllerState.ENABLED) {
            r.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        } else if (qid == 0) {
            AdminCommands.execute(controller, r);
        } else {
            controller.io().execute(r);
        }
    }

    @Override
    public void submitFused(Sqe first, ByteBuf firstData, NvmeCompletion firstDone, Sqe second, ByteBuf secondData,
                            NvmeCompletion secondDone) {
        submitFused(NvmeRequest.of(first, firstData, firstDone), NvmeRequest.of(second, secondData, secondDone));
    }

    /**
     * A fused pair (Base §3.4.2): the same gates as {@link #route} for both; on an I/O queue Compare and Write
     * ({@link NvmIo#executeFused}), anything else — admin, fabrics — Invalid Field in Command for both (FUSES lists
     * only Compare and Write, for NVM commands).
     */
    @Override
    public void submitFused(NvmeRequest first, NvmeRequest second) {
        first.queue(this);
        second.queue(this);
        NvmeStatus refused = null;
        if (goneWithController()) {
            refused = GONE;
        } else if (state != State.LIVE || controller.state() == ControllerState.TORN_DOWN) {
            refused = NvmeStatus.COMMAND_SEQUENCE_ERROR;
        } else if (authentication != null && !authentication.authenticated()) {
            refused = NvmeStatus.AUTHENTICATION_REQUIRED;
        } else if (controller.state() != ControllerState.ENABLED) {
            refused = NvmeStatus.COMMAND_SEQUENCE_ERROR;
        } else if (qid == 0 || first.sqe().isFabrics() || second.sqe().isFabrics()) {
            refused = NvmeStatus.INVALID_FIELD;
        }
        if (refused != null) {
            first.complete(refused, 0, 0, null);
            second.complete(refused, 0, 0, null);
            return;
        }
        try {
            controller.io().executeFused(first, second);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "NVMe controller " + controller + " QID " + qid + ": fused operation failed", e);
            first.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
            second.complete(NvmeStatus.INTERNAL_ERROR, 0, 0, null);
        }
    }

    @Override
    public boolean retireAsyncEventRequest(int cid) {
        return qid == 0 && controller.events().retire(cid);
    }

    /**
     * The completion function's Error log step: a failed completion of {@code r} goes into the controller's Error
     * Information log (Base §5.16.1.2) with this queue's SQID, the command's CID and NSID, and for NVM commands the
     * LBA: a fault rule's (its request carries it), SLBA (CDW10..11), or the first unreadable block of a read that
     * met an uncorrectable one. {@code raw}: a fault rule's exact Status Field, which the entry carries.
     */
    void recordError(NvmeRequest r, CqeStatus raw, NvmeStatus status) {
        if (raw != null ? ErrorLog.records(raw) : ErrorLog.records(status)) {
            Sqe sqe = r.sqe();
            controller.errors().record(qid, sqe.cid(), raw != null ? raw : status.toCqeStatus(),
                    errorLba(r, status), sqe.nsid());
        }
    }

    private long errorLba(NvmeRequest r, NvmeStatus status) {
        Sqe sqe = r.sqe();
        if (qid == 0 || sqe.isFabrics()) {
            return 0;
        }
        if (r.faultLba() >= 0) {
            return r.faultLba(); // a fault rule's status: the first LBA of the command in the rule's range
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

    /**
     * Whether this queue's controller was torn down while the queue was live (it is being {@link #terminate}d, or is
     * about to be): its connection closes, but a command read before that still gets an answer ({@link #GONE}).
     */
    private boolean goneWithController() {
        return terminated || (state == State.LIVE && controller.state() == ControllerState.TORN_DOWN);
    }

    /** The controller is gone: close the connection. */
    void terminate(String reason) {
        terminated = true;
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
