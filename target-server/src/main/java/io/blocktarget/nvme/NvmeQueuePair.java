package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.state.StateMachine;
import io.netty.buffer.ByteBuf;

import java.util.Optional;

/**
 * The NVMe side of one transport connection (NVMe-oF: one queue per connection): the Fabrics Connect that binds it
 * to a controller's queue (Base §6.3), the submission queue head (SQHD, Base §4.1) every response carries, and the
 * way each {@link NvmeRequest}'s response goes back through the transport's {@link NvmeTransportOps}. Owned by the
 * connection's thread: {@link #admit}, {@link #submit} and the responses run there, so SQHD is a plain field.
 */
public final class NvmeQueuePair {
    /** SQHD of the Connect response when the host disabled SQ flow control (TP 8005, as Linux nvmet). */
    private static final int SQHD_FLOW_CONTROL_DISABLED = 0xFFFF;

    /** AWAIT_CONNECT until a Connect binds a queue (a refused one may be retried), LIVE until the connection ends. */
    public enum State {
        AWAIT_CONNECT, CONNECTING, LIVE, CLOSED;

        static final StateMachine<State> MACHINE = StateMachine.of("NVMe queue pair", State.class, AWAIT_CONNECT)
                .allow(AWAIT_CONNECT, CONNECTING, CLOSED)
                .allow(CONNECTING, AWAIT_CONNECT, LIVE, CLOSED)
                .allow(LIVE, CLOSED)
                .terminal(CLOSED)
                .build();
    }

    private final NvmeTarget target;
    private final NvmeHostConnection connection;
    private final NvmeTransportOps ops;
    private final boolean discoveryOnly;
    private State state = State.MACHINE.initial();
    private NvmeQueue queue;
    private int qid = -1;
    private int sqhd;

    /**
     * @param discoveryOnly the connection came to a discovery port (8009): only the discovery subsystem may be
     *                      connected
     */
    public NvmeQueuePair(NvmeTarget target, NvmeHostConnection connection, NvmeTransportOps ops,
                         boolean discoveryOnly) {
        this.target = target;
        this.connection = connection;
        this.ops = ops;
        this.discoveryOnly = discoveryOnly;
    }

    public State state() {
        return state;
    }

    /** The bound queue, null before the Connect. */
    public NvmeQueue queue() {
        return queue;
    }

    /** The bound queue's QID, -1 before the Connect. */
    public int qid() {
        return qid;
    }

    /** MDTS, in-capsule data and queue sizes of the connected controller; empty before the Connect. */
    public Optional<NvmeLimits> limits() {
        return queue == null ? Optional.empty() : queue.limits();
    }

    /** Connect CATTR bit 2 of the bound queue (C2HData may carry SUCCESS, NVMe/TCP §3.6.2.8). */
    public boolean sqFlowControlDisabled() {
        return queue != null && queue.sqFlowControlDisabled();
    }

    /**
     * A command took a submission queue entry: the head advances past it (Base §4.1), also for one the transport
     * ends itself. Before the Connect and with SQ flow control disabled it stays.
     */
    public void admit() {
        if (state == State.LIVE && !queue.sqFlowControlDisabled()) {
            sqhd = (sqhd + 1) % queue.entries();
        }
    }

    /**
     * Executes {@code r}: before a queue is bound only a Connect (anything else, and a second Connect, is Command
     * Sequence Error: one queue per connection, NVMe/TCP §3.3), then the queue's commands.
     */
    public void submit(NvmeRequest r) {
        r.pair(this);
        Sqe sqe = r.sqe();
        boolean connect = sqe.isFabrics() && sqe.fctype() == FabricsCommandType.CONNECT.code();
        if (state == State.LIVE && !connect) {
            queue.submit(r);
        } else if (state == State.AWAIT_CONNECT && connect) {
            connect(r);
        } else {
            r.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        }
    }

    /** A fused pair the transport found adjacent in the submission queue (Base §3.4.2). */
    public void submitFused(NvmeRequest first, NvmeRequest second) {
        first.pair(this);
        second.pair(this);
        if (state == State.LIVE) {
            queue.submitFused(first, second);
        } else {
            first.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
            second.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
        }
    }

    /** A request the transport ends itself (bad SGL, digest error, abort): it joins the pair for its response. */
    public void end(NvmeRequest r, NvmeStatus status) {
        r.pair(this);
        r.complete(status, 0, 0, null);
    }

    /** Fabrics Connect (Base §6.3): parsed here, then the target binds (or refuses) a queue, on any thread. */
    private void connect(NvmeRequest r) {
        Parsed<ConnectCommand> command = ConnectCommand.parse(r.sqe());
        if (command instanceof Parsed.Invalid<ConnectCommand>(NvmeStatus status, int dw0)) {
            r.complete(status, dw0, 0, null);
            return;
        }
        Parsed<ConnectData> data = r.dataOut() == null ? Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID)
                : ConnectData.parse(r.dataOut());
        if (data instanceof Parsed.Invalid<ConnectData>(NvmeStatus status, int dw0)) {
            r.complete(status, dw0, 0, null);
            return;
        }
        ConnectCommand cc = command.orNull();
        ConnectData cd = data.orNull();
        if (discoveryOnly && !DiscoveryLog.DISCOVERY_NQN.equals(cd.subnqn())) {
            r.complete(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(true, ConnectData.OFFSET_SUBNQN), 0, null);
            return;
        }
        state = State.MACHINE.transition(state, State.CONNECTING);
        target.connect(cc, cd, connection, result -> {
            if (ops.inLoop()) {
                connected(r, cc, cd, result);
            } else if (!ops.execute(() -> connected(r, cc, cd, result)) && result.queue() != null) {
                result.queue().close();   // the connection's thread is gone with the server
            }
        });
    }

    private void connected(NvmeRequest r, ConnectCommand cc, ConnectData cd, ConnectResult result) {
        if (state == State.CLOSED) {
            if (result.queue() != null) {
                result.queue().close();
            }
            r.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);   // the transport drops it: closed
            return;
        }
        if (result.queue() == null) {
            state = State.MACHINE.transition(state, State.AWAIT_CONNECT);
            r.complete(result.status(), result.dw0(), 0, null);
            return;
        }
        queue = result.queue();
        qid = cc.qid();
        state = State.MACHINE.transition(state, State.LIVE);
        boolean disabled = queue.sqFlowControlDisabled();
        sqhd = disabled ? SQHD_FLOW_CONTROL_DISABLED : 1 % queue.entries();
        r.complete(NvmeStatus.SUCCESS, result.dw0(), 0, null);
        if (disabled) {
            sqhd = 0;
        }
        ops.connected(queue, cd);
    }

    /** The completion function's last step: the CQE with the current SQHD, on the connection's thread. */
    void respond(NvmeRequest r, CqeStatus status, int dw0, int dw1, ByteBuf dataIn) {
        if (ops.inLoop()) {
            send(r, status, dw0, dw1, dataIn);
        } else if (!ops.execute(() -> send(r, status, dw0, dw1, dataIn)) && dataIn != null) {
            dataIn.release();   // the connection's thread is gone: nothing goes out any more
        }
    }

    private void send(NvmeRequest r, CqeStatus status, int dw0, int dw1, ByteBuf dataIn) {
        ops.queueResponse(r, new Cqe(dw0, dw1, sqhd, Math.max(qid, 0), r.cid(), 0, status), dataIn);
    }

    /** The connection is gone: the bound queue closes (a late Connect result is closed when it comes). */
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.MACHINE.transition(state, State.CLOSED);
        if (queue != null) {
            queue.close();
        }
    }
}
