package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.DiscoveryLog;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.IntFunction;
import java.util.Collections;

/**
 * An NVM subsystem (its namespaces, grouped by NQN) or the discovery subsystem, and the controllers hosts
 * have created on it (dynamic controller model, Base §3.1.2.1: each Connect on an admin queue gets a fresh
 * CNTLID, unique within the subsystem). The namespace set is an immutable map that {@link #attach} and
 * {@link #detach} replace (a command keeps the namespace it looked up); the controller table is guarded by
 * this object's monitor.
 */
final class Subsystem {
    enum Kind { NVM, DISCOVERY }

    private final String nqn;
    private final Kind kind;
    /** Replaced as a whole (copy-on-write under this object's monitor): one volatile load per lookup. */
    private volatile NavigableMap<Long, Namespace> namespaces;
    /**
     * The same namespaces by NSID in an array, for NSIDs below {@link #DENSE_NSIDS}: every I/O command looks its
     * namespace up, and a TreeMap of boxed keys behind an unmodifiable view was 5 % of an event loop's samples
     * (bench/profile). Published after {@link #namespaces}, each a consistent snapshot of its own.
     */
    private volatile Namespace[] byNsid;
    static final int DENSE_NSIDS = 1024;
    private final String serialNumber;
    /** Replaced when the config's {@code access.hosts} changes; checked at Connect only (connected hosts stay). */
    private volatile Predicate<String> allowedHosts;
    private final Map<Integer, Controller> controllers = new TreeMap<>();
    private int nextCntlid = 1;

    /** SMART / Health counters, shared by the controllers of this subsystem. */
    final LongAdder readCommands = new LongAdder();
    final LongAdder writeCommands = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder mediaErrors = new LongAdder();

    Subsystem(String nqn, Kind kind, List<Namespace> namespaces, Predicate<String> allowedHosts) {
        this.nqn = nqn;
        this.kind = kind;
        TreeMap<Long, Namespace> map = new TreeMap<>();
        for (Namespace ns : namespaces) {
            if (map.putIfAbsent(ns.nsid(), ns) != null) {
                throw new IllegalArgumentException("subsystem " + nqn + ": NSID " + ns.nsid() + " used twice");
            }
        }
        publish(map);
        map.values().forEach(ns -> ns.watchZones(this));
        if (kind == Kind.NVM) {
            map.keySet().forEach(this::assignAnaGroup);
        }
        // Identify SN: 20 ASCII characters, the same for every controller of the subsystem (Linux checks that).
        this.serialNumber = HexFormat.of().formatHex(Namespace.sha256("blocktarget subsystem " + nqn), 0, 10);
        this.allowedHosts = allowedHosts;
    }

    static Subsystem discovery() {
        return new Subsystem(DiscoveryLog.DISCOVERY_NQN, Kind.DISCOVERY, List.of(), host -> true);
    }

    /** Any host, the default until the configuration names hosts. */
    static Predicate<String> anyHost() {
        return host -> true;
    }

    /** Only the listed host NQNs; an empty set means any host. */
    static Predicate<String> hosts(Set<String> hostNqns) {
        Set<String> copy = Set.copyOf(hostNqns);
        return copy.isEmpty() ? anyHost() : new HostList(copy);
    }

    /** An allow-list that can say what it holds (the server reads access back to check it applied its plan). */
    private record HostList(Set<String> hosts) implements Predicate<String> {
        @Override
        public boolean test(String hostNqn) {
            return hosts.contains(hostNqn);
        }
    }

    /** The allowed host NQNs; empty: any host. */
    Set<String> allowedHostNqns() {
        return allowedHosts instanceof HostList list ? list.hosts() : Set.of();
    }

    String nqn() {
        return nqn;
    }

    Kind kind() {
        return kind;
    }

    String serialNumber() {
        return knobs().identity(io.blocktarget.config.DeviceKnobs.Identity.SERIAL).orElse(serialNumber);
    }

    /** DH-HMAC-CHAP keys (Base 2.2 §8.3.4); empty: no in-band authentication. Read at each Connect. */
    private volatile java.util.Optional<DhchapKeys> dhchap = java.util.Optional.empty();

    java.util.Optional<DhchapKeys> dhchap() {
        return dhchap;
    }

    void dhchap(java.util.Optional<DhchapKeys> keys) {
        this.dhchap = keys;
    }

    /** {@code access.tls} of the subsystem: TREQ / SECTYPE of its discovery entries, checked at each Connect. */
    private volatile SecureChannel secureChannel = SecureChannel.NOT_SPECIFIED;

    SecureChannel secureChannel() {
        return secureChannel;
    }

    void secureChannel(SecureChannel requirement) {
        this.secureChannel = requirement;
    }

    /** The configured PSK of {@code access.tls-psk-file}; empty with {@code tls: off}. Read at each TLS handshake. */
    private volatile java.util.Optional<io.blocktarget.config.TlsPsk> tlsPsk = java.util.Optional.empty();

    java.util.Optional<io.blocktarget.config.TlsPsk> tlsPsk() {
        return tlsPsk;
    }

    void tlsPsk(java.util.Optional<io.blocktarget.config.TlsPsk> psk) {
        this.tlsPsk = psk;
    }

    void allowedHosts(Predicate<String> hosts) {
        this.allowedHosts = hosts;
    }

    boolean allows(String hostNqn) {
        return allowedHosts.test(hostNqn);
    }

    NavigableMap<Long, Namespace> namespaces() {
        return namespaces;
    }

    /** The active namespace {@code nsid} (unsigned), or null. */
    Namespace namespace(long nsid) {
        Namespace[] dense = byNsid;
        if (nsid >= 0 && nsid < dense.length) {
            return dense[(int) nsid];
        }
        return nsid < DENSE_NSIDS ? null : namespaces.get(nsid);
    }

    /** Makes {@code map} the namespaces (constructor, or under this object's monitor). */
    private void publish(TreeMap<Long, Namespace> map) {
        namespaces = Collections.unmodifiableNavigableMap(map);
        Long below = map.lowerKey((long) DENSE_NSIDS);
        Namespace[] dense = new Namespace[below == null ? 0 : (int) (below + 1)];
        map.headMap((long) DENSE_NSIDS).forEach((nsid, ns) -> dense[(int) (long) nsid] = ns);
        byNsid = dense;
    }

    /** ANAGRPID by NSID of the attached namespaces that have one (Ana); guarded by this. */
    private final java.util.Map<Long, Integer> anaGroups = new java.util.HashMap<>();
    /** ANA groups in use, bit = ANAGRPID; guarded by this. */
    private final java.util.BitSet anaGroupsUsed = new java.util.BitSet();
    /** Change Count of the ANA log page: every change of a namespace's path states, and every group added. */
    private final java.util.concurrent.atomic.AtomicLong anaChangeCount = new java.util.concurrent.atomic.AtomicLong();

    /** The lowest free ANAGRPID for {@code nsid}, none (0) when all {@link Ana#MAX_GROUPS} are taken. */
    private synchronized void assignAnaGroup(long nsid) {
        int group = anaGroupsUsed.nextClearBit(1);
        if (group <= Ana.MAX_GROUPS) {
            anaGroupsUsed.set(group);
            anaGroups.put(nsid, group);
            anaChangeCount.incrementAndGet();
        }
    }

    /** The ANAGRPID of namespace {@code nsid}; 0 when it has none. */
    synchronized int anaGroup(long nsid) {
        return anaGroups.getOrDefault(nsid, 0);
    }

    long anaChangeCount() {
        return anaChangeCount.get();
    }

    /** A namespace's path states changed: the log page's change count moves. */
    void anaChanged() {
        anaChangeCount.incrementAndGet();
    }

    /** Adds a namespace at runtime; false when its NSID is in use. */
    synchronized boolean attach(Namespace ns) {
        if (kind != Kind.NVM || namespaces.containsKey(ns.nsid())) {
            return false;
        }
        TreeMap<Long, Namespace> map = new TreeMap<>(namespaces);
        map.put(ns.nsid(), ns);
        publish(map);
        assignAnaGroup(ns.nsid());
        ns.watchZones(this);
        return true;
    }

    /** Takes namespace {@code nsid} away: lookups no longer find it. Null when it was not there. */
    synchronized Namespace detach(long nsid) {
        TreeMap<Long, Namespace> map = new TreeMap<>(namespaces);
        Namespace removed = map.remove(nsid);
        if (removed != null) {
            publish(map);
            Integer group = anaGroups.remove(nsid);
            if (group != null) {
                anaGroupsUsed.clear(group);
            }
            removed.unwatchZones();
        }
        return removed;
    }

    /**
     * Identify NN, the highest valid NSID (Base §5.17.2.1): the largest NSID the subsystem uses, but at least MNAN
     * ({@link Ana#MAX_GROUPS}), which a controller with ANA reporting must keep at or below NN — Linux refuses the
     * controller otherwise ("Invalid MNAN value", the connect fails with EINVAL). Unused NSIDs up to NN are valid and
     * inactive (Identify returns zeros), as on nvmet.
     */
    long nn() {
        return Math.max(Ana.MAX_GROUPS, namespaces.isEmpty() ? 0 : namespaces.lastKey());
    }

    /** VWC: {@code commands.write-cache} where given (the LUNs of a subsystem agree), else any device's cache. */
    boolean volatileWriteCache() {
        return knobs().command(io.blocktarget.config.DeviceKnobs.Command.WRITE_CACHE,
                namespaces.values().stream().anyMatch(ns -> ns.device().volatileWriteCache()));
    }

    /**
     * The knobs that are controller fields (SN, MN, FR, ONCS, VWC): the config module makes the LUNs of one
     * subsystem agree on them, so the first namespace speaks for all; none = the defaults.
     */
    io.blocktarget.config.DeviceKnobs knobs() {
        var all = namespaces;
        return all.isEmpty() ? io.blocktarget.config.DeviceKnobs.DEFAULTS : all.firstEntry().getValue().knobs();
    }

    /** A namespace with new knobs over the same device, in place (issue 11); false when {@code nsid} is not there. */
    synchronized boolean replace(Namespace ns) {
        if (!namespaces.containsKey(ns.nsid())) {
            return false;
        }
        TreeMap<Long, Namespace> map = new TreeMap<>(namespaces);
        map.put(ns.nsid(), ns);
        publish(map);
        return true;
    }

    /** Registers a new controller under a free CNTLID; null when all 65519 are in use. */
    synchronized Controller addController(IntFunction<Controller> factory) {
        for (int tries = 0; tries < ControllerConstants.MAX_CNTLID; tries++) {
            int cntlid = nextCntlid;
            nextCntlid = cntlid == ControllerConstants.MAX_CNTLID ? 1 : cntlid + 1;
            if (!controllers.containsKey(cntlid)) {
                Controller c = factory.apply(cntlid);
                controllers.put(cntlid, c);
                return c;
            }
        }
        return null;
    }

    synchronized Controller controller(int cntlid) {
        return controllers.get(cntlid);
    }

    synchronized void removeController(Controller controller) {
        controllers.remove(controller.cntlid(), controller);
    }

    synchronized List<Controller> controllers() {
        return List.copyOf(controllers.values());
    }
}
