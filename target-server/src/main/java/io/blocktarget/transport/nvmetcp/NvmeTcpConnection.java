package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeHostConnection;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmeQueue;
import io.blocktarget.nvme.NvmeQueuePair;
import io.blocktarget.nvme.NvmeRequest;
import io.blocktarget.nvme.NvmeTarget;
import io.blocktarget.nvme.NvmeTransportOps;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.ICResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFatalError;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.state.StateCounters;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.blocktarget.transport.tcp.StallHandler;
import io.blocktarget.transport.tcp.StreamTuning;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.RejectedExecutionException;

/**
 * One NVMe/TCP connection on the controller side (NVMe/TCP §3.3): ICReq/ICResp, then capsules, R2T/H2CData for
 * host-to-controller data, C2HData and CapsuleResp. The NVMe side of the connection — the Fabrics Connect that binds
 * it to one queue, SQHD, the requests' completion — is its {@link NvmeQueuePair}; this class is that pair's
 * {@link NvmeTransportOps}. Each command is one {@link Command} (an {@link NvmeRequest}).
 * Lives on its channel's event loop: no locks; completions from other threads hop back through the executor.
 * Connection-fatal errors go through {@link #fatal}: one log line, a C2HTermReq where the spec asks for one, close.
 */
final class NvmeTcpConnection extends ChannelInboundHandlerAdapter implements NvmeHostConnection, NvmeTransportOps {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvmetcp");

    private final NvmeLimits limits;
    /** The NVMe side: Connect, the bound queue, SQHD. */
    private final NvmeQueuePair pair;
    private final NvmeTcpFrameDecoder decoder;
    private final CidReusePolicy cidReuse;
    private final PeerLogLimiter errorLog;
    /** Set once by the TLS handler before the first PDU; read at Connect on the same event loop. */
    private volatile io.blocktarget.nvme.TlsSession tls;
    private ChannelHandlerContext ctx;
    private ConnectionState state = ConnectionState.MACHINE.initial();
    private PduSender sender;
    /** This connection's commands by state (issue 27): changed only by {@link CommandState#MACHINE}. */
    private final StateCounters<CommandState> commandStates = CommandState.MACHINE.newLoopCounters();
    /** Before Connect: room for the Connect only. */
    private CommandTable commands = new CommandTable(1, commandStates);
    /** Set once teardown ended the commands the NVMe layer does not hold; the check runs once they all ended. */
    private boolean commandsEnding;
    private boolean teardownChecked;
    /** The last capsule, when it was the first command of a fused operation: the next one may be its second. */
    private Command fusedFirst;

    /** Which listener accepted the connection: the discovery port (8009) serves only the discovery subsystem. */
    enum PortKind { ALL_SUBSYSTEMS, DISCOVERY_ONLY }

    NvmeTcpConnection(NvmeTarget target, NvmeLimits limits, PortKind port, NvmeTcpFrameDecoder decoder,
                      CidReusePolicy cidReuse, PeerLogLimiter errorLog) {
        this.errorLog = errorLog;
        this.limits = limits;
        this.pair = new NvmeQueuePair(target, this, this, port == PortKind.DISCOVERY_ONLY);
        this.decoder = decoder;
        this.cidReuse = cidReuse;
    }

    // ---------------------------------------------------------------- Netty events

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.sender = new PduSender(ctx, PduOptions.NONE);
    }

    /**
     * Backpressure: while the host does not take its C2HData as fast as it asks for it, no further capsules are
     * read, so one connection buffers at most about {@link StreamTuning#WRITE_BUFFER}'s high mark plus one burst of
     * reads.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        sender.readStarted();
        if (state == ConnectionState.CLOSING || !(msg instanceof Inbound in)) {
            release(msg);
            return;
        }
        try {
            switch (in) {
                case Inbound.Pdu(NvmeTcpPdu pdu, ByteBuf frame) -> onPdu(pdu, frame);
                case Inbound.CapsuleDigestError(Sqe sqe) -> onCapsuleDigestError(sqe);
                case Inbound.H2CDataDigestError e -> onH2CDataDigestError(e);
                case Inbound.Fatal(NvmeTcpProtocolException error, TermReq termReq) -> fatal(error.getMessage(), termReq);
            }
        } catch (RuntimeException e) {
            // a bug of ours or of the NVMe layer: this connection ends, the others never notice
            if (errorLog.admit(ctx.channel().remoteAddress())) {
                LOG.log(Level.ERROR, identity() + ": internal error, closing", e);
            }
            close(Level.DEBUG, "internal error");
        }
    }

    private void onPdu(NvmeTcpPdu pdu, ByteBuf frame) {
        try {
            switch (pdu) {
                case ICReq req -> onICReq(req);
                case CapsuleCmd capsule -> onCapsule(capsule.sqe(), capsule.data());
                case H2CData data -> onH2CData(data);
                case TermReq term -> close(Level.WARNING, "H2CTermReq from the host: FES " + term.fes() + " ("
                        + term.reason() + "), FEI " + term.fei());
                default -> throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_TYPE, pdu.type()
                        + " from a host");
            }
        } catch (NvmeTcpProtocolException e) {
            pdu.release();
            fatal(e.getMessage(), TermReq.c2h(e, frame));
        } finally {
            frame.release();
        }
    }

    /** The socket read burst is over: the completions it produced go out together (PduSender). */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        sender.readComplete();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        sender.release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // one line per session event: an I/O queue's connection ending with its controller is not one
        close(pair.qid() > 0 ? Level.DEBUG : Level.INFO, "disconnected");
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        close(Level.INFO, "socket error: " + cause);
    }

    // ---------------------------------------------------------------- Initialization (§3.6.2.2 / §3.6.2.3)

    private void onICReq(ICReq req) {
        // PFV 0 and HPDA <= 31 were checked by the decoder (UNSUPPORTED_PARAMETER); MAXR2T is honoured by sending
        // at most one R2T per command at a time; digests are granted exactly as requested.
        transitionTo(ConnectionState.AWAIT_CONNECT);
        sender.send(ICResp.answering(req, 0, limits.maxH2CDataBytes()));
        sender = sender.withOptions(req.controllerSendOptions());
        decoder.framing(decoder.framing().established(new PduOptions(req.hdgstEnable(), req.ddgstEnable(), 0)));
    }

    // ---------------------------------------------------------------- Capsules (§3.6.2.6)

    /** Takes ownership of {@code inCapsule} once admitted; a fatal error before that leaves it to the caller. */
    private void onCapsule(Sqe sqe, ByteBuf inCapsule) throws NvmeTcpProtocolException {
        Command c = admit(sqe);
        pairFused(c);
        SglDescriptor sgl = sqe.dptr();
        NvmeStatus sglStatus = checkSgl(c, sgl, inCapsule.readableBytes());
        if (!sglStatus.isSuccess()) {
            inCapsule.release();
            pair.end(c, sglStatus);
            return;
        }
        if (c.direction() != TransferDirection.HOST_TO_CONTROLLER) {
            inCapsule.release();
            ready(c);
        } else if (sgl.kind() == SglDescriptor.Kind.IN_CAPSULE) {
            c.dataOut(inCapsule.retainedSlice(inCapsule.readerIndex() + (int) sgl.address(), sgl.length()));
            inCapsule.release();
            ready(c);
        } else {
            inCapsule.release();
            c.expectH2C(sgl.lengthUnsigned(), ctx.alloc().compositeBuffer(Command.MAX_COMPONENTS));
            if (c.allDataReceived()) {
                ready(c);
            } else {
                c.transitionTo(CommandState.AWAITING_H2C_DATA);
                sendNextR2T(c);
            }
        }
    }

    /** A capsule takes a slot (queue depth) and advances SQHD, even one the transport fails itself. */
    private Command admit(Sqe sqe) throws NvmeTcpProtocolException {
        if (commands.cidInUse(sqe.cid()) && !retireStaleAsyncEventRequest(commands.byCid(sqe.cid()))) {
            throw NvmeTcpProtocolException.headerField(CapsuleCmd.OFFSET_CID, "CID " + sqe.cid() + " in use");
        }
        if (commands.isFull()) {
            throw NvmeTcpProtocolException.of(NvmeTcpFatalError.PDU_SEQUENCE_ERROR,
                    "more than " + commands.capacity() + " outstanding commands");
        }
        pair.admit();
        return commands.add(sqe);
    }

    /**
     * A capsule reused the CID of {@code stale}, still outstanding (Base §4.2 forbids it). When {@code stale} is an
     * Asynchronous Event Request on the admin queue and the policy tolerates it (SPDK's host cancels its AER locally
     * at detach and reuses the CID), the request is retired — the NVMe layer forgets it and the transport drops any
     * completion already on its way, so it never completes with that CID — and the new command goes on.
     */
    private boolean retireStaleAsyncEventRequest(Command stale) {
        if (cidReuse != CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST || state != ConnectionState.LIVE
                || pair.qid() != 0
                || !stale.isAsyncEventRequest() || stale.state() != CommandState.EXECUTING) {
            return false;
        }
        boolean wasOutstanding = pair.queue().retireAsyncEventRequest(stale.cid());
        stale.transitionTo(CommandState.DONE);
        commands.remove(stale);
        if (errorLog.admit(ctx.channel().remoteAddress())) {
            LOG.log(Level.WARNING, "{0}: host reused CID {1} of its outstanding Asynchronous Event Request (a CID "
                    + "must be unique among outstanding commands, Base §4.2); the request is retired{2}", identity(),
                    stale.cid(), wasOutstanding ? "" : " (its completion, already on its way, is dropped)");
        }
        return true;
    }

    /**
     * MDTS and in-capsule data of the connected controller (its subsystem's {@code session:} knobs, fixed when it
     * was created); before Connect, the transport's.
     */
    private NvmeLimits controllerLimits() {
        return pair.limits().orElse(limits);
    }

    /** The SGL forms NVMe/TCP allows for the command's direction (§3.3.2 / Base §4.3.2). */
    private NvmeStatus checkSgl(Command c, SglDescriptor sgl, int inCapsuleBytes) {
        return switch (c.direction()) {
            case NONE, BIDIRECTIONAL -> inCapsuleBytes == 0 ? NvmeStatus.SUCCESS : NvmeStatus.INVALID_FIELD;
            case CONTROLLER_TO_HOST -> sgl.kind() != SglDescriptor.Kind.TRANSPORT_DATA_BLOCK
                    ? NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID
                    : inCapsuleBytes == 0 ? NvmeStatus.SUCCESS : NvmeStatus.INVALID_FIELD;
            case HOST_TO_CONTROLLER -> switch (sgl.kind()) {
                case IN_CAPSULE -> sgl.validate(-1, inCapsuleBytes);
                // the NVMe layer checks NLB against MDTS; the transport must not buffer more than MDTS
                case TRANSPORT_DATA_BLOCK -> inCapsuleBytes != 0 ? NvmeStatus.INVALID_FIELD
                        : sgl.lengthUnsigned() > controllerLimits().maxDataTransferBytes() ? NvmeStatus.INVALID_FIELD
                        : NvmeStatus.SUCCESS;
                case UNSUPPORTED -> NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID;
            };
        };
    }

    private void onCapsuleDigestError(Sqe sqe) {
        try {
            pair.end(admit(sqe), NvmeStatus.TRANSIENT_TRANSPORT_ERROR);
        } catch (NvmeTcpProtocolException e) {
            fatal(e);
        }
    }

    // ---------------------------------------------------------------- R2T / H2CData (§3.6.2.9 / §3.6.2.10)

    private void sendNextR2T(Command c) {
        long r2tl = c.nextR2T(limits.maxH2CDataBytes());
        sender.sendR2T(c.cid(), c.ttag(), c.r2to(), r2tl);
    }

    /** Checks everything before the data changes hands: a fatal error leaves the PDU to the caller. */
    private void onH2CData(H2CData pdu) throws NvmeTcpProtocolException {
        Command c = h2cTarget(pdu.cccid(), pdu.ttag());
        pdu.checkWithin(c.r2to(), c.r2tl(), c.received());
        checkLastPdu(c, pdu.datao() + pdu.datal(), pdu.last());
        if (c.state() == CommandState.DRAINING) {
            c.discard(pdu.datal());
            pdu.release();
        } else {
            c.append(pdu.data());
        }
        afterH2CData(c);
    }

    private void onH2CDataDigestError(Inbound.H2CDataDigestError e) {
        try {
            Command c = h2cTarget(e.cccid(), e.ttag());
            if (e.datao() != c.received() || e.datao() + e.datal() > c.r2to() + c.r2tl()) {
                throw new NvmeTcpProtocolException(NvmeTcpFatalError.DATA_TRANSFER_OUT_OF_RANGE, 0, e.cccid(),
                        "DATAO " + e.datao() + " DATAL " + e.datal() + " outside the R2T");
            }
            checkLastPdu(c, e.datao() + e.datal(), e.last());
            // NVMe/TCP §3.6.2.9 / Base "Transient Transport Error": the command fails, the connection lives;
            // the rest of the R2T's data is still drained so the PDU stream stays in step.
            c.skip(e.datal());
            afterH2CData(c);
        } catch (NvmeTcpProtocolException x) {
            fatal(x);
        }
    }

    /** §3.6.2.9: LAST_PDU marks exactly the PDU that completes the R2T. */
    private static void checkLastPdu(Command c, long end, boolean last) throws NvmeTcpProtocolException {
        if (last != (end == c.r2to() + c.r2tl())) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS,
                    "LAST_PDU " + last + " with data ending at " + end + " of R2T " + c.r2to() + "+" + c.r2tl());
        }
    }

    private Command h2cTarget(int cccid, int ttag) throws NvmeTcpProtocolException {
        Command c = commands.byTtag(ttag);
        if (c == null || c.state() != CommandState.AWAITING_H2C_DATA && c.state() != CommandState.DRAINING) {
            throw NvmeTcpProtocolException.headerField(H2CData.OFFSET_TTAG, "TTAG " + ttag + " has no R2T outstanding");
        }
        if (c.cid() != cccid) {
            throw NvmeTcpProtocolException.headerField(H2CData.OFFSET_CCCID, "CCCID " + cccid + " but TTAG " + ttag
                    + " belongs to CID " + c.cid());
        }
        return c;
    }

    private void afterH2CData(Command c) {
        if (!c.r2tComplete()) {
            return;
        }
        if (c.state() == CommandState.DRAINING) {
            // the aborted command's last R2T is satisfied: its TTAG is free again (its CID already was)
            c.transitionTo(CommandState.DONE);
            commands.remove(c);
        } else if (!c.allDataReceived()) {
            sendNextR2T(c);
        } else if (!c.transportStatus().isSuccess()) {
            pair.end(c, c.transportStatus());
        } else {
            ready(c);
        }
    }

    // ---------------------------------------------------------------- Fused operations (Base §3.4.2)

    /**
     * The submission queue's order is the capsules' order: a command with FUSE = first is paired with the capsule
     * right after it when that one has FUSE = second. A first followed by anything else, and a second not right after
     * a first, go to the NVMe layer alone, which ends them with Command Aborted due to Missing Fused Command.
     */
    private void pairFused(Command c) {
        Command first = fusedFirst;
        fusedFirst = null;
        if (first != null) {
            if (c.fuse() == Sqe.FUSE_SECOND) {
                first.fuseWith(c);
            } else if (first.state() == CommandState.AWAITING_FUSED) {
                execute(first);   // it waited to see this capsule: not its second
            }
        }
        if (c.fuse() == Sqe.FUSE_FIRST) {
            fusedFirst = c;
        }
    }

    /**
     * A command whose data is all here: executes it, unless it is half of a fused operation whose other half is not
     * ready (or, for a first, not even seen yet): then it waits (AWAITING_FUSED) and the later one submits both.
     */
    private void ready(Command c) {
        Command partner = c.fusedPartner();
        boolean firstAwaitingNext = c == fusedFirst;
        if (firstAwaitingNext || partner != null && partner.state() != CommandState.AWAITING_FUSED) {
            c.transitionTo(CommandState.AWAITING_FUSED);
        } else if (partner == null) {
            execute(c);
        } else if (c.fuse() == Sqe.FUSE_FIRST) {
            executeFused(c, partner);
        } else {
            executeFused(partner, c);
        }
    }

    /**
     * {@code c} ends without reaching the NVMe layer (a transport error, an abort): a partner waiting for it goes on
     * alone (Missing Fused Command), and a first no longer waits for the next capsule.
     */
    private void dropFused(Command c) {
        if (fusedFirst == c) {
            fusedFirst = null;
        }
        Command partner = c.unfuse();
        if (partner != null && partner.state() == CommandState.AWAITING_FUSED) {
            execute(partner);
        }
    }

    private void executeFused(Command first, Command second) {
        first.unfuse();
        first.transitionTo(CommandState.EXECUTING);
        second.transitionTo(CommandState.EXECUTING);
        pair.submitFused(first, second);
    }

    // ---------------------------------------------------------------- Abort (Base §5.1)

    @Override
    public void abort(int cid, java.util.function.Consumer<Boolean> done) {
        if (ctx.executor().inEventLoop()) {
            done.accept(abortOnLoop(cid));
            return;
        }
        try {
            ctx.executor().execute(() -> done.accept(abortOnLoop(cid)));
        } catch (RejectedExecutionException e) {
            done.accept(false);
        }
    }

    /**
     * A command still waiting for host data has not reached the NVMe layer: it completes now with Command Abort
     * Requested and its CID is free; the rest of the R2T already sent is drained (DRAINING). One that is executing
     * waits on a backend that cannot cancel, and is reported not aborted.
     */
    private boolean abortOnLoop(int cid) {
        Command c = state == ConnectionState.LIVE ? commands.byCid(cid) : null;
        if (c != null && c.state() == CommandState.AWAITING_FUSED) {
            // its data is here, it waits for its fused partner: it never reached the NVMe layer
            pair.end(c, NvmeStatus.ABORTED_BY_REQUEST);
            LOG.log(Level.INFO, "{0}: CID {1} aborted while waiting for its fused partner", identity(), cid);
            return true;
        }
        if (c == null || c.state() != CommandState.AWAITING_H2C_DATA) {
            return false;
        }
        dropFused(c);
        c.releaseData();
        c.transitionTo(CommandState.DRAINING);
        commands.releaseCid(c);
        pair.end(c, NvmeStatus.ABORTED_BY_REQUEST);   // the response goes out; the slot stays DRAINING
        if (c.r2tComplete()) {
            c.transitionTo(CommandState.DONE);
            commands.remove(c);
        }
        LOG.log(Level.INFO, "{0}: CID {1} aborted while waiting for data", identity(), cid);
        return true;
    }

    // ---------------------------------------------------------------- Execution

    private void execute(Command c) {
        c.transitionTo(CommandState.EXECUTING);
        pair.submit(c);
    }

    // ---------------------------------------------------------------- NvmeTransportOps

    /**
     * Ends a command ({@link NvmeQueuePair} built {@code cqe}): C2HData (capped at the SGL length), then CapsuleResp
     * unless SUCCESS said it all. After the close nothing goes on the wire; a DRAINING command (aborted while its
     * data was still coming) gets its response and keeps its slot until the data is in.
     */
    @Override
    public void queueResponse(NvmeRequest r, Cqe cqe, ByteBuf dataIn) {
        Command c = (Command) r;
        try {
            c.releaseData();
            if (state == ConnectionState.CLOSING) {
                endAfterClose(c);   // nothing goes on the wire any more
                return;
            }
            if (c.state() == CommandState.DONE) {
                return;
            }
            if (c.state() == CommandState.DRAINING) {
                sender.sendResponse(cqe);
                return;
            }
            if (c.state() != CommandState.EXECUTING) {
                dropFused(c);   // ended by the transport itself, never reached the NVMe layer
            }
            int length = dataIn == null || c.direction() != TransferDirection.CONTROLLER_TO_HOST ? 0
                    : (int) Math.min(dataIn.readableBytes(), c.sqe().dptr().lengthUnsigned());
            boolean successFlag = cqe.status().isSuccess() && length > 0 && pair.sqFlowControlDisabled();
            // an error with data: the part transferred before it (a fault rule's partial transfer), then the
            // CapsuleResp with the error (§3.6.2.8: SUCCESS only for a command that completed successfully)
            if (length > 0) {
                c.transitionTo(CommandState.SENDING_C2H);
                // all of it, the usual case: no slice (a derived buffer per read)
                sender.sendC2HData(c.cid(), length == dataIn.readableBytes() ? dataIn
                        : dataIn.slice(dataIn.readerIndex(), length), successFlag);
            }
            c.transitionTo(CommandState.DONE);
            commands.remove(c);
            if (!successFlag) {
                sender.sendResponse(cqe);
            }
        } finally {
            release(dataIn);
        }
    }

    @Override
    public boolean inLoop() {
        return ctx.executor().inEventLoop();
    }

    @Override
    public boolean execute(Runnable task) {
        try {
            ctx.executor().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The Connect bound a queue: the table grows to its entries, in-capsule data to its limits. */
    @Override
    public void connected(NvmeQueue queue, ConnectData cd) {
        transitionTo(ConnectionState.LIVE);
        int qid = queue.qid();
        commands = new CommandTable(queue.entries(), commandStates);
        decoder.framing(decoder.framing().withMaxInCapsuleData(
                qid == 0 ? limits.adminInCapsuleDataBytes() : controllerLimits().ioInCapsuleDataBytes()));
        // the admin queue's Connect is the session event (with the controller's line); I/O queues only at DEBUG
        if (qid > 0 || logAdmitted()) {
            LOG.log(qid == 0 ? Level.INFO : Level.DEBUG, "{0}: connected {1} host {2} (entries {3})", identity(),
                    cd.subnqn(), cd.hostnqn(), queue.entries());
        }
    }

    /** Runs {@code task} on this connection's event loop; if that loop is gone, only releases {@code owned}. */
    private void onLoop(Runnable task, ByteBuf owned) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            release(owned);
        }
    }

    // ---------------------------------------------------------------- Teardown

    @Override
    public void terminate(String reason) {
        onLoop(() -> close(Level.INFO, "terminated by the controller: " + reason), null);
    }

    /** Tier-3 error (DESIGN.md §6): log once with the connection's identity, C2HTermReq, close once it is sent. */
    private void fatal(String reason, TermReq termReq) {
        if (teardown(Level.WARNING, "fatal: " + reason)) {
            sender.sendAndClose(termReq);
        }
    }

    /** A fatal error found without the offending PDU's header at hand: the TermReq carries no header copy. */
    private void fatal(NvmeTcpProtocolException e) {
        int fes = e.reason().fes().orElse(NvmeTcpFatalError.PDU_SEQUENCE_ERROR.fes().orElseThrow());
        fatal(e.getMessage(), new TermReq(NvmeTcpPduType.C2H_TERM_REQ, fes,
                e.reason().feiIsOffset() ? e.fei() : 0, new byte[0]));
    }

    private void close(Level level, String reason) {
        if (teardown(level, reason) && ctx.channel().isActive()) {
            sender.flushBeforeClose();
            ctx.close();
        }
    }

    /** Moves to CLOSING once: logs, releases gathered data, closes the queue. False when already closing. */
    private boolean teardown(Level level, String reason) {
        if (state == ConnectionState.CLOSING) {
            return false;
        }
        transitionTo(ConnectionState.CLOSING);
        // a stalled connection ends now, dropping what the stall kept: a C2HTermReq closes only once it is written
        StallHandler.abandon(ctx.channel());
        // protocol errors (WARNING) and session events (INFO) are rate-limited per peer, each on its own budget
        if (level == Level.WARNING ? errorLog.admit(ctx.channel().remoteAddress())
                : level != Level.INFO || logAdmitted()) {
            LOG.log(level, "{0}: {1}", identity(), reason);
        }
        commands.forEach(c -> {
            // an executing command's data stays alive until the NVMe layer completes it (NvmeQueue.submit)
            if (c.state() != CommandState.EXECUTING) {
                c.releaseData();
            }
        });
        pair.close();
        // the code that closed may still be handling a command further up the stack: the commands end after it
        try {
            ctx.executor().execute(this::endCommands);
        } catch (RejectedExecutionException e) {
            // the event loop is gone with the server: nothing runs on it any more
        }
        return true;
    }

    /**
     * After the close: every command the NVMe layer does not hold ends now (DONE, no response); each one it holds ends
     * when it completes ({@link #endAfterClose}). Once none is left, the teardown check runs.
     */
    private void endCommands() {
        commandsEnding = true;
        fusedFirst = null;
        commands.forEach(c -> {
            if (c.state() != CommandState.EXECUTING) {
                endAfterClose(c);
            }
        });
        checkTeardown();
    }

    /** {@code c} ends after the close (by the teardown, or completed by the NVMe layer): DONE, nothing sent. */
    private void endAfterClose(Command c) {
        c.releaseData();
        if (c.state() != CommandState.DONE) {
            c.unfuse();
            c.transitionTo(CommandState.DONE);
            commands.remove(c);
        }
        checkTeardown();
    }

    /**
     * SPDK's qpair-teardown check: once the last command of the closed connection ended, every command counted must
     * be DONE; any other count is a command lost on some path (a leak): one WARN line lists them by state.
     */
    private void checkTeardown() {
        if (!commandsEnding || teardownChecked || !commands.isEmpty()) {
            return;
        }
        teardownChecked = true;
        String stragglers = commandStates.stragglers();
        if (!stragglers.isEmpty()) {
            LOG.log(Level.WARNING, "{0}: commands not ended at teardown: {1}", identity(), stragglers);
        }
    }

    /** The commands of this connection by state (read from any thread; DONE counts every command ended). */
    StateCounters<CommandState> commandStates() {
        return commandStates;
    }

    @Override
    public java.util.Map<String, Long> commandCounts() {
        return commandStates.snapshot();
    }

    /** The one place the connection state changes: checked, and traced at DEBUG (INFO lines are per event). */
    private void transitionTo(ConnectionState next) {
        LOG.log(Level.DEBUG, "{0}: {1} -> {2}", identity(), state, next);
        state = ConnectionState.MACHINE.transition(state, next);
    }

    private String identity() {
        NvmeQueue queue = pair.queue();
        return "NVMe/TCP " + peerAddress() + (queue == null ? "" : " cntlid " + queue.cntlid() + " qid " + queue.qid());
    }

    private static void release(Object msg) {
        if (msg instanceof Inbound.Pdu(NvmeTcpPdu pdu, ByteBuf frame)) {
            pdu.release();
            frame.release();
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    // ---------------------------------------------------------------- NvmeHostConnection

    @Override
    public java.util.Optional<io.blocktarget.nvme.TlsSession> tlsSession() {
        return java.util.Optional.ofNullable(tls);
    }

    /** The TLS handshake in front of this connection completed with the PSK of {@code session} (event loop). */
    void tlsEstablished(io.blocktarget.nvme.TlsSession session) {
        this.tls = session;
    }

    /** Session-event lines of this peer are bounded per minute (the transport's budget, shared by its connections). */
    @Override
    public boolean logAdmitted() {
        return errorLog.events().admit(ctx.channel().remoteAddress());
    }

    @Override
    public String peerAddress() {
        SocketAddress a = ctx.channel().remoteAddress();
        return a instanceof InetSocketAddress i ? i.getAddress().getHostAddress() + ":" + i.getPort() : String.valueOf(a);
    }

    @Override
    public String localAddress() {
        SocketAddress a = ctx.channel().localAddress();
        return a instanceof InetSocketAddress i ? i.getAddress().getHostAddress() : "0.0.0.0";
    }

    /**
     * A fault rule hit a command of this queue (any thread). Drop: closed at once, no completion. Stall: see
     * {@link StallHandler}. Corrupt digest: the next PDU with that digest (HDGST / DDGST only when the ICReq asked
     * for it, NVMe/TCP §3.6.1.2). Async logout is iSCSI's: not applicable.
     */
    @Override
    public boolean applyFault(FaultAction.ConnectionFault fault, ActiveRule rule) {
        String id = "fault rule " + rule.rule().id();
        switch (fault) {
            case FaultAction.DropConnection _ -> onLoop(() -> close(Level.INFO, id + ": connection dropped"), null);
            case FaultAction.StallConnection stall -> onLoop(() -> {
                if (state == ConnectionState.CLOSING || StallHandler.stalled(ctx.channel())) {
                    return;
                }
                LOG.log(Level.INFO, "{0}: {1}: stalled ({2}) {3}", identity(), id, stall.direction(),
                        stall.nanos() == 0 ? "until the rule is removed" : "for " + stall.nanos() / 1_000_000 + " ms");
                StallHandler.stall(ctx.channel(), stall, rule, () -> LOG.log(Level.INFO, "{0}: {1}: stall ended",
                        identity(), id));
            }, null);
            case FaultAction.CorruptDigest corrupt -> {
                if (!sender.corruptNext(corrupt.digest())) {
                    return false;
                }
            }
            case FaultAction.AsyncLogout _ -> {
                return false;
            }
        }
        return true;
    }

    @Override
    public int localPort() {
        SocketAddress a = ctx.channel().localAddress();
        return a instanceof InetSocketAddress i ? i.getPort() : 0;
    }
}
