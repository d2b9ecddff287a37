package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.Clock;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.Collections;

/**
 * The {@link NvmeTarget} of the server: every NVM subsystem (namespaces grouped by subsystem NQN) and the
 * discovery subsystem {@code nqn.2014-08.org.nvmexpress.discovery}, and the Connect logic of the dynamic
 * controller model (Base §6.3). Thread-safe: connections on any event loop may connect at once.
 *
 * <p>The namespace and subsystem sets change at runtime ({@link #attachNamespace}, {@link #detachNamespace}) and
 * hosts are told as the specs say: a namespace added to, removed from or resized in a subsystem is a Namespace
 * Attribute Changed notice with its NSID in the Changed Namespace List of every controller of that subsystem (Base
 * §5.2, §5.16.1.5); a subsystem that appears or goes away changes the discovery log (GENCTR + 1, Discovery Log Page
 * Change notice, Base §5.16.1.23). A removed subsystem's controllers are torn down (their connections closed).
 */
public final class NvmeSubsystems implements NvmeTarget {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvme");
    /**
     * Host NQN syntax (Base §4.5): {@code nqn.yyyy-mm.reverse-domain[:string]}, or the UUID form
     * {@code nqn.2014-08.org.nvmexpress:uuid:…} which has the same shape.
     */
    private static final Pattern NQN = Pattern.compile("nqn\\.[0-9]{4}-[0-9]{2}\\.[A-Za-z0-9][A-Za-z0-9.-]*(:.+)?");

    /**
     * NQN → subsystem, discovery first, then in configuration order. Replaced as a whole (copy-on-write under
     * this object's monitor) when subsystems come and go; a Connect reads it once.
     */
    private volatile Map<String, Subsystem> subsystems;
    private final List<NvmePort> ports;
    private final NvmeLimits limits;
    /** The server's clock: keep-alive timers. */
    private final Clock clock;
    /**
     * DH-HMAC-CHAP's Diffie-Hellman work (ffdhe2048..8192 keys take 10..500 ms), off the event loops: two threads at
     * most, started by the first authentication, ended after a minute idle or by {@link #close}.
     */
    private final ThreadPoolExecutor crypto;
    private final AtomicLong genctr = new AtomicLong(1);

    private NvmeSubsystems(Map<String, Subsystem> subsystems, List<NvmePort> ports, NvmeLimits limits, Clock clock) {
        this.subsystems = subsystems;
        this.ports = List.copyOf(ports);
        this.limits = limits;
        this.clock = clock;
        AtomicInteger threads = new AtomicInteger();
        this.crypto = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "nvme-dhchap-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        crypto.allowCoreThreadTimeOut(true);
    }

    /**
     * Builds the target. {@code allowedHosts} maps a subsystem NQN to the host NQNs that may connect to it;
     * a subsystem missing from the map, or mapped to an empty set, admits any host.
     */
    public static NvmeSubsystems of(List<NamespaceSpec> namespaces, List<NvmePort> ports, NvmeLimits limits,
                                    Clock clock, Map<String, Set<String>> allowedHosts) {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(clock, "clock");
        Map<String, List<Namespace>> grouped = new LinkedHashMap<>();
        for (NamespaceSpec spec : namespaces) {
            if (spec.subsystemNqn().equals(DiscoveryLog.DISCOVERY_NQN)) {
                throw new IllegalArgumentException("namespace " + spec.name() + " in the discovery subsystem");
            }
            grouped.computeIfAbsent(spec.subsystemNqn(), nqn -> new ArrayList<>()).add(new Namespace(spec));
        }
        Map<String, Subsystem> map = new LinkedHashMap<>();
        map.put(DiscoveryLog.DISCOVERY_NQN, Subsystem.discovery());
        grouped.forEach((nqn, list) -> map.put(nqn, new Subsystem(nqn, Subsystem.Kind.NVM, list,
                Subsystem.hosts(allowedHosts.getOrDefault(nqn, Set.of())))));
        // insertion order: the discovery log lists subsystems in configuration order
        return new NvmeSubsystems(Collections.unmodifiableMap(map), ports, limits, clock);
    }

    NvmeLimits limits() {
        return limits;
    }

    Clock clock() {
        return clock;
    }

    /** Where DH-HMAC-CHAP computes (see {@link Authentication}). */
    Executor crypto() {
        return crypto;
    }

    /**
     * Stops the DH-HMAC-CHAP threads (the server stops): an authentication still computing ends with its thread;
     * its queue's connection is closing anyway.
     */
    public void close() {
        crypto.shutdownNow();
    }

    @Override
    public void connect(ConnectCommand command, ConnectData data, NvmeHostConnection connection,
                        ConnectCompletion done) {
        Subsystem target = subsystems.get(data.subnqn());
        if (target != null && !target.secureChannel().admits(connection.security())) {
            // tls: required (NVMe/TCP §3.6, TREQ "secure channel required"): the host should have come over TLS;
            // refuse and close, as nvmet closes a plain connection on a port that requires TLS.
            if (connection.logAdmitted()) {
                LOG.log(Level.INFO, "NVMe Connect QID {0} from {1} ({2}) to {3} refused: the subsystem requires TLS"
                        + " (access.tls: required) and the connection is plain; closing it", command.qid(),
                        connection.peerAddress(), data.hostnqn(), data.subnqn());
            }
            done.complete(ConnectResult.refused(NvmeStatus.CONNECT_INVALID_HOST, 0));
            connection.terminate("plain connection to a subsystem that requires TLS");
            return;
        }
        Optional<TlsSession> tls = connection.tlsSession();
        if (target != null && target.kind() == Subsystem.Kind.NVM && tls.isPresent()
                && !(tls.get().subsystemNqn().equals(data.subnqn()) && tls.get().hostNqn().equals(data.hostnqn()))) {
            // The TLS PSK was derived for one host and one subsystem (NVMe/TCP §3.6.1.3, the identity names both):
            // a Connect naming another is not what the key authenticated.
            if (connection.logAdmitted()) {
                LOG.log(Level.INFO, "NVMe Connect QID {0} from {1} ({2}) to {3} refused: the connection's TLS PSK is"
                        + " for {4} to {5}; closing it", command.qid(), connection.peerAddress(), data.hostnqn(),
                        data.subnqn(), tls.get().hostNqn(), tls.get().subsystemNqn());
            }
            done.complete(ConnectResult.refused(NvmeStatus.CONNECT_INVALID_HOST, 0));
            connection.terminate("Connect for another host or subsystem than the TLS PSK's");
            return;
        }
        ConnectResult result = connect(command, data, connection);
        if (!result.status().isSuccess() && connection.logAdmitted()) {
            LOG.log(Level.INFO, "NVMe Connect QID {0} from {1} ({2}) to {3} refused: {4}", command.qid(),
                    connection.peerAddress(), data.hostnqn(), data.subnqn(), result.status());
        }
        done.complete(result);
    }

    private ConnectResult connect(ConnectCommand command, ConnectData data, NvmeHostConnection connection) {
        Subsystem subsystem = subsystems.get(data.subnqn());
        if (subsystem == null) {
            // DNR clear: the subsystem may be added (again) at runtime, and a reconnecting host should find it
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS_RETRYABLE,
                    ConnectResponse.invalidParameter(true, ConnectData.OFFSET_SUBNQN));
        }
        // An empty HOSTNQN (SPDK's host sends one unless told otherwise) names no host: a subsystem open to any
        // host takes it, as SPDK's target does; one with an allow-list refuses it below (Connect Invalid Host).
        if (!data.hostnqn().isEmpty() && !NQN.matcher(data.hostnqn()).matches()) {
            return invalidData(ConnectData.OFFSET_HOSTNQN);
        }
        if (!subsystem.allows(data.hostnqn())) {
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_HOST, 0);
        }
        if (command.sqsize() >= ControllerConstants.MAX_QUEUE_ENTRIES) {
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(false, ConnectCommand.OFFSET_SQSIZE));
        }
        if (command.isAdminQueue()) {
            return connectAdmin(subsystem, command, data, connection);
        }
        Controller controller = subsystem.controller(data.cntlid());
        if (controller == null) {
            return invalidData(ConnectData.OFFSET_CNTLID);
        }
        return controller.attachIo(command, data, connection);
    }

    /** Admin queue: a new controller (dynamic model: the host must ask for CNTLID FFFFh). */
    private ConnectResult connectAdmin(Subsystem subsystem, ConnectCommand command, ConnectData data,
                                       NvmeHostConnection connection) {
        if (data.cntlid() != ConnectData.CNTLID_DYNAMIC) {
            return invalidData(ConnectData.OFFSET_CNTLID);
        }
        long kato = command.kato() == 0 && subsystem.kind() == Subsystem.Kind.DISCOVERY
                ? ControllerConstants.DISCOVERY_DEFAULT_KATO_MILLIS : Controller.roundKato(command.kato());
        int portId = portIdOf(connection);
        Controller controller = subsystem.addController(cntlid -> new Controller(this, subsystem, cntlid, data, kato,
                portId));
        if (controller == null) {
            return ConnectResult.refused(NvmeStatus.CONNECT_CONTROLLER_BUSY, 0);
        }
        ControllerQueue admin = controller.attachAdmin(command, connection);
        return ConnectResult.accepted(admin, ConnectResponse.success(controller.cntlid())
                | (admin.authenticationRequired() ? Dhchap.CONNECT_ATR : 0));
    }

    private static ConnectResult invalidData(int offset) {
        return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS, ConnectResponse.invalidParameter(true, offset));
    }

    /**
     * Adds a namespace at runtime. Into an existing NVM subsystem: a namespace change for its controllers. Else a new
     * subsystem admitting {@code allowedHosts} (empty: any host) appears in the discovery log.
     *
     * @throws IllegalArgumentException for an NSID outside 1..FFFFFFFEh or in use, or the discovery NQN
     */
    public synchronized void attachNamespace(NamespaceSpec spec, Set<String> allowedHosts) {
        if (spec.subsystemNqn().equals(DiscoveryLog.DISCOVERY_NQN)) {
            throw new IllegalArgumentException("namespace " + spec.name() + " in the discovery subsystem");
        }
        Namespace ns = new Namespace(spec);
        Subsystem subsystem = subsystems.get(spec.subsystemNqn());
        if (subsystem != null) {
            if (!subsystem.attach(ns)) {
                throw new IllegalArgumentException("subsystem " + spec.subsystemNqn() + ": NSID " + spec.nsid()
                        + " is in use");
            }
            namespaceChanged(spec.subsystemNqn(), spec.nsid());
            return;
        }
        Map<String, Subsystem> map = new LinkedHashMap<>(subsystems);
        map.put(spec.subsystemNqn(), new Subsystem(spec.subsystemNqn(), Subsystem.Kind.NVM, List.of(ns),
                Subsystem.hosts(allowedHosts)));
        subsystems = Collections.unmodifiableMap(map);
        LOG.log(Level.INFO, "NVM subsystem {0} added", spec.subsystemNqn());
        discoveryChanged();
    }

    /**
     * Takes namespace {@code nsid} out of its subsystem: commands that look it up from now on fail with Invalid
     * Namespace or Format (the caller drains those in flight). The subsystem's controllers get a namespace change;
     * a subsystem left without namespaces goes away with its controllers and the discovery log changes. False when
     * there is no such namespace.
     */
    public synchronized boolean detachNamespace(String subsystemNqn, long nsid) {
        return detachNamespace(subsystemNqn, nsid, true);
    }

    /**
     * As {@link #detachNamespace(String, long)}; with {@code dropEmptySubsystem} false a subsystem left without
     * namespaces stays (its controllers get the namespace change) until {@link #removeSubsystem}: the server's plan
     * decides when a subsystem goes, not the order of its steps.
     */
    public synchronized boolean detachNamespace(String subsystemNqn, long nsid, boolean dropEmptySubsystem) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM || subsystem.detach(nsid) == null) {
            return false;
        }
        if (!subsystem.namespaces().isEmpty() || !dropEmptySubsystem) {
            namespaceChanged(subsystemNqn, nsid);
            return true;
        }
        Map<String, Subsystem> map = new LinkedHashMap<>(subsystems);
        map.remove(subsystemNqn);
        subsystems = Collections.unmodifiableMap(map);
        LOG.log(Level.INFO, "NVM subsystem {0} removed", subsystemNqn);
        subsystem.controllers().forEach(c -> c.tearDown("subsystem " + subsystemNqn + " removed", null));
        discoveryChanged();
        return true;
    }

    /**
     * Adds an NVM subsystem with {@code namespaces} and its access, all set before the discovery log shows it (no
     * window in which a host could connect unauthenticated, or find it empty); more namespaces follow with
     * {@link #attachNamespace(NamespaceSpec)}.
     *
     * @throws IllegalArgumentException when the subsystem exists, the NQN is the discovery subsystem's, a namespace
     *                                  names another subsystem or two share an NSID
     */
    public synchronized void addSubsystem(String subsystemNqn, SubsystemAccess access, List<NamespaceSpec> namespaces) {
        if (subsystemNqn.equals(DiscoveryLog.DISCOVERY_NQN) || subsystems.containsKey(subsystemNqn)) {
            throw new IllegalArgumentException("subsystem " + subsystemNqn + " exists");
        }
        List<Namespace> list = new ArrayList<>();
        for (NamespaceSpec spec : namespaces) {
            if (!spec.subsystemNqn().equals(subsystemNqn)) {
                throw new IllegalArgumentException("namespace " + spec.name() + " is for " + spec.subsystemNqn());
            }
            list.add(new Namespace(spec));
        }
        Subsystem subsystem = new Subsystem(subsystemNqn, Subsystem.Kind.NVM, list, Subsystem.hosts(access.hosts()));
        subsystem.dhchap(access.dhchap());
        subsystem.secureChannel(access.secureChannel());
        subsystem.tlsPsk(access.psk());
        Map<String, Subsystem> map = new LinkedHashMap<>(subsystems);
        map.put(subsystemNqn, subsystem);
        subsystems = Collections.unmodifiableMap(map);
        LOG.log(Level.INFO, "NVM subsystem {0} added", subsystemNqn);
        discoveryChanged();
    }

    /**
     * Removes NVM subsystem {@code subsystemNqn}: its controllers are torn down (their connections closed) and the
     * discovery log changes. False when there is no such subsystem.
     */
    public synchronized boolean removeSubsystem(String subsystemNqn) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM) {
            return false;
        }
        Map<String, Subsystem> map = new LinkedHashMap<>(subsystems);
        map.remove(subsystemNqn);
        subsystems = Collections.unmodifiableMap(map);
        LOG.log(Level.INFO, "NVM subsystem {0} removed", subsystemNqn);
        subsystem.controllers().forEach(c -> c.tearDown("subsystem " + subsystemNqn + " removed", null));
        discoveryChanged();
        return true;
    }

    /**
     * Adds a namespace to an existing NVM subsystem ({@link #addSubsystem}): its controllers get a namespace change.
     *
     * @throws IllegalArgumentException when there is no such subsystem or the NSID is in use
     */
    public synchronized void attachNamespace(NamespaceSpec spec) {
        Subsystem subsystem = subsystems.get(spec.subsystemNqn());
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM) {
            throw new IllegalArgumentException("no NVM subsystem " + spec.subsystemNqn() + " for " + spec.name());
        }
        attachNamespace(spec, Set.of());
    }

    /**
     * Sets the access of {@code subsystemNqn} as a whole (hosts, DH-HMAC-CHAP keys, TLS): Connects and TLS handshakes
     * from now on see it; connected controllers stay; the discovery log changes when TREQ does. No-op for an unknown
     * subsystem.
     */
    public void access(String subsystemNqn, SubsystemAccess access) {
        allowHosts(subsystemNqn, access.hosts());
        dhchap(subsystemNqn, access.dhchap());
        tlsPsk(subsystemNqn, access.psk());
        secureChannel(subsystemNqn, access.secureChannel());
    }

    /** The access of {@code subsystemNqn} now; empty for an unknown subsystem (or the discovery subsystem). */
    public Optional<SubsystemAccess> access(String subsystemNqn) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM) {
            return Optional.empty();
        }
        return Optional.of(new SubsystemAccess(subsystem.allowedHostNqns(), subsystem.dhchap(),
                subsystem.secureChannel(), subsystem.tlsPsk()));
    }

    /**
     * Sets the hosts that may connect to {@code subsystemNqn} from now on (empty: any host); controllers already
     * connected stay (Base §3.1: access is granted at Connect). No-op for an unknown subsystem.
     */
    public void allowHosts(String subsystemNqn, Set<String> hostNqns) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem != null && subsystem.kind() == Subsystem.Kind.NVM) {
            subsystem.allowedHosts(Subsystem.hosts(hostNqns));
        }
    }

    /**
     * {@code access.tls} of a subsystem: its discovery entries' TREQ / SECTYPE (GENCTR advances when it changes) and
     * the Connect check; connected controllers stay. No-op for an unknown subsystem.
     */
    public void secureChannel(String subsystemNqn, SecureChannel requirement) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem != null && subsystem.kind() == Subsystem.Kind.NVM && subsystem.secureChannel() != requirement) {
            subsystem.secureChannel(requirement);
            discoveryChanged();
        }
    }

    /**
     * Sets the TLS PSK of {@code subsystemNqn} ({@code access.tls-psk-file}; empty: none): TLS handshakes from now on
     * derive their PSKs from it; established TLS connections keep theirs. No-op for an unknown subsystem.
     */
    public void tlsPsk(String subsystemNqn, Optional<io.blocktarget.config.TlsPsk> psk) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem != null && subsystem.kind() == Subsystem.Kind.NVM) {
            subsystem.tlsPsk(psk);
        }
    }

    @Override
    public Optional<io.blocktarget.config.TlsPsk> tlsPsk(String subsystemNqn) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        return subsystem == null || subsystem.kind() != Subsystem.Kind.NVM ? Optional.empty() : subsystem.tlsPsk();
    }

    @Override
    public boolean tlsOffered() {
        return subsystems.values().stream().anyMatch(s -> s.kind() == Subsystem.Kind.NVM && s.tlsPsk().isPresent());
    }

    /**
     * Sets the DH-HMAC-CHAP keys of {@code subsystemNqn} (empty: none); queues connected from now on must
     * authenticate with them (ATR in the Connect response). No-op for an unknown subsystem.
     */
    public void dhchap(String subsystemNqn, Optional<DhchapKeys> keys) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem != null && subsystem.kind() == Subsystem.Kind.NVM) {
            subsystem.dhchap(keys);
        }
    }

    /** The subsystem NQNs served now, discovery included, in discovery-log order. */
    public List<String> subsystemNqns() {
        return List.copyOf(subsystems.keySet());
    }

    /** The NSIDs of {@code subsystemNqn} now, ascending; empty for an unknown subsystem. */
    public List<Long> nsids(String subsystemNqn) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        return subsystem == null ? List.of() : List.copyOf(subsystem.namespaces().keySet());
    }

    /**
     * A controller as the control plane lists it.
     *
     * @param queues   one entry per connected queue: "qid N local -> remote"
     * @param commands the transport's commands of all its queues by state (issue 27), every state listed
     */
    public record ControllerInfo(int cntlid, String subsystemNqn, String hostNqn, boolean discovery, long katoMillis,
                                 List<String> queues, List<Integer> queueEntries, java.util.Map<String, Long> commands) {
    }

    /** Every controller of every subsystem, discovery included. */
    public List<ControllerInfo> controllers() {
        List<ControllerInfo> all = new ArrayList<>();
        for (Subsystem subsystem : subsystems.values()) {
            for (Controller c : subsystem.controllers()) {
                List<String> queues = new ArrayList<>();
                List<Integer> entries = new ArrayList<>();
                java.util.Map<String, Long> commands = new java.util.LinkedHashMap<>();
                for (ControllerQueue q : c.liveQueues()) {
                    queues.add("qid " + q.qid() + " " + q.connection().localAddress() + " -> "
                            + q.connection().peerAddress());
                    entries.add(q.entries());
                    io.blocktarget.state.StateCounters.sum(commands, q.connection().commandCounts());
                }
                all.add(new ControllerInfo(c.cntlid(), subsystem.nqn(), c.hostNqn(), c.isDiscovery(), c.katoMillis(),
                        queues, entries, java.util.Collections.unmodifiableMap(commands)));
            }
        }
        return all;
    }

    /** Tears down controller {@code cntlid} of {@code subsystemNqn} (its queues' connections close); false if unknown. */
    public boolean dropController(String subsystemNqn, int cntlid, String reason) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        Controller c = subsystem == null ? null : subsystem.controller(cntlid);
        if (c == null) {
            return false;
        }
        c.tearDown(reason, null);
        return true;
    }

    /** The discovery log as {@code controller}'s host sees it (its allowed subsystems, its local address). */
    DiscoveryLog discoveryLog(Controller controller) {
        return DiscoveryLogs.build(genctr.get(), List.copyOf(subsystems.values()), ports, controller.hostNqn(),
                controller.adminConnection());
    }

    /**
     * Signals that namespace {@code nsid} of subsystem {@code subsystemNqn} changed (added, removed, resized):
     * every controller of the subsystem records it in its Changed Namespace List and sends a Namespace
     * Attribute Changed notice when the host enabled it (Base §5.2, §5.16.1.5).
     */
    public void namespaceChanged(String subsystemNqn, long nsid) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM) {
            throw new IllegalArgumentException("no NVM subsystem " + subsystemNqn);
        }
        subsystem.controllers().forEach(c -> c.events().namespaceChanged(nsid));
    }

    /**
     * New knobs for namespace {@code spec.nsid()} over the same device (issue 11): the namespace is replaced in
     * place — controllers, queues and commands in flight stay — and the subsystem's controllers get a Namespace
     * Attribute Changed notice (Base §5.2; Linux rescans the namespace). Identify Controller fields (SN, MN, FR, ONCS,
     * VWC) change too; a host reads those again only when it resets or reconnects the controller.
     *
     * @return false when there is no such namespace with that device (the caller attaches it instead)
     */
    public synchronized boolean retuneNamespace(NamespaceSpec spec) {
        Subsystem subsystem = subsystems.get(spec.subsystemNqn());
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM) {
            return false;
        }
        Namespace old = subsystem.namespace(spec.nsid());
        if (old == null || old.device() != spec.device() || !subsystem.replace(new Namespace(spec))) {
            return false;
        }
        namespaceChanged(spec.subsystemNqn(), spec.nsid());
        return true;
    }

    /**
     * The PORTID of the port {@code connection} came in on: the configured port whose TCP port and address (or
     * wildcard address) are the connection's local ones (a listener per portal); 0 when none is (a test's
     * transport), which sees every path optimized.
     */
    int portIdOf(NvmeHostConnection connection) {
        for (NvmePort port : ports) {
            if (port.port() == connection.localPort() && sameHost(port.address(), connection.localAddress())) {
                return port.portId();
            }
        }
        return 0;
    }

    /** Whether a port listening on {@code listening} (an IP literal, maybe the wildcard) accepts on {@code local}. */
    static boolean sameHost(String listening, String local) {
        try {
            java.net.InetAddress a = java.net.InetAddress.ofLiteral(listening);
            return a.isAnyLocalAddress() || a.equals(java.net.InetAddress.ofLiteral(local));
        } catch (IllegalArgumentException notALiteral) {
            return listening.equals(local);
        }
    }

    /**
     * The path states of namespace {@code nsid} of {@code subsystemNqn} changed on {@code portals} (Base 2.x §8.1.1.2):
     * the ANA log's change count moves and every controller connected through one of those ports gets an
     * Asymmetric Namespace Access Change notice when its host enabled it (Async Event Configuration bit 11). Unknown
     * subsystems and namespaces are ignored: the LUN may be going away.
     */
    public void anaChanged(String subsystemNqn, long nsid, Set<Integer> portals) {
        Subsystem subsystem = subsystems.get(subsystemNqn);
        if (subsystem == null || subsystem.kind() != Subsystem.Kind.NVM || subsystem.namespace(nsid) == null) {
            return;
        }
        subsystem.anaChanged();
        subsystem.controllers().stream().filter(c -> portals.contains(c.portId()))
                .forEach(c -> c.events().anaChanged());
    }

    /** Signals that the discovery information changed: GENCTR advances and discovery controllers are notified. */
    public void discoveryChanged() {
        genctr.incrementAndGet();
        subsystems.get(DiscoveryLog.DISCOVERY_NQN).controllers().forEach(c -> c.events().discoveryLogChanged());
    }
}
