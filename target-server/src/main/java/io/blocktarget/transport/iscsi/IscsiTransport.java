package io.blocktarget.transport.iscsi;

import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.time.Clock;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.blocktarget.transport.tcp.StreamTuning;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The iSCSI target transport (RFC 7143, ErrorRecoveryLevel 0, MaxConnections 1): the server hands it each
 * accepted socket; it frames PDUs in the Netty pipeline in front of Vert.x, logs initiators in to the given
 * SCSI target devices and serves them. Each connection lives on its own event loop.
 */
public final class IscsiTransport {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi");
    static final String DECODER_NAME = "iscsi-framing";
    static final String FLUSH_NAME = "iscsi-flush";
    private static final String DISPATCH_NAME = "iscsi-dispatch";
    private static final String BURST_NAME = "iscsi-read-burst";

    /**
     * Target name → device, and the settings (CHAP per target): replaced by {@link #targets(Collection, Map)} when
     * targets come and go; a new connection's login reads them once, when it starts.
     */
    private volatile Map<String, ScsiTargetDevice> targets;
    private volatile IscsiSettings settings;
    private final SessionRegistry registry = new SessionRegistry();
    /** The server's clock: connection timers (login, NOP-In, Logout deadline) and idle detection. */
    private final Clock clock;
    /**
     * Protocol-error and session-event lines per peer address (a fuzzer must not fill the disk), on the timers'
     * clock.
     */
    private final PeerLogLimiter errorLog;
    private final Set<IscsiConnection> connections = ConcurrentHashMap.newKeySet();

    private IscsiTransport(Map<String, ScsiTargetDevice> targets, IscsiSettings settings, Clock clock) {
        this.targets = targets;
        this.settings = settings;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.errorLog = new PeerLogLimiter(LOG, PeerLogLimiter.DEFAULT_BURST, PeerLogLimiter.DEFAULT_WINDOW_NANOS,
                clock::nanoTime);
    }

    /** @param clock the server's clock, for every connection's timers */
    public static IscsiTransport create(Vertx vertx, Collection<ScsiTargetDevice> targets, IscsiSettings settings,
                                        Clock clock) {
        Map<String, ScsiTargetDevice> byName = new LinkedHashMap<>();
        for (ScsiTargetDevice t : targets) {
            if (byName.put(t.targetName(), t) != null) {
                throw new IllegalArgumentException("target " + t.targetName() + " given twice");
            }
        }
        return new IscsiTransport(Map.copyOf(byName), settings, clock);
    }

    /** Takes over an accepted socket. Call on the socket's event loop (a NetServer connect handler is). */
    public void accept(NetSocket socket) {
        accept(socket, settings().portalGroupTag());
    }

    /** A connection that arrived on the portal of target portal group {@code portalGroupTag} (issue 29). */
    public void accept(NetSocket socket, int portalGroupTag) {
        NetSocketInternal internal = (NetSocketInternal) socket;
        ChannelHandlerContext ctx = internal.channelHandlerContext();
        StreamTuning.apply(ctx.channel());
        StreamTuning.fixReceiveBuffer(ctx.channel(), StreamTuning.ISCSI_RECEIVE_BUFFER);
        IscsiFrameDecoder decoder = new IscsiFrameDecoder();
        ctx.pipeline().addBefore("handler", FLUSH_NAME, StreamTuning.flushConsolidation());
        ctx.pipeline().addBefore("handler", DECODER_NAME, decoder);
        VertxPort port = new VertxPort(internal, ctx, ctx.pipeline().context(FLUSH_NAME));
        IscsiConnection connection = new IscsiConnection(this, port, decoder, portalGroupTag);
        connections.add(connection);
        // PDUs go from the decoder to the connection in the pipeline, as NVMe/TCP's do: through Vert.x's socket they
        // paid its inbound queue and context dispatch per PDU. Vert.x still sees close and exceptions.
        ctx.pipeline().addBefore("handler", DISPATCH_NAME, new Dispatch(connection));
        // before the flush consolidation: a burst's held responses are handed over before it flushes at read-complete
        ctx.pipeline().addBefore(FLUSH_NAME, BURST_NAME, new ReadBurst(connection));
        internal.messageHandler(connection::onMessage);   // nothing reaches it now; kept should a message pass
        internal.closeHandler(v -> connection.closed());
        internal.exceptionHandler(e -> connection.fatal("socket error: " + e));
    }

    /** Closes every connection (and so every session). */
    public void close() {
        for (IscsiConnection c : connections) {
            c.closeFromElsewhere("transport closing");
        }
        errorLog.flush();
        LOG.log(Level.DEBUG, "iSCSI transport closed");
    }

    /**
     * Replaces the target set: logins and SendTargets from now on see {@code targets}, with the CHAP credentials of
     * {@code chapByTarget}. Sessions already logged in keep the device they logged in to; for a target that went
     * away call {@link #logoutTarget}.
     */
    public void targets(Collection<ScsiTargetDevice> targets, Map<String, Chap> chapByTarget) {
        targets(targets, chapByTarget, settings.initiators());
    }

    /** {@link #targets(Collection, Map)} with the initiator lists ({@code access.initiators}) by target name too. */
    public void targets(Collection<ScsiTargetDevice> targets, Map<String, Chap> chapByTarget,
                        Map<String, Set<String>> initiatorsByTarget) {
        targets(targets, chapByTarget, initiatorsByTarget, settings.sessionLimits());
    }

    /**
     * {@link #targets(Collection, Map, Map)} with each target's session values ({@code session:} knobs) too: logins
     * that start from now on negotiate with them; sessions already logged in keep what they negotiated.
     */
    public void targets(Collection<ScsiTargetDevice> targets, Map<String, Chap> chapByTarget,
                        Map<String, Set<String>> initiatorsByTarget,
                        Map<String, IscsiSettings.SessionLimits> sessionLimitsByTarget) {
        Map<String, ScsiTargetDevice> byName = new LinkedHashMap<>();
        for (ScsiTargetDevice t : targets) {
            if (byName.put(t.targetName(), t) != null) {
                throw new IllegalArgumentException("target " + t.targetName() + " given twice");
            }
        }
        synchronized (this) {
            this.settings = settings.withChap(chapByTarget).withInitiators(initiatorsByTarget)
                    .withSessionLimits(sessionLimitsByTarget);
            this.targets = Map.copyOf(byName);
        }
    }

    /**
     * Adds {@code target} with its access in one swap: the first login or SendTargets that sees the target also sees
     * its CHAP and initiator list (never an open window). Replaces a target of the same name.
     */
    public synchronized void addTarget(ScsiTargetDevice target, TargetAccess access) {
        Map<String, ScsiTargetDevice> byName = new LinkedHashMap<>(targets);
        byName.put(target.targetName(), target);
        settings = withAccess(settings, target.targetName(), access);
        targets = java.util.Collections.unmodifiableMap(byName);
    }

    /**
     * Takes target {@code name} and its access out: logins from now on get "not found" (RFC 7143 §11.13.5, 0203);
     * sessions logged in keep their device (ask them to leave with {@link #logoutTarget}). False if unknown.
     */
    public synchronized boolean removeTarget(String name) {
        if (!targets.containsKey(name)) {
            return false;
        }
        Map<String, ScsiTargetDevice> byName = new LinkedHashMap<>(targets);
        byName.remove(name);
        settings = withAccess(settings, name, TargetAccess.OPEN);
        targets = java.util.Collections.unmodifiableMap(byName);
        return true;
    }

    /** Sets the access of target {@code name} as a whole; logins from now on see it. */
    public synchronized void access(String name, TargetAccess access) {
        settings = withAccess(settings, name, access);
    }

    /** The access of target {@code name} now ({@link TargetAccess#OPEN} for a target without any). */
    public TargetAccess access(String name) {
        IscsiSettings s = settings;
        return new TargetAccess(Optional.ofNullable(s.chap().get(name)), s.initiators().getOrDefault(name, Set.of()),
                Optional.ofNullable(s.sessionLimits().get(name)));
    }

    /** Sets the CHAP every discovery session must pass from now on (empty: discovery is open). */
    public synchronized void discoveryChap(Optional<Chap> chap) {
        settings = settings.withDiscoveryChap(chap);
    }

    /** The target names served now, in the order they were added. */
    public java.util.List<String> targetNames() {
        return java.util.List.copyOf(targets.keySet());
    }

    private static IscsiSettings withAccess(IscsiSettings s, String name, TargetAccess access) {
        Map<String, Chap> chap = new java.util.HashMap<>(s.chap());
        Map<String, Set<String>> initiators = new java.util.HashMap<>(s.initiators());
        Map<String, IscsiSettings.SessionLimits> limits = new java.util.HashMap<>(s.sessionLimits());
        chap.remove(name);
        initiators.remove(name);
        limits.remove(name);
        access.chap().ifPresent(c -> chap.put(name, c));
        if (!access.initiators().isEmpty()) {
            initiators.put(name, access.initiators());
        }
        access.sessionLimits().ifPresent(l -> limits.put(name, l));
        return s.withChap(chap).withInitiators(initiators).withSessionLimits(limits);
    }

    /**
     * Asks every session logged in to {@code targetName} to log out (RFC 7143 §11.9.1, AsyncEvent 1 "target
     * requests Logout", Parameter3 = {@code seconds}), and drops the connections that have not logged out by then.
     * The number of sessions asked.
     */
    public int logoutTarget(String targetName, int seconds) {
        int asked = 0;
        for (IscsiConnection c : connections) {
            if (c.targetName().filter(targetName::equals).isPresent()) {
                c.requestLogoutFromElsewhere(seconds, "target " + targetName + " removed");
                asked++;
            }
        }
        return asked;
    }

    /**
     * A logged-in session as the control plane lists it.
     *
     * @param target      TargetName, empty for a discovery session
     * @param parameters  negotiated operational keys
     * @param commands    its SCSI tasks by state (issue 27), every state listed
     */
    public record SessionView(int tsih, String initiatorName, long isid, String target, boolean discovery,
                              String localAddress, String remoteAddress, Map<String, String> parameters,
                              Map<String, Long> commands) {
    }

    /** Every registered session; read from any thread. */
    public java.util.List<SessionView> sessions() {
        java.util.List<SessionView> all = new java.util.ArrayList<>();
        for (IscsiSession s : registry.sessions()) {
            IscsiConnection c = s.connection();
            all.add(new SessionView(s.tsih(), s.key().initiatorName(), s.key().isid(), s.key().targetName(),
                    s.type() == io.blocktarget.protocol.iscsi.SessionType.DISCOVERY,
                    String.valueOf(c.port().localAddress()), String.valueOf(c.port().remoteAddress()),
                    c.negotiatedKeys(), c.commandCounts()));
        }
        return all;
    }

    /** Drops session {@code tsih} (its connection closed, as on a connection failure); false if unknown. */
    public boolean dropSession(int tsih, String reason) {
        for (IscsiSession s : registry.sessions()) {
            if (s.tsih() == tsih) {
                s.connection().closeFromElsewhere(reason);
                return true;
            }
        }
        return false;
    }

    /** Closes every connection logged in to {@code targetName} except {@code keep} (TARGET COLD RESET). */
    void closeSessionsOf(String targetName, IscsiConnection keep, String reason) {
        for (IscsiConnection c : connections) {
            if (c != keep && c.targetName().filter(targetName::equals).isPresent()) {
                c.closeFromElsewhere(reason);
            }
        }
    }

    IscsiSettings settings() {
        return settings;
    }

    /** The server-wide settings (the defaults of every target's session values). */
    public IscsiSettings serverSettings() {
        return settings;
    }

    Map<String, ScsiTargetDevice> targets() {
        return targets;
    }

    Clock clock() {
        return clock;
    }

    PeerLogLimiter errorLog() {
        return errorLog;
    }

    SessionRegistry registry() {
        return registry;
    }

    /** Registers a connection built by tests over an EmbeddedChannel, arrived on target portal group {@code tag}. */
    IscsiConnection connect(ConnectionPort port, IscsiFrameDecoder decoder, int tag) {
        IscsiConnection connection = new IscsiConnection(this, port, decoder, tag);
        connections.add(connection);
        return connection;
    }

    /** For tests over an EmbeddedChannel: the timers on {@code clock} (a manual one). */
    static IscsiTransport forTargets(Map<String, ScsiTargetDevice> targets, IscsiSettings settings, Clock clock) {
        return new IscsiTransport(Map.copyOf(targets), settings, clock);
    }

    void forget(IscsiConnection connection) {
        connections.remove(connection);
    }

    int connectionCount() {
        return connections.size();
    }

    /**
     * Tells the connection where each socket read burst begins and ends (its held responses go out at the end, the
     * pinger notes the activity), ahead of the flush consolidation, which flushes at the end. Tests put it in front of
     * their EmbeddedChannel's decoder.
     */
    static final class ReadBurst extends io.netty.channel.ChannelInboundHandlerAdapter {
        private final IscsiConnection connection;

        ReadBurst(IscsiConnection connection) {
            this.connection = connection;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            connection.readStarted();
            ctx.fireChannelRead(message);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            connection.readComplete();
            ctx.fireChannelReadComplete();
        }
    }

    /**
     * Hands every decoded PDU (or frame error) to its connection, on the event loop; nothing goes further. Tests put
     * it behind the decoder of their EmbeddedChannel as accept() does.
     */
    static final class Dispatch extends io.netty.channel.ChannelInboundHandlerAdapter {
        private final IscsiConnection connection;

        Dispatch(IscsiConnection connection) {
            this.connection = connection;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            connection.onMessage(message);
        }
    }

    /** Adapts a Vert.x socket: frames go out through {@code writeMessage}, without a copy through Buffer. */
    private record VertxPort(NetSocketInternal socket, ChannelHandlerContext ctx, ChannelHandlerContext consolidation)
            implements ConnectionPort {
        @Override
        public void write(Object frame) {
            // straight into the pipeline (no Vert.x promise per PDU); the consolidation handler batches the flushes
            ctx.writeAndFlush(frame, ctx.voidPromise());
        }

        @Override
        public void writePart(ByteBuf part) {
            ctx.write(part, ctx.voidPromise());
        }

        /** A flush from the consolidation handler's own place in the pipeline goes past it, to the socket. */
        @Override
        public void flushHeld() {
            consolidation.flush();
        }

        @Override
        public void close() {
            socket.close();
        }

        @Override
        public void closeAfterWrites() {
            socket.writeMessage(Unpooled.EMPTY_BUFFER).onComplete(ar -> socket.close());
        }

        @Override
        public EventExecutor executor() {
            return ctx.executor();
        }

        @Override
        public ByteBufAllocator alloc() {
            return ctx.alloc();
        }

        @Override
        public InetSocketAddress localAddress() {
            return (InetSocketAddress) ctx.channel().localAddress();
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return (InetSocketAddress) ctx.channel().remoteAddress();
        }

        @Override
        public io.netty.channel.Channel channel() {
            return ctx.channel();
        }
    }
}
