package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.IscsiOpcode;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.protocol.iscsi.Reject;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultConnection;
import io.blocktarget.transport.tcp.StallHandler;
import io.blocktarget.time.Clock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One iSCSI connection on its event loop (RFC 7143 §8.1): the transport's ops for everything above it
 * ({@link ConnectionIo}: StatSN, the CmdSN window, sending, Reject, the fatal path). It owns its session
 * (MaxConnections=1), its state and its close; the phases are classes of their own — {@link LoginPhase}, then
 * {@link FullFeaturePhase} (dispatch; SCSI tasks in the {@link TaskEngine}, task management in
 * {@link TaskManagement}, the {@link NopInPinger}). Nothing throws out of {@link #onMessage}.
 */
final class IscsiConnection implements ConnectionIo, FaultConnection {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi");
    private static final java.util.Map<String, Long> NO_TASKS = ScsiTask.State.MACHINE.newCounters().snapshot();
    /** Room a target PDU's header may take in {@link #headers}: its BHS and header digest (target PDUs have no AHS). */
    static final int MAX_HEADER = 64;
    /** {@link #headers}' size: some 300 data-less responses. */
    static final int HEADER_BUFFER = 16 * 1024;
    /**
     * PDUs handled in one socket read burst after which what they produced is flushed, without waiting for the
     * burst's end: a host that refills its queue as responses arrive (as the load generator does) then works on
     * the first responses while the rest of the burst is executed, instead of the two sides taking turns over whole
     * bursts. SPDK's iscsi_tgt handles at most 16 PDUs per poll and flushes after each poll (GET_PDU_LOOP_COUNT).
     * Load generator, 4 KiB randread QD32, one core each: 0.21–0.25 M IOPS with the burst flushed whole, 0.28–0.31 M
     * with a flush every 16 PDUs, 0.22–0.27 M every 8 (docs/performance.md).
     */
    static final int FLUSH_AFTER_PDUS = 16;

    private final IscsiTransport transport;
    private final ConnectionPort port;
    private final IscsiFrameDecoder decoder;
    private final LoginPhase login;
    private final TextExchange text;
    /** Set when the login completes (a discovery session has one too, without a task engine). */
    private FullFeaturePhase fullFeature;
    private NopInPinger pinger;
    private String who;
    private ConnectionState state = ConnectionState.XPT_UP;
    private Optional<IscsiSession> session = Optional.empty();
    /** Published for other event loops (cold reset); set once at login. */
    private volatile Optional<IscsiSession.Key> sessionKey = Optional.empty();
    /** Published for the control plane's session list; set once at login. */
    private volatile OperationalParameters negotiated;
    private Optional<TaskEngine> engine = Optional.empty();
    private CommandWindow window;
    private int statSN;
    private int cid;
    private Digest headerDigest = Digest.NONE;
    private Digest dataDigest = Digest.NONE;
    private final Clock clock;
    private Clock.Timer loginTimer;
    /** A fault rule's corrupt-digest: the digest of the next PDU sent that has one; null nearly always. */
    private FaultAction.DigestKind corruptNext;
    /**
     * Headers encoded by {@link #send}; what lies between its reader and writer index is not handed to the channel yet
     * (handed-over parts are retained slices: the buffer is only appended to, and replaced when full). Null until the
     * first frame, released when the connection ends.
     */
    private ByteBuf headers;
    /** Whether a socket read burst is being handled (channelRead until channelReadComplete). */
    private boolean reading;
    /**
     * The socket read burst being handled carried a PDU: the pinger's idle time restarts when the burst ends
     * ({@link #readComplete}), one clock read for all its PDUs instead of one per PDU (about 1 % of the event loop at
     * 4 KiB QD32). On the event loop, as the pinger's ticks.
     */
    private boolean heard;
    /** PDUs handled in the current read burst since its responses were last flushed ({@link #FLUSH_AFTER_PDUS}). */
    private int heldPdus;

    IscsiConnection(IscsiTransport transport, ConnectionPort port, IscsiFrameDecoder decoder) {
        this(transport, port, decoder, transport.settings().portalGroupTag());
    }

    /**
     * @param portalGroupTag the TPGT of the portal the connection arrived on: its login answers it, and its sessions'
     *                       SCSI target port is that group's (relative target port = the tag, issue 29)
     */
    IscsiConnection(IscsiTransport transport, ConnectionPort port, IscsiFrameDecoder decoder, int portalGroupTag) {
        this.transport = transport;
        this.port = port;
        this.decoder = decoder;
        this.who = "iSCSI " + port.remoteAddress() + " -> " + port.localAddress();
        this.clock = transport.clock();
        this.login = new LoginPhase(this, transport, portalGroupTag);
        this.text = new TextExchange(this, transport);
        this.pinger = new NopInPinger(this, clock, transport::settings, () -> state == ConnectionState.LOGGED_IN);
        this.loginTimer = clock.schedule(port.executor(), transport.settings().loginTimeout().toNanos(),
                this::onLoginTimeout);
    }

    String who() {
        return who;
    }

    ConnectionState state() {
        return state;
    }

    Optional<IscsiSession> session() {
        return session;
    }

    ConnectionPort port() {
        return port;
    }

    /**
     * This connection's SCSI tasks by state, every state listed (issue 27: {@code sessions --json}); any thread — before
     * full feature phase (or on a discovery session) all zero.
     */
    java.util.Map<String, Long> commandCounts() {
        Optional<TaskEngine> e = engine;
        return e.isPresent() ? e.get().taskStates().snapshot() : NO_TASKS;
    }

    /** The task counters of full feature phase; null before it (or on a discovery session). Tests. */
    io.blocktarget.state.StateCounters<ScsiTask.State> taskStates() {
        Optional<TaskEngine> e = engine;
        return e.map(TaskEngine::taskStates).orElse(null);
    }

    private void transitionTo(ConnectionState next) {
        state = States.transition(who, ConnectionState.MACHINE, state, next);
    }

    /** Hands the headers not yet handed over to the channel, flushed ({@code flush}) or not. */
    private void handOver(boolean flush) {
        if (headers == null || !headers.isReadable()) {
            return;
        }
        ByteBuf part = headers.readRetainedSlice(headers.readableBytes());
        if (flush) {
            port.write(part);
        } else {
            port.writePart(part);
        }
    }

    /** A socket read burst began (channelRead of received bytes, before they are decoded). */
    void readStarted() {
        reading = true;
    }

    /** The socket read burst ended (channelReadComplete): its responses go out together. */
    void readComplete() {
        reading = false;
        heldPdus = 0;
        handOver(true);
        if (heard) {
            heard = false;
            pinger.activity();
        }
    }

    /** Entry point for everything the decoder emits; releases what it is handed. */
    void onMessage(Object message) {
        try {
            if (state == ConnectionState.FREE || state == ConnectionState.IN_LOGOUT) {
                ReferenceCountUtil.release(message instanceof InitiatorPdu p ? p.data() : message);
                return;
            }
            heard = true;
            switch (message) {
                case IscsiFrameDecoder.FrameError(IscsiProtocolException e) -> frameError(e);
                case InitiatorPdu pdu -> {
                    if (state == ConnectionState.LOGGED_IN) {
                        fullFeature.onPdu(pdu);
                    } else {
                        login.onPdu(pdu);
                    }
                }
                default -> {
                    ReferenceCountUtil.release(message);
                    fatal("unexpected message " + message.getClass().getSimpleName());
                }
            }
            if (reading && ++heldPdus == FLUSH_AFTER_PDUS) {
                heldPdus = 0;
                handOver(false);
                port.flushHeld();
            }
        } catch (RuntimeException e) {
            fatal("internal error: " + e);
        }
    }

    // ---- login (LoginPhase calls these) ----------------------------------------------------------------

    /** The first Login Request: IN_LOGIN, StatSN from its ExpStatSN, the CmdSN window from its CmdSN (§6.2). */
    void beginLogin(LoginRequest request) {
        if (state != ConnectionState.XPT_UP) {
            return;
        }
        transitionTo(ConnectionState.IN_LOGIN);
        statSN = request.expStatSN();
        cid = request.cid();
        window = new CommandWindow(request.cmdSN(), transport.settings().queueDepth(), this::activeTasks);
    }

    /** The tasks the window counts against the queue depth (MaxCmdSN, twice per command: no Optional.map boxing). */
    private int activeTasks() {
        Optional<TaskEngine> e = engine;
        return e.isPresent() ? e.get().activeTasks() : 0;
    }

    CommandWindow window() {
        return window;
    }

    /** The final login registered {@code s}: the connection serves it (its task engine, if a normal session). */
    void adopt(IscsiSession s, IscsiSession.Key key, OperationalParameters params, Optional<TaskEngine> taskEngine) {
        session = Optional.of(s);
        sessionKey = Optional.of(key);
        who = who + " " + s;
        negotiated = params;
        engine = taskEngine;
        text.parameters(params);
    }

    /**
     * The final Login Response is out: digests start with the next PDU (§13.1), frames are capped at our
     * MaxRecvDataSegmentLength, the session and the connection are LOGGED_IN, the pinger starts.
     */
    void enterFullFeature(IscsiSettings settings) {
        OperationalParameters params = negotiated;
        headerDigest = params.headerDigest();
        dataDigest = params.dataDigest();
        decoder.limits(new FrameLimits(PduSource.INITIATOR, settings.maxRecvDataSegmentLength(), Bhs.MAX_AHS_LENGTH,
                headerDigest, dataDigest));
        fullFeature = new FullFeaturePhase(this, engine, text, pinger, cid);
        session.orElseThrow().transitionTo(SessionState.LOGGED_IN);
        transitionTo(ConnectionState.LOGGED_IN);
        loginTimer.cancel();
        pinger.start();
    }

    private void onLoginTimeout() {
        if (state == ConnectionState.XPT_UP || state == ConnectionState.IN_LOGIN) {
            fatal("login not completed within " + transport.settings().loginTimeout());
        }
    }

    // ---- full feature phase (FullFeaturePhase, TaskManagement call these) -------------------------------

    /** A Logout closing the session or this connection was answered (§11.14): IN_LOGOUT, closed after the flush. */
    void loggingOut() {
        transitionTo(ConnectionState.IN_LOGOUT);
        closeAfterFlush();
    }

    /** A TARGET COLD RESET was answered (§11.5.1): every connection to the target closes, this one after the flush. */
    void coldReset(String targetName) {
        transport.closeSessionsOf(targetName, this, "TARGET COLD RESET by " + who);
        closeAfterFlush();
    }

    private void frameError(IscsiProtocolException e) {
        if (e.reason().disposition() == IscsiProtocolException.Disposition.CLOSE_CONNECTION
                || state != ConnectionState.LOGGED_IN) {
            fatal(e.getMessage());
            return;
        }
        byte[] header = e.header();
        sendReject(e.reason().rejectReason().orElse(RejectReason.PROTOCOL_ERROR), header);
        ByteBuf bhs = Unpooled.wrappedBuffer(header);
        if (e.reason() == IscsiProtocolException.Reason.DATA_DIGEST_ERROR && header.length >= Bhs.LENGTH
                && Bhs.opcodeCode(bhs, 0) == IscsiOpcode.DATA_OUT.code()) {
            // §7.8 at ErrorRecoveryLevel 0: the write's data is incomplete; the task fails once its data has
            // arrived, the session goes on.
            fullFeature.dataOutLost(Bhs.itt(bhs, 0), Bhs.ttt(bhs, 0), Bhs.finalBit(bhs, 0));
        }
    }

    // ---- ConnectionIo ------------------------------------------------------------------------------

    @Override
    public int nextStatSN() {
        return statSN++;
    }

    @Override
    public int statSN() {
        return statSN;
    }

    @Override
    public int expCmdSN() {
        return window.expCmdSN();
    }

    @Override
    public int maxCmdSN() {
        return window.maxCmdSN();
    }

    /**
     * Frames go out in the order sent. The header of each is encoded into {@link #headers}; a data-less PDU's header
     * (a write's SCSI Response, an R2T) sent while a socket read burst is handled stays there until the burst ends
     * ({@link #readComplete}), until a PDU with data follows, or until the buffer is full, so that the responses of
     * one burst reach the channel as one buffer (one write, one iovec) instead of a pooled buffer, a channel write and
     * an iovec each — NVMe/TCP's PduSender does the same. Outside a read burst (timers, completions hopping back from
     * another thread) every frame is handed over at once.
     */
    @Override
    public void send(TargetPdu pdu) {
        if (state == ConnectionState.FREE) {
            pdu.release();
            return;
        }
        if (corruptNext == null) {
            ByteBuf data = pdu.data();
            if (headers == null || headers.writableBytes() < MAX_HEADER) {
                handOver(false);
                if (headers != null) {
                    headers.release();   // the slices handed over keep what they cover
                }
                headers = port.alloc().directBuffer(HEADER_BUFFER);
            }
            int start = headers.writerIndex();
            try {
                IscsiFraming.encodeHeader(pdu, headers, headerDigest);
            } catch (RuntimeException e) {
                headers.writerIndex(start);   // nothing half-encoded goes on the wire
                data.release();
                throw e;
            }
            if (!data.isReadable()) {
                data.release();
                if (!reading) {
                    handOver(true);
                }
                return;
            }
            handOver(false);
            PduWriter.writeData(data, port.alloc(), dataDigest, port);
            return;
        }
        handOver(false);
        ByteBuf frame = PduWriter.frame(pdu, port.alloc(), headerDigest, dataDigest);
        if (PduWriter.corruptDigest(frame, corruptNext == FaultAction.DigestKind.HEADER)) {
            LOG.log(Level.INFO, "{0}: fault rule: sent {1} with a wrong {2} digest", who, pdu.opcode(),
                    corruptNext == FaultAction.DigestKind.HEADER ? "header" : "data");
            corruptNext = null;
        }
        port.write(frame);
    }

    // ---- fault rules' connection faults ----------------------------------------------------------------

    /**
     * A fault rule hit a command of this connection (any thread). Drop: closed at once, no response. Stall: see
     * {@link StallHandler}. Corrupt digest: the next PDU with that digest (only when it was negotiated, RFC 7143
     * §13.1). Async logout: AsyncEvent 1 (§11.9.1) with Parameter3 = the rule's seconds; dropped if no Logout by then.
     */
    @Override
    public boolean applyFault(FaultAction.ConnectionFault fault, ActiveRule rule) {
        String id = "fault rule " + rule.rule().id();
        switch (fault) {
            case FaultAction.DropConnection _ -> onLoop(() -> shutDown(Level.INFO, id + ": connection dropped"));
            case FaultAction.StallConnection stall -> onLoop(() -> {
                if (state != ConnectionState.LOGGED_IN || StallHandler.stalled(port.channel())) {
                    return;
                }
                LOG.log(Level.INFO, "{0}: {1}: stalled ({2}) {3}", who, id, stall.direction(),
                        stall.nanos() == 0 ? "until the rule is removed" : "for " + stall.nanos() / 1_000_000 + " ms");
                StallHandler.stall(port.channel(), stall, rule, () -> LOG.log(Level.INFO, "{0}: {1}: stall ended",
                        who, id));
            });
            case FaultAction.CorruptDigest corrupt -> {
                OperationalParameters p = negotiated;
                Digest negotiatedDigest = p == null ? Digest.NONE
                        : corrupt.digest() == FaultAction.DigestKind.HEADER ? p.headerDigest() : p.dataDigest();
                if (negotiatedDigest == Digest.NONE) {
                    return false; // nothing to corrupt: the rule counts it as not applicable
                }
                onLoop(() -> corruptNext = corrupt.digest());
            }
            case FaultAction.AsyncLogout logout -> {
                if (negotiated == null || sessionType() == SessionType.DISCOVERY) {
                    return false;
                }
                requestLogoutFromElsewhere(logout.seconds(), id);
            }
        }
        return true;
    }

    private void onLoop(Runnable task) {
        if (port.executor().inEventLoop()) {
            task.run();
        } else {
            port.executor().execute(task);
        }
    }

    @Override
    public void reject(RejectReason reason, InitiatorPdu offending) {
        ByteBuf header = Unpooled.buffer(Bhs.LENGTH + Bhs.MAX_AHS_LENGTH);
        offending.encodeHeader(header);
        byte[] bhs = new byte[Bhs.LENGTH];
        header.getBytes(0, bhs);
        header.release();
        sendReject(reason, bhs);
    }

    private void sendReject(RejectReason reason, byte[] header) {
        send(new Reject(reason, nextStatSN(), window.expCmdSN(), window.maxCmdSN(), 0,
                Unpooled.wrappedBuffer(header)));
    }

    /** Whether one more session-event line (login, logout, close) of this peer may be logged now. */
    boolean sessionEventAdmitted() {
        return transport.errorLog().events().admit(port.remoteAddress());
    }

    @Override
    public void fatal(String reason) {
        shutDown(Level.WARNING, reason);
    }

    /** Logs once with the connection's identity, closes the socket and frees everything. */
    private void shutDown(Level level, String reason) {
        if (state == ConnectionState.FREE) {
            return;
        }
        // protocol errors (WARNING) and session events (INFO) are rate-limited per peer, each on its own budget
        if (level == Level.WARNING ? transport.errorLog().admit(port.remoteAddress()) : sessionEventAdmitted()) {
            LOG.log(level, "{0}: closing connection: {1}", who, reason);
        }
        // a stalled connection the target ends (reinstatement, drop, NOP-In timeout) closes now, dropping what the
        // stall kept: the port's close writes (and waits for) a flush first, which the stall would hold for ever
        StallHandler.abandon(port.channel());
        handOver(false);   // the responses of the burst so far go out before the close, as before
        port.close();
        closed();
    }

    @Override
    public EventExecutor executor() {
        return port.executor();
    }

    @Override
    public ByteBufAllocator alloc() {
        return port.alloc();
    }

    // ---- closing -----------------------------------------------------------------------------------

    /**
     * Called from another thread when the session's target goes away: RFC 7143 §11.9.1 AsyncEvent 1, the initiator
     * must send a Logout within Parameter3 seconds; the connection is dropped if it has not by then (§11.9: the
     * target may drop a connection that does not honour the request).
     */
    void requestLogoutFromElsewhere(int seconds, String reason) {
        port.executor().execute(() -> {
            if (state != ConnectionState.LOGGED_IN) {
                return;
            }
            LOG.log(Level.INFO, "{0}: asking the initiator to log out within {1} s: {2}", who, seconds, reason);
            send(new AsyncMessage(0, nextStatSN(), window.expCmdSN(), window.maxCmdSN(), AsyncEvent.LOGOUT_REQUEST, 0,
                    0, 0, seconds, Unpooled.EMPTY_BUFFER));
            clock.schedule(port.executor(), TimeUnit.SECONDS.toNanos(seconds), () -> {
                if (state != ConnectionState.FREE) {
                    shutDown(Level.INFO, "no Logout within " + seconds + " s of the request (" + reason + ")");
                }
            });
        });
    }

    /** The negotiated operational keys, for the control plane's session list (any thread). */
    Map<String, String> negotiatedKeys() {
        OperationalParameters p = negotiated;
        if (p == null) {
            return Map.of();
        }
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("HeaderDigest", p.headerDigest().keyValue());
        keys.put("DataDigest", p.dataDigest().keyValue());
        keys.put("MaxRecvDataSegmentLength", Integer.toString(p.initiatorMaxRecvDataSegmentLength()));
        keys.put("MaxBurstLength", Integer.toString(p.maxBurstLength()));
        keys.put("FirstBurstLength", Integer.toString(p.firstBurstLength()));
        keys.put("InitialR2T", p.initialR2T() ? "Yes" : "No");
        keys.put("ImmediateData", p.immediateData() ? "Yes" : "No");
        keys.put("MaxOutstandingR2T", Integer.toString(p.maxOutstandingR2T()));
        return keys;
    }

    /** Called from another event loop (reinstatement, transport shutdown). */
    void closeFromElsewhere(String reason) {
        port.executor().execute(() -> shutDown(Level.INFO, reason));
    }

    void closeAfterFlush() {
        handOver(true);
        port.closeAfterWrites();
    }

    /** The socket is gone (closed by either side): free everything exactly once. */
    void closed() {
        if (state == ConnectionState.FREE) {
            return;
        }
        ConnectionState before = state;
        transitionTo(ConnectionState.FREE);
        if (loginTimer != null) {
            loginTimer.cancel();
        }
        pinger.cancel();
        if (headers != null) {
            headers.release();
            headers = null;
        }
        engine.ifPresent(e -> {
            String stragglers = e.close();
            if (!stragglers.isEmpty()) {
                LOG.log(Level.WARNING, "{0}: commands not ended at teardown: {1}", who, stragglers);
            }
        });
        if (window != null) {
            window.releaseHeld();
        }
        text.close();
        session.ifPresent(s -> {
            transport.registry().remove(s);
            if (s.state() == SessionState.LOGGED_IN) {
                s.transitionTo(before == ConnectionState.IN_LOGOUT ? SessionState.FREE : SessionState.FAILED);
                if (s.state() == SessionState.FAILED) {
                    if (sessionEventAdmitted()) {
                        LOG.log(Level.INFO, "{0}: session dropped", who);
                    }
                    s.transitionTo(SessionState.FREE);
                }
            }
            s.nexus().ifPresent(n -> engine.ifPresent(e -> {
                e.target().detach(n, e.nexusTasks());
                e.target().nexusLost(n);
            }));
        });
        transport.forget(this);
    }

    /**
     * The target this connection is logged in to; read from other event loops (cold reset), so it looks at the
     * immutable session key only.
     */
    Optional<String> targetName() {
        return sessionKey.map(IscsiSession.Key::targetName).filter(n -> !n.isEmpty());
    }

    /** For the text layer: the session type. */
    SessionType sessionType() {
        return session.map(IscsiSession::type).orElse(SessionType.NORMAL);
    }
}
