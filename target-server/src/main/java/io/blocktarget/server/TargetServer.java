package io.blocktarget.server;

import io.blocktarget.block.file.UringFileBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.state.StateMachine;
import io.blocktarget.time.SystemClock;
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

import java.nio.file.Path;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

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

        static final StateMachine<State> MACHINE = StateMachine.of("server", State.class, NEW)
                .allow(NEW, STARTING)
                .allow(STARTING, RUNNING, STOPPING)
                .allow(RUNNING, STOPPING)
                .allow(STOPPING, STOPPED)
                .terminal(STOPPED)
                .build();
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
    /** What the configuration says beyond blocktarget.yaml (the command line's --bind, ports): kept on reload. */
    private final UnaryOperator<ServerConfig> overrides;
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
        this(config, configDir, UnaryOperator.identity());
    }

    /**
     * @param overrides what the command line changes in the server keys of {@code config} ({@code --bind}, ports);
     *                  applied again to {@code blocktarget.yaml} at every reload, so the command line keeps winning
     */
    public TargetServer(BlocktargetConfig config, Optional<Path> configDir, UnaryOperator<ServerConfig> overrides) {
        this.config = config;
        this.configDir = configDir;
        this.overrides = overrides;
        this.eventLoops = config.server().eventLoopCount();
    }

    public State state() {
        return state;
    }

    /** The LUNs now exported (the registry's current snapshot), in config order; valid once running. */
    public List<Lun> luns() {
        return registry != null ? registry.snapshot().luns() : List.of();
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
                + (pollWindowNanos == ServerConfig.POLL_WINDOW_AUTO ? ", adaptive polling"
                        : pollWindowNanos > 0 ? ", polling " + pollWindowNanos / 1000 + " us after work" : "")
                + fileIo.map(how -> ", O_DIRECT file I/O " + how).orElse("");
    }

    /** True when Netty runs on epoll/io_uring rather than NIO. */
    public boolean nativeTransport() {
        return vertx != null && vertx.isNativeTransportEnabled();
    }

    /**
     * Starts the event loops and the transports with nothing exported, applies the configuration's {@link ExportPlan}
     * to them — start-up is "apply the plan to an empty server", the path every later change takes — then opens the
     * portals. On failure everything opened so far is closed again.
     */
    public synchronized void start() throws ServerStartException {
        transitionTo(State.STARTING);
        try {
            ExportPlan plan = plan(config);
            memoryBudget = new MemoryBudget(config.server().memoryBudget());
            fileIoExecutor = Executors.newFixedThreadPool(
                    Math.max(2, Runtime.getRuntime().availableProcessors()), daemonThreads(threadPrefix + "file-io-"));
            startVertx();
            createTransports();
            try {
                registry.start(plan);
            } catch (ControlPlane.ControlException e) {
                String where = e.lun() == null ? "" : plan.lun(e.lun())
                        .map(l -> (l.source() != null ? l.source().toString() : l.name()) + ": ").orElse("");
                throw new ServerStartException(where + e.getMessage(), e);
            }
            openPortals();
        } catch (ServerStartException e) {
            stop();
            throw e;
        }
        transitionTo(State.RUNNING);
    }

    private static ExportPlan plan(BlocktargetConfig config) throws ServerStartException {
        try {
            return ExportPlan.of(config);
        } catch (ControlPlane.ControlException e) {   // the config module validated it: not expected
            throw new ServerStartException((e.lun() == null ? "" : "LUN " + e.lun() + ": ") + e.getMessage(), e);
        }
    }

    /** The server's current plan (the configuration it serves, server keys included); valid once running. */
    public ExportPlan plan() {
        return registry.plan();
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
        // poll-window: epoll loops that poll for a while after their work, then sleep; auto (the default) polls only
        // while commands arrive often. The io_uring transport has no select strategy to bound, so a config that puts
        // file I/O on the rings keeps sleeping loops (said at start, unless the window is the default's).
        long window = poll ? 0 : config.server().pollWindowNanos();
        boolean auto = window == ServerConfig.POLL_WINDOW_AUTO;
        Optional<String> windowCause = window == 0 ? Optional.empty()
                : uringLoops ? Optional.of("is not applied on io_uring event loops (O_DIRECT file LUNs)")
                : !Transport.EPOLL.available() ? Optional.of("needs the native epoll transport, which is unavailable ("
                        + Transport.EPOLL.unavailabilityCause() + ")")
                : Optional.empty();
        if (!auto) {
            windowCause.ifPresent(cause -> LOG.log(Level.WARNING,
                    "poll-window " + cause + "; event loops will sleep at once"));
        }
        pollWindowNanos = windowCause.isPresent() ? 0 : window;
        vertx = poll
                ? Vertx.builder().with(options).withTransport(PollingEpollTransport.create()).build()
                : uringLoops ? Vertx.builder().with(options).withTransport(UringTransport.create()).build()
                : pollWindowNanos == ServerConfig.POLL_WINDOW_AUTO
                ? Vertx.builder().with(options).withTransport(PollingEpollTransport.adaptive(clock::nanoTime)).build()
                : pollWindowNanos > 0
                ? Vertx.builder().with(options).withTransport(PollingEpollTransport.windowed(pollWindowNanos)).build()
                : Vertx.vertx(options);
        if (!vertx.isNativeTransportEnabled()) {
            LOG.log(Level.WARNING, "native transport unavailable, using NIO: " + vertx.unavailableNativeTransportCause());
        }
    }

    /**
     * The transports with nothing to serve yet, and the registry over them. The iSCSI portal list and the NVMe port
     * are server keys that need a restart; every target, subsystem and access setting comes with the plan.
     */
    private void createTransports() {
        ServerConfig server = config.server();
        // every portal with iSCSI, each its own target portal group: TPGT = the portal's id (1, 2, ... in order)
        List<String> iscsiPortals = new ArrayList<>();
        List<io.blocktarget.config.PortalConfig> portalConfigs = server.effectivePortals();
        for (int i = 0; i < portalConfigs.size(); i++) {
            io.blocktarget.config.PortalConfig p = portalConfigs.get(i);
            if (p.iscsiPort() != 0) {
                iscsiPortals.add(new Portal(Portal.Service.ISCSI, p.address(), p.iscsiPort()).address() + "," + (i + 1));
            }
        }
        IscsiSettings iscsiSettings = IscsiSettings.defaults().withPortals(iscsiPortals);
        iscsi = IscsiTransport.create(vertx, List.of(), iscsiSettings, clock);
        // one NVMe port per portal with NVMe/TCP, PORTID = the portal's id (1, 2, ... in order): the discovery log
        // lists each, and a controller sees the LUNs' path states of the portal it connected through (issue 29)
        List<NvmePort> nvmePorts = new ArrayList<>();
        List<io.blocktarget.config.PortalConfig> all = server.effectivePortals();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).nvmePort() != 0) {
                nvmePorts.add(new NvmePort(i + 1, all.get(i).address(), all.get(i).nvmePort()));
            }
        }
        NvmeSubsystems subsystems = NvmeSubsystems.of(List.of(), nvmePorts, NvmeLimits.DEFAULT, clock, Map.of());
        nvme = subsystems;
        nvmeTcp = NvmeTcpTransport.create(vertx, subsystems, NvmeLimits.DEFAULT);
        registry = new Registry(server, configDir, memoryBudget,
                Registry.opener(memoryBudget, fileIoExecutor), iscsi, subsystems, overrides, clock);
    }

    private void openPortals() throws ServerStartException {
        ServerConfig server = config.server();
        String bind = server.bindAddress();
        List<io.blocktarget.config.PortalConfig> all = server.effectivePortals();
        for (int i = 0; i < all.size(); i++) {
            int tpgt = i + 1;   // the portal's id: TPGT, ALUA target port group, relative target port, PORTID
            io.blocktarget.config.PortalConfig p = all.get(i);
            listen(Portal.Service.ISCSI, p.address(), p.iscsiPort(), socket -> iscsi.accept(socket, tpgt));
            listen(Portal.Service.NVME_TCP, p.address(), p.nvmePort(), socket -> nvmeTcp.accept(socket, false));
        }
        listen(Portal.Service.NVME_DISCOVERY, bind, server.discoveryPort(), socket -> nvmeTcp.accept(socket, true));
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
        State from = state;
        state = State.MACHINE.transition(from, next);
        LOG.log(Level.DEBUG, "server: " + from + " -> " + next);
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
