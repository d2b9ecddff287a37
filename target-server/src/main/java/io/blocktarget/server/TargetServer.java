package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.file.UringFileBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTarget;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import io.blocktarget.transport.nvmetcp.NvmeTcpTransport;
import io.vertx.core.Handler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.transport.Transport;

import java.io.IOException;
import java.nio.file.Path;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's lifecycle: opens every LUN's backend, starts one Vert.x instance with an event loop
 * per core (native transport when available) and the portals, and on {@link #stop()} closes
 * portals and connections before flushing and closing the backends, so acknowledged data is on
 * disk when the process exits.
 */
public final class TargetServer {
    private static final Logger LOG = System.getLogger("blocktarget.server");
    private static final long CLOSE_TIMEOUT_SECONDS = 30;
    /** Numbers the servers of this JVM: their threads' names say which one they serve. */
    private static final AtomicInteger SERVERS = new AtomicInteger();

    /** Lifecycle (DESIGN §7: one state enum, one checked transition). */
    public enum State {
        NEW, STARTING, RUNNING, STOPPING, STOPPED;

        private static final Map<State, Set<State>> NEXT = Map.of(
                NEW, EnumSet.of(STARTING),
                STARTING, EnumSet.of(RUNNING, STOPPING),
                RUNNING, EnumSet.of(STOPPING),
                STOPPING, EnumSet.of(STOPPED),
                STOPPED, EnumSet.noneOf(State.class));

        boolean canGo(State next) {
            return NEXT.get(this).contains(next);
        }
    }

    private final BlocktargetConfig config;
    private final Optional<Path> configDir;
    /** Event loops ≈ cores (DESIGN §3). */
    private final int eventLoops;
    private boolean polling;
    /** The poll window in use (0: none), for the start-up line. */
    private long pollWindowNanos;
    /** The event loops run on Netty's io_uring transport (see {@link #startVertx}). */
    private boolean uringLoops;
    /** Where O_DIRECT / block device LUNs do their I/O, when the config has any. */
    private Optional<String> fileIo = Optional.empty();
    /** The LUNs opened at start; from RUNNING on, {@link #registry} owns them. */
    private final List<Lun> luns = new ArrayList<>();
    private Registry registry;
    private final List<Portal> portals = new ArrayList<>();
    private volatile State state = State.NEW;
    private MemoryBudget memoryBudget;
    private ExecutorService fileIoExecutor;
    private Vertx vertx;
    private IscsiTransport iscsi;
    private NvmeSubsystems nvme;
    private NvmeTcpTransport nvmeTcp;
    /** "btN-": the start of this server's thread names (short: top and ps show 15 bytes of a name). */
    private final String threadPrefix = "bt" + SERVERS.incrementAndGet() + "-";
    /** The server's one clock (DESIGN §11): every timer of its transports, command sets and LUNs. */
    private final SystemClock clock = new SystemClock(threadPrefix + "timer");

    public TargetServer(BlocktargetConfig config) {
        this(config, Optional.empty());
    }

    /** @param configDir the directory {@code config} was loaded from, which {@link ControlPlane#reload} re-reads */
    public TargetServer(BlocktargetConfig config, Optional<Path> configDir) {
        this.config = config;
        this.configDir = configDir;
        this.eventLoops = config.server().eventLoopCount();
    }

    public State state() {
        return state;
    }

    /** The LUNs now exported (the registry's current snapshot), in config order; valid once running. */
    public List<Lun> luns() {
        return registry != null ? registry.snapshot().luns() : List.copyOf(luns);
    }

    /** What the control layer drives: the registry of LUNs, targets and subsystems; valid once running. */
    public ControlPlane controlPlane() {
        if (registry == null) {
            throw new IllegalStateException("server not started");
        }
        return registry;
    }

    /** The portals actually listening; valid once running. */
    public List<Portal> portals() {
        return List.copyOf(portals);
    }

    /** The Vert.x instance the portals run on (the control API listens on it too); valid once running. */
    public io.vertx.core.Vertx vertx() {
        return vertx;
    }

    public MemoryBudget memoryBudget() {
        return memoryBudget;
    }

    /**
     * How connections are served, for the start-up log: transport, event loops, poll mode, and where a config with
     * O_DIRECT file or block device LUNs does their I/O (the io_uring transport's rings, or worker threads and why).
     */
    public String threading() {
        return (uringLoops ? "io_uring transport, " : nativeTransport() ? "native transport, " : "NIO transport, ")
                + eventLoops + (eventLoops == 1 ? " event loop" : " event loops") + (polling ? ", polling" : "")
                + (pollWindowNanos > 0 ? ", polling " + pollWindowNanos / 1000 + " us after work" : "")
                + fileIo.map(how -> ", O_DIRECT file I/O " + how).orElse("");
    }

    /** True when Netty runs on epoll/io_uring rather than NIO. */
    public boolean nativeTransport() {
        return vertx != null && vertx.isNativeTransportEnabled();
    }

    /** Opens backends and portals; on failure everything opened so far is closed again. */
    public synchronized void start() throws ServerStartException {
        transitionTo(State.STARTING);
        try {
            openBackends();
            startVertx();
            openPortals();
        } catch (ServerStartException e) {
            stop();
            throw e;
        }
        transitionTo(State.RUNNING);
    }

    private void openBackends() throws ServerStartException {
        ServerConfig server = config.server();
        memoryBudget = new MemoryBudget(server.memoryBudget());
        fileIoExecutor = Executors.newFixedThreadPool(
                Math.max(2, Runtime.getRuntime().availableProcessors()), daemonThreads(threadPrefix + "file-io-"));
        for (LunConfig lunConfig : config.luns()) {
            try {
                BlockDevice device = BlockDevices.open(lunConfig, memoryBudget, fileIoExecutor);
                luns.add(new Lun(lunConfig, device, Lun.stateFor(lunConfig, clock)));
            } catch (IOException | RuntimeException e) {
                String where = lunConfig.source() != null ? lunConfig.source().toString() : lunConfig.name();
                throw new ServerStartException(where + ": cannot open the " + lunConfig.backend().configName()
                        + " backend of LUN " + lunConfig.name() + ": " + e.getMessage(), e);
            }
        }
    }

    private void startVertx() {
        VertxOptions options = new VertxOptions()
                .setPreferNativeTransport(true)
                .setEventLoopPoolSize(eventLoops);
        boolean poll = config.server().poll();
        if (poll && !Transport.EPOLL.available()) {
            LOG.log(Level.WARNING, "poll mode needs the native epoll transport, which is unavailable ("
                    + Transport.EPOLL.unavailabilityCause() + "); event loops will sleep");
            poll = false;
        }
        polling = poll;
        int cpus = Runtime.getRuntime().availableProcessors();
        if (poll && eventLoops > cpus) {
            LOG.log(Level.WARNING, "poll mode with " + eventLoops + " event loops on " + cpus
                    + " CPUs: spinning loops share cores; set event-loops to at most " + cpus);
        }
        // io_uring event loops only where a LUN submits file I/O on them (issue 15): every other config keeps the
        // epoll transport it always had. Poll mode spins on epoll, so its O_DIRECT LUNs take worker threads.
        boolean wantUring = config.luns().stream().anyMatch(BlockDevices::wantsIoUring);
        Optional<String> uringCause = poll ? Optional.of("poll mode runs on epoll") : UringFileBlockDevice.unavailability();
        uringLoops = wantUring && uringCause.isEmpty();
        if (wantUring) {
            fileIo = Optional.of(uringLoops ? "on the event loops' io_uring"
                    : "on worker threads (io_uring: " + uringCause.get() + ")");
        }
        // poll-window: epoll loops that poll for a while after their work, then sleep. The io_uring transport has no
        // select strategy to bound, so a config that puts file I/O on the rings keeps sleeping loops (said at start).
        long window = poll ? 0 : config.server().pollWindowNanos();
        Optional<String> windowCause = window == 0 ? Optional.empty()
                : uringLoops ? Optional.of("is not applied on io_uring event loops (O_DIRECT file LUNs)")
                : !Transport.EPOLL.available() ? Optional.of("needs the native epoll transport, which is unavailable ("
                        + Transport.EPOLL.unavailabilityCause() + ")")
                : Optional.empty();
        windowCause.ifPresent(cause -> LOG.log(Level.WARNING,
                "poll-window " + cause + "; event loops will sleep at once"));
        pollWindowNanos = windowCause.isPresent() ? 0 : window;
        vertx = poll
                ? Vertx.builder().with(options).withTransport(PollingEpollTransport.create()).build()
                : uringLoops ? Vertx.builder().with(options).withTransport(UringTransport.create()).build()
                : pollWindowNanos > 0
                ? Vertx.builder().with(options).withTransport(PollingEpollTransport.windowed(pollWindowNanos)).build()
                : Vertx.vertx(options);
        if (!vertx.isNativeTransportEnabled()) {
            LOG.log(Level.WARNING, "native transport unavailable, using NIO: " + vertx.unavailableNativeTransportCause());
        }
    }

    private void openPortals() throws ServerStartException {
        ServerConfig server = config.server();
        String bind = server.bindAddress();

        List<LogicalUnitSpec> units = new ArrayList<>();
        List<NamespaceSpec> namespaces = new ArrayList<>();
        for (Lun lun : luns) {
            lun.logicalUnit().ifPresent(units::add);
            lun.namespace().ifPresent(namespaces::add);
        }
        IscsiSettings iscsiSettings = IscsiSettings.defaults()
                .withPortals(server.iscsiPort() == 0 ? List.of() : List.of(new Portal(Portal.Service.ISCSI, bind, server.iscsiPort()).address()))
                .withChap(chapByTarget(config.luns()))
                .withInitiators(initiatorsByTarget(config.luns()))
                .withDiscoveryChap(server.discoveryChap().map(TargetServer::chap));
        iscsiSettings = iscsiSettings.withSessionLimits(sessionLimitsByTarget(config.luns(), iscsiSettings));
        Map<String, ScsiTarget> scsiTargets = ScsiTargetDevices.createTargets(units);
        iscsi = IscsiTransport.create(vertx, List.copyOf(scsiTargets.values()), iscsiSettings, clock);
        List<NvmePort> nvmePorts = server.nvmePort() == 0 ? List.of() : List.of(new NvmePort(1, bind, server.nvmePort()));
        NvmeSubsystems subsystems = NvmeSubsystems.of(namespaces, nvmePorts, NvmeLimits.DEFAULT, clock,
                hostsBySubsystem(config.luns()));
        nvme = subsystems;
        dhchapBySubsystem(config.luns()).forEach((nqn, keys) -> subsystems.dhchap(nqn, Optional.of(keys)));
        NvmeTls.bySubsystem(config.luns()).forEach(subsystems::secureChannel);
        NvmeTls.pskBySubsystem(config.luns()).forEach((nqn, psk) -> subsystems.tlsPsk(nqn, Optional.of(psk)));
        nvmeTcp = NvmeTcpTransport.create(vertx, subsystems, NvmeLimits.DEFAULT);
        registry = new Registry(server, configDir, memoryBudget, Registry.opener(memoryBudget, fileIoExecutor), luns,
                scsiTargets, iscsi, subsystems, clock);

        listen(Portal.Service.ISCSI, bind, server.iscsiPort(), iscsi::accept);
        listen(Portal.Service.NVME_TCP, bind, server.nvmePort(), socket -> nvmeTcp.accept(socket, false));
        listen(Portal.Service.NVME_DISCOVERY, bind, server.discoveryPort(), socket -> nvmeTcp.accept(socket, true));
    }

    /**
     * CHAP credentials per iSCSI target name (RFC 7143 §12.1.3). The config guarantees that every LUN of one target
     * declares the same {@code access.chap}, so the first LUN of a target speaks for all of them.
     */
    static Map<String, Chap> chapByTarget(List<LunConfig> luns) {
        Map<String, Chap> chap = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            lun.iscsi().ifPresent(e -> lun.access().chap().ifPresent(c -> chap.putIfAbsent(e.target(),
                    new Chap(c.user(), c.secret(), c.mutualUser(), c.mutualSecret()))));
        }
        return chap;
    }

    /**
     * Each iSCSI target's session values from its LUN files' {@code session:} keys (the config makes the LUNs of one
     * target agree), the server's {@code defaults} where a key is absent; targets without any are left out.
     */
    static Map<String, IscsiSettings.SessionLimits> sessionLimitsByTarget(List<LunConfig> luns,
                                                                          IscsiSettings defaults) {
        Map<String, IscsiSettings.SessionLimits> limits = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            io.blocktarget.config.DeviceKnobs k = lun.features().knobs();
            boolean any = java.util.Arrays.stream(io.blocktarget.config.DeviceKnobs.Session.values())
                    .anyMatch(s -> !s.isNvme() && k.session(s).isPresent());
            if (any) {
                lun.iscsi().ifPresent(e -> limits.putIfAbsent(e.target(), new IscsiSettings.SessionLimits(
                        session(k, io.blocktarget.config.DeviceKnobs.Session.MAX_RECV_DATA_SEGMENT_LENGTH,
                                defaults.maxRecvDataSegmentLength()),
                        session(k, io.blocktarget.config.DeviceKnobs.Session.MAX_BURST_LENGTH,
                                defaults.maxBurstLength()),
                        session(k, io.blocktarget.config.DeviceKnobs.Session.FIRST_BURST_LENGTH,
                                defaults.firstBurstLength()),
                        session(k, io.blocktarget.config.DeviceKnobs.Session.QUEUE_DEPTH, defaults.queueDepth()))));
            }
        }
        return limits;
    }

    private static int session(io.blocktarget.config.DeviceKnobs knobs, io.blocktarget.config.DeviceKnobs.Session key,
                               int fallback) {
        return knobs.session(key).map(Long::intValue).orElse(fallback);
    }

    /** Allowed InitiatorNames per iSCSI target name; targets without {@code access.initiators} are left out (any). */
    static Map<String, Set<String>> initiatorsByTarget(List<LunConfig> luns) {
        Map<String, Set<String>> initiators = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            if (!lun.access().initiators().isEmpty()) {
                lun.iscsi().ifPresent(e -> initiators.putIfAbsent(e.target(), Set.copyOf(lun.access().initiators())));
            }
        }
        return initiators;
    }

    private static Chap chap(io.blocktarget.config.ChapConfig c) {
        return new Chap(c.user(), c.secret(), c.mutualUser(), c.mutualSecret());
    }

    /** DH-HMAC-CHAP keys per NVM subsystem NQN ({@code access.dhchap}); subsystems without are left out. */
    static Map<String, io.blocktarget.nvme.DhchapKeys> dhchapBySubsystem(List<LunConfig> luns) {
        Map<String, io.blocktarget.nvme.DhchapKeys> keys = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            lun.access().dhchap().ifPresent(d -> lun.nvme().ifPresent(e -> keys.putIfAbsent(e.subsystem(),
                    dhchapKeys(d))));
        }
        return keys;
    }

    /** Per host NQN: its host key (own or the file's key for every host) with its controller key, if any. */
    static io.blocktarget.nvme.DhchapKeys dhchapKeys(io.blocktarget.config.DhchapConfig d) {
        Map<String, io.blocktarget.nvme.DhchapKeys.HostKeys> hosts = new LinkedHashMap<>();
        for (String host : d.namedHosts()) {
            d.hostSecret(host).ifPresent(h -> hosts.put(host, new io.blocktarget.nvme.DhchapKeys.HostKeys(key(h),
                    d.ctrlSecret(host).map(TargetServer::key))));
        }
        Optional<io.blocktarget.nvme.DhchapKeys.HostKeys> others = d.host().others().map(h ->
                new io.blocktarget.nvme.DhchapKeys.HostKeys(key(h), d.ctrl()
                        .flatMap(io.blocktarget.config.DhchapSecrets::others).map(TargetServer::key)));
        return new io.blocktarget.nvme.DhchapKeys(hosts, others);
    }

    private static io.blocktarget.nvme.DhchapKeys.Key key(io.blocktarget.config.DhchapSecret secret) {
        return new io.blocktarget.nvme.DhchapKeys.Key(secret.transform(), secret.key());
    }

    /** Allowed host NQNs per NVM subsystem NQN; subsystems without {@code access.hosts} are left out (any host). */
    static Map<String, Set<String>> hostsBySubsystem(List<LunConfig> luns) {
        Map<String, Set<String>> hosts = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            if (!lun.access().hosts().isEmpty()) {
                lun.nvme().ifPresent(e -> hosts.putIfAbsent(e.subsystem(), Set.copyOf(lun.access().hosts())));
            }
        }
        return hosts;
    }

    private void listen(Portal.Service service, String host, int port, Handler<NetSocket> handler)
            throws ServerStartException {
        if (port == 0) {
            return; // 0 disables this listener
        }
        NetServerOptions options = new NetServerOptions()
                .setHost(host)
                .setPort(port)
                .setTcpNoDelay(true)
                .setReuseAddress(true);
        // One NetServer per event loop on the same port: Vert.x shares the listening socket and deals
        // connections round-robin, so connections spread over every core (one server would pin all
        // of them to the single event loop it was created on).
        int actualPort = port;
        for (int i = 0; i < eventLoops; i++) {
            NetServer netServer = vertx.createNetServer(options).connectHandler(handler);
            try {
                await(netServer.listen());
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new ServerStartException("cannot listen on " + new Portal(service, host, port).address()
                        + " (" + service.label() + "): " + cause.getMessage(), cause);
            }
            actualPort = netServer.actualPort();
        }
        portals.add(new Portal(service, host, actualPort));
    }

    /** Closes portals and connections, then flushes and closes backends. Idempotent. */
    public synchronized void stop() {
        if (state == State.STOPPING || state == State.STOPPED || state == State.NEW) {
            return;
        }
        transitionTo(State.STOPPING);
        if (iscsi != null) {
            iscsi.close(); // sessions logged out / closed
        }
        if (nvmeTcp != null) {
            nvmeTcp.close();
        }
        if (vertx != null) {
            try {
                await(vertx.close()); // closes every NetServer and every connection
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(Level.WARNING, "closing the network layer: " + e);
            }
        }
        if (registry != null) {
            registry.closeAll(); // file backends flush here; waits for an apply in progress
        } else {
            for (Lun lun : luns) {
                try {
                    lun.device().close();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing LUN " + lun.name() + ": " + e);
                }
            }
        }
        if (fileIoExecutor != null) {
            fileIoExecutor.shutdown();
            try {
                if (!fileIoExecutor.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.log(Level.WARNING, "file I/O threads still busy after " + CLOSE_TIMEOUT_SECONDS + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (nvme != null) {
            nvme.close(); // DH-HMAC-CHAP threads
        }
        clock.close(); // the timer thread; the event loops' timers ended with Vert.x
        transitionTo(State.STOPPED);
    }

    private void transitionTo(State next) {
        if (!state.canGo(next)) {
            throw new IllegalStateException("server: illegal transition " + state + " -> " + next);
        }
        LOG.log(Level.DEBUG, "server: " + state + " -> " + next);
        state = next;
    }

    private static <T> T await(Future<T> future) throws ExecutionException, TimeoutException {
        try {
            return future.toCompletionStage().toCompletableFuture().get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutionException(e);
        }
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
