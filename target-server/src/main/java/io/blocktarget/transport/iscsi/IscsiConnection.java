package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.IscsiOpcode;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.LogoutResponseCode;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.protocol.iscsi.Reject;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.protocol.iscsi.SnackRequest;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TaskManagementResponse;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultConnection;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.transport.tcp.StallHandler;
import io.blocktarget.scsi.ScsiTargetDevice;
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
 * One iSCSI connection on its event loop (RFC 7143 §8.1): login, then full feature phase. It owns its
 * session (MaxConnections=1), its CmdSN window and StatSN, its tasks, the NOP-In pinger, and the single
 * {@link #fatal} path. Nothing throws out of {@link #onMessage}.
 */
final class IscsiConnection implements ConnectionIo, FaultConnection {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi");
    private static final java.util.Map<String, Long> NO_TASKS = ScsiTask.State.MACHINE.newCounters().snapshot();

    private enum Ping { IDLE, OUTSTANDING }

    private final IscsiTransport transport;
    private final ConnectionPort port;
    private final IscsiFrameDecoder decoder;
    private final LoginExchange login;
    private final TextExchange text;
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
    private Clock.Timer pingTimer;
    private Ping ping = Ping.IDLE;
    private int pingTtt;
    private long pingSentNanos;
    private long lastActivityNanos;
    /** A fault rule's corrupt-digest: the digest of the next PDU sent that has one; null nearly always. */
    private FaultAction.DigestKind corruptNext;

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
        this.login = new LoginExchange(transport.settings().withPortalGroupTag(portalGroupTag), transport.targets(),
                transport.registry()::exists, who);
        this.text = new TextExchange(this, transport);
        this.clock = transport.clock();
        this.lastActivityNanos = clock.nanoTime();
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

    /** Entry point for everything the decoder emits; releases what it is handed. */
    void onMessage(Object message) {
        try {
            if (state == ConnectionState.FREE || state == ConnectionState.IN_LOGOUT) {
                ReferenceCountUtil.release(message instanceof InitiatorPdu p ? p.data() : message);
                return;
            }
            lastActivityNanos = clock.nanoTime();
            switch (message) {
                case IscsiFrameDecoder.FrameError(IscsiProtocolException e) -> frameError(e);
                case InitiatorPdu pdu -> {
                    if (state == ConnectionState.LOGGED_IN) {
                        fullFeature(pdu);
                    } else {
                        loginPhase(pdu);
                    }
                }
                default -> {
                    ReferenceCountUtil.release(message);
                    fatal("unexpected message " + message.getClass().getSimpleName());
                }
            }
        } catch (RuntimeException e) {
            fatal("internal error: " + e);
        }
    }

    // ---- login -------------------------------------------------------------------------------------

    private void loginPhase(InitiatorPdu pdu) {
        if (!(pdu instanceof LoginRequest request)) {
            pdu.release();
            fatal(pdu.opcode() + " during login");
            return;
        }
        try {
            if (state == ConnectionState.XPT_UP) {
                transitionTo(ConnectionState.IN_LOGIN);
                statSN = request.expStatSN();
                cid = request.cid();
                window = new CommandWindow(request.cmdSN(), transport.settings().queueDepth(),
                        () -> engine.map(TaskEngine::activeTasks).orElse(0));
            }
            LoginStep step = login.handle(request);
            // The target's CmdSN window from the first Login Response on: an initiator never lowers its MaxCmdSN
            // (RFC 7143 §4.2.2.1 b), so a window opened wider during login could not be narrowed afterwards.
            window.queueDepth(login.settings().queueDepth());
            switch (step) {
                case LoginStep.Respond r -> sendLogin(request, r.flags(), LoginStatus.SUCCESS, 0, encode(r.keys()));
                case LoginStep.Complete c -> {
                    try {
                        completeLogin(request, c);
                    } catch (RuntimeException e) {
                        if (state != ConnectionState.IN_LOGIN) {
                            throw e;
                        }
                        // §11.13.5: 0300 target error when the session cannot be set up.
                        LOG.log(Level.WARNING, "{0}: login failed on the target side: {1}", who, e.toString());
                        sendLogin(request, new LoginFlags(false, false, request.flags().csg(), request.flags().csg()),
                                LoginStatus.TARGET_ERROR, 0, Unpooled.EMPTY_BUFFER);
                        session.ifPresent(transport.registry()::remove);
                        closeAfterFlush();
                    }
                }
                case LoginStep.Fail f -> {
                    if (transport.errorLog().admit(port.remoteAddress())) {
                        LOG.log(Level.INFO, "{0}: login refused {1} ({2}): {3}", who, f.status(),
                                String.format("%02x%02x", f.status().statusClass(), f.status().statusDetail()), f.why());
                    }
                    sendLogin(request, new LoginFlags(false, false,
                            request.flags().csg(), request.flags().csg()), f.status(), 0, Unpooled.EMPTY_BUFFER);
                    closeAfterFlush();
                }
            }
        } finally {
            request.release();
        }
    }

    private static ByteBuf encode(TextParameters keys) {
        if (keys.isEmpty()) {
            return Unpooled.EMPTY_BUFFER;
        }
        ByteBuf b = Unpooled.buffer(keys.encodedLength());
        keys.encode(b);
        return b;
    }

    private void sendLogin(LoginRequest request, LoginFlags flags, LoginStatus status,
                           int tsih, ByteBuf data) {
        send(new LoginResponse(flags, LoginExchange.VERSION, LoginExchange.VERSION, request.isid(), tsih,
                request.itt(), nextStatSN(), window.expCmdSN(), window.maxCmdSN(), status, data));
    }

    private void completeLogin(LoginRequest request, LoginStep.Complete c) {
        LoginResult result = c.result();
        // the target's settings as this login read them: later knob changes reach new sessions only
        IscsiSettings settings = login.settings();
        String targetName = result.target().map(ScsiTargetDevice::targetName).orElse("");
        Optional<ItNexus> nexus = result.target().map(t -> new ItNexus(
                IscsiSession.initiatorPortName(result.initiatorName(), result.isid()),
                IscsiSession.targetPortName(t.targetName(), settings.portalGroupTag()), settings.portalGroupTag()));
        IscsiSession.Key key = new IscsiSession.Key(result.initiatorName(), result.isid(), targetName,
                settings.portalGroupTag());
        Optional<SessionRegistry.Registered> registered = transport.registry().register(key,
                tsih -> new IscsiSession(tsih, key, result.sessionType(), nexus, this));
        if (registered.isEmpty()) {
            sendLogin(request, c.flags(), LoginStatus.OUT_OF_RESOURCES, 0, Unpooled.EMPTY_BUFFER);
            closeAfterFlush();
            return;
        }
        IscsiSession s = registered.get().session();
        session = Optional.of(s);
        sessionKey = Optional.of(key);
        who = who + " " + s;
        registered.get().replaced().ifPresent(old -> {
            if (sessionEventAdmitted()) {
                LOG.log(Level.INFO, "{0}: reinstates {1}", who, old);
            }
            old.connection().closeFromElsewhere("session reinstated by tsih=" + s.tsih());
        });
        OperationalParameters params = result.parameters();
        negotiated = params;
        engine = result.target().map(t -> new TaskEngine(this, t, nexus.orElseThrow(), params,
                settings.maxTransferLength(), settings.queueDepth()));
        engine.ifPresent(en -> en.target().attach(en.nexus(), en.nexusTasks()));
        text.parameters(params);
        sendLogin(request, c.flags(), LoginStatus.SUCCESS, s.tsih(), encode(c.keys()));
        // §13.1: digests start with the first PDU after the final Login Response.
        headerDigest = params.headerDigest();
        dataDigest = params.dataDigest();
        decoder.limits(new FrameLimits(PduSource.INITIATOR, settings.maxRecvDataSegmentLength(), Bhs.MAX_AHS_LENGTH,
                headerDigest, dataDigest));
        s.transitionTo(SessionState.LOGGED_IN);
        transitionTo(ConnectionState.LOGGED_IN);
        loginTimer.cancel();
        startPinger();
        if (sessionEventAdmitted()) {
            LOG.log(Level.INFO, "{0}: logged in ({1}, HeaderDigest={2}, DataDigest={3}, MaxRecvDataSegmentLength={4},"
                            + " MaxBurstLength={5}, FirstBurstLength={6}, InitialR2T={7}, ImmediateData={8})", who,
                    result.sessionType().keyValue(), headerDigest.keyValue(), dataDigest.keyValue(),
                    Integer.toString(params.initiatorMaxRecvDataSegmentLength()),
                    Integer.toString(params.maxBurstLength()), Integer.toString(params.firstBurstLength()),
                    params.initialR2T(), params.immediateData());
        }
    }

    private void onLoginTimeout() {
        if (state == ConnectionState.XPT_UP || state == ConnectionState.IN_LOGIN) {
            fatal("login not completed within " + transport.settings().loginTimeout());
        }
    }

    // ---- full feature phase ------------------------------------------------------------------------

    private void fullFeature(InitiatorPdu pdu) {
        switch (pdu) {
            case DataOut out -> engineOr(pdu).ifPresent(e -> e.dataOut(out));
            case NopOut nop when nop.itt() == Bhs.RESERVED_TAG -> {
                // §11.18: an answer to our NOP-In ping (or a pure ExpStatSN update): no CmdSN, no response.
                if (ping == Ping.OUTSTANDING && nop.ttt() == pingTtt) {
                    ping = Ping.IDLE;
                }
                nop.release();
            }
            case SnackRequest snack -> {
                // ErrorRecoveryLevel 0: SNACK is not supported (§11.16, as LIO answers it).
                reject(RejectReason.PROTOCOL_ERROR, snack);
            }
            case LoginRequest l -> {
                reject(RejectReason.PROTOCOL_ERROR, l);
                l.release();
            }
            default -> ordered(pdu);
        }
    }

    private Optional<TaskEngine> engineOr(InitiatorPdu pdu) {
        if (engine.isEmpty()) {
            // §4.2.2: a discovery session carries no SCSI traffic.
            reject(RejectReason.PROTOCOL_ERROR, pdu);
            pdu.release();
        }
        return engine;
    }

    /** PDUs that carry a CmdSN go through the window (§4.2.2.1). */
    private void ordered(InitiatorPdu pdu) {
        boolean immediate;
        int cmdSN;
        switch (pdu) {
            case ScsiCommand c -> { immediate = c.immediate(); cmdSN = c.cmdSN(); }
            case NopOut n -> { immediate = n.immediate(); cmdSN = n.cmdSN(); }
            case TextRequest t -> { immediate = t.immediate(); cmdSN = t.cmdSN(); }
            case TaskManagementRequest t -> { immediate = t.immediate(); cmdSN = t.cmdSN(); }
            case LogoutRequest l -> { immediate = l.immediate(); cmdSN = l.cmdSN(); }
            default -> throw new IllegalStateException("not an ordered PDU: " + pdu.opcode());
        }
        switch (window.admit(pdu, immediate, cmdSN)) {
            case DELIVER -> {
                deliver(pdu);
                for (InitiatorPdu next : window.drainReady()) {
                    if (state != ConnectionState.LOGGED_IN) {
                        next.release();
                    } else {
                        deliver(next);
                    }
                }
            }
            case HELD -> {
            }
            case DROPPED -> pdu.release();
        }
    }

    private void deliver(InitiatorPdu pdu) {
        switch (pdu) {
            case ScsiCommand c -> engineOr(c).ifPresent(e -> e.command(c));
            case NopOut n -> send(new NopIn(n.lun(), n.itt(), Bhs.RESERVED_TAG, nextStatSN(), window.expCmdSN(),
                    window.maxCmdSN(), n.data()));
            case TextRequest t -> text.request(t);
            case TaskManagementRequest t -> taskManagement(t);
            case LogoutRequest l -> logout(l);
            default -> pdu.release();
        }
    }

    private void taskManagement(TaskManagementRequest request) {
        if (engineOr(request).isEmpty()) {
            return;
        }
        TaskEngine e = engine.get();
        TaskManagement.perform(request, e, window.expCmdSN(), response -> {
            // the answer waits for the affected tasks (their I/O may end on a backend thread): back on the loop
            if (port.executor().inEventLoop()) {
                answerTaskManagement(request, response, e);
            } else {
                port.executor().execute(() -> answerTaskManagement(request, response, e));
            }
        });
    }

    private void answerTaskManagement(TaskManagementRequest request, TmfResponse response, TaskEngine e) {
        if (state == ConnectionState.FREE) {
            return;
        }
        send(new TaskManagementResponse(response, request.itt(), nextStatSN(), window.expCmdSN(), window.maxCmdSN()));
        if (request.function() == TmfFunction.TARGET_COLD_RESET.code()) {
            // §11.5.1: after a cold reset the target drops every connection to it, this one after the response.
            LOG.log(Level.INFO, "{0}: TARGET COLD RESET, closing every session of the target", who);
            transport.closeSessionsOf(e.target().targetName(), this, "TARGET COLD RESET by " + who);
            closeAfterFlush();
        }
    }

    /** §11.14-11.15: ErrorRecoveryLevel 0, one connection: closing the connection closes the session. */
    private void logout(LogoutRequest request) {
        LogoutResponseCode code = switch (request.reason()) {
            case CLOSE_SESSION -> LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED;
            case CLOSE_CONNECTION -> request.cid() == cid ? LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED
                    : LogoutResponseCode.CID_NOT_FOUND;
            case REMOVE_CONNECTION_FOR_RECOVERY -> LogoutResponseCode.CONNECTION_RECOVERY_NOT_SUPPORTED;
        };
        send(new LogoutResponse(code, request.itt(), nextStatSN(), window.expCmdSN(), window.maxCmdSN(), 0, 0));
        if (code == LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED) {
            if (sessionEventAdmitted()) {
                LOG.log(Level.INFO, "{0}: logout ({1})", who, request.reason() == LogoutReason.CLOSE_SESSION
                        ? "close session" : "close connection");
            }
            engine.ifPresent(TaskEngine::close);
            transitionTo(ConnectionState.IN_LOGOUT);
            closeAfterFlush();
        }
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
            int itt = Bhs.itt(bhs, 0);
            int ttt = Bhs.ttt(bhs, 0);
            boolean finalBit = Bhs.finalBit(bhs, 0);
            engine.ifPresent(en -> en.dataOutLost(itt, ttt, finalBit));
        }
    }

    // ---- NOP-In pinger -----------------------------------------------------------------------------

    /**
     * One timer at a time, due exactly when something can change: idle for NopInInterval since the last received
     * PDU (then ping), or NopInTimeout after a ping (then drop, unless answered). No periodic tick, so virtual time
     * in tests sees the same instants as production.
     */
    private void startPinger() {
        long interval = transport.settings().nopInInterval().toNanos();
        if (interval > 0) {
            pingTimer = clock.schedule(port.executor(), interval, this::pingTick);
        }
    }

    private void pingTick() {
        if (state != ConnectionState.LOGGED_IN) {
            return;
        }
        long now = clock.nanoTime();
        IscsiSettings settings = transport.settings();
        long interval = settings.nopInInterval().toNanos();
        long timeout = settings.nopInTimeout().toNanos();
        long next;
        if (ping == Ping.OUTSTANDING && timeout > 0) {
            long waited = now - pingSentNanos;
            if (waited >= timeout) {
                fatal("no answer to NOP-In within " + settings.nopInTimeout());
                return;
            }
            // checked again at the deadline, or sooner so that an answered ping is followed by the next one on time
            next = Math.min(timeout - waited, interval);
        } else {
            long idle = now - lastActivityNanos;
            if (idle >= interval) {
                pingTtt = pingTtt == Bhs.RESERVED_TAG - 1 ? 0 : pingTtt + 1;
                ping = Ping.OUTSTANDING;
                pingSentNanos = now;
                // §11.19: a target ping has ITT 0xffffffff, a TTT for the answer, and does not advance StatSN.
                send(new NopIn(0, Bhs.RESERVED_TAG, pingTtt, statSN, window.expCmdSN(), window.maxCmdSN(),
                        Unpooled.EMPTY_BUFFER));
                next = timeout > 0 ? timeout : interval;
            } else {
                next = interval - idle;
            }
        }
        pingTimer = clock.schedule(port.executor(), next, this::pingTick);
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

    @Override
    public void send(TargetPdu pdu) {
        if (state == ConnectionState.FREE) {
            pdu.release();
            return;
        }
        ByteBuf frame = PduWriter.frame(pdu, port.alloc(), headerDigest, dataDigest);
        if (corruptNext != null && PduWriter.corruptDigest(frame, corruptNext == FaultAction.DigestKind.HEADER)) {
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
    private boolean sessionEventAdmitted() {
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

    private void closeAfterFlush() {
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
        if (pingTimer != null) {
            pingTimer.cancel();
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
