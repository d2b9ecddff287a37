package io.blocktarget.server;

import io.blocktarget.config.BackendKind;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ChapConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DhchapConfig;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.DhchapSecrets;
import io.blocktarget.config.FaultRuleConfig;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.config.TlsMode;
import io.blocktarget.nvme.DhchapKeys;
import io.blocktarget.nvme.SecureChannel;
import io.blocktarget.nvme.SubsystemAccess;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.scsi.ScsiLun;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.TargetAccess;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the server exports for one validated configuration (DESIGN §11): the LUNs with their device parameters, the
 * iSCSI targets (LUN map, initiator list, CHAP, session values), the NVMe subsystems (namespaces, allowed hosts,
 * DH-HMAC-CHAP keys, TLS), the discovery settings, and the server keys. Built by {@link #of} — a pure function, and
 * the only place that turns configuration into the runtime's vocabulary ({@link TargetAccess}, {@link
 * SubsystemAccess}, {@link Chap}, {@link DhchapKeys}); start-up and every change apply a plan through {@link PlanDiff}
 * and {@link StepRunner}. Two plans are equal when a server serving either looks the same to every initiator.
 *
 * <p>Per target / subsystem settings come from its LUN files, which the config module makes agree (access claims);
 * the first LUN that has one speaks for all.
 *
 * @param server     the server keys
 * @param luns       in configuration order; each LUN's {@link LunConfig} is its device parameters, knobs and fault
 *                   rules
 * @param targets    by IQN, in the order their first LUN appears
 * @param subsystems by NQN, in the order their first LUN appears (the discovery log's order)
 * @param discovery  what discovery sessions need
 */
public record ExportPlan(ServerConfig server, List<LunConfig> luns, Map<String, IscsiTarget> targets,
                         Map<String, NvmeSubsystem> subsystems, Discovery discovery) {

    /**
     * One iSCSI target.
     *
     * @param luns   LUN number → LUN name
     * @param access CHAP, initiators, session values
     */
    public record IscsiTarget(String name, SortedMap<Long, String> luns, TargetAccess access) {
        public IscsiTarget {
            Objects.requireNonNull(name, "name");
            luns = Collections.unmodifiableSortedMap(new TreeMap<>(luns));
            Objects.requireNonNull(access, "access");
        }
    }

    /**
     * One NVM subsystem.
     *
     * @param namespaces NSID → LUN name
     * @param access     hosts, DH-HMAC-CHAP keys, TLS
     */
    public record NvmeSubsystem(String nqn, SortedMap<Long, String> namespaces, SubsystemAccess access) {
        public NvmeSubsystem {
            Objects.requireNonNull(nqn, "nqn");
            namespaces = Collections.unmodifiableSortedMap(new TreeMap<>(namespaces));
            Objects.requireNonNull(access, "access");
        }
    }

    /** @param iscsiChap CHAP every iSCSI discovery session must pass ({@code discovery-chap}); empty: open */
    public record Discovery(Optional<Chap> iscsiChap) {
        public static final Discovery OPEN = new Discovery(Optional.empty());

        public Discovery {
            Objects.requireNonNull(iscsiChap, "iscsiChap");
        }
    }

    public ExportPlan {
        Objects.requireNonNull(server, "server");
        luns = List.copyOf(luns);
        targets = Collections.unmodifiableMap(new LinkedHashMap<>(targets));
        subsystems = Collections.unmodifiableMap(new LinkedHashMap<>(subsystems));
        Objects.requireNonNull(discovery, "discovery");
    }

    /**
     * Nothing exported: what a server starts from, with {@code server}'s keys but open discovery (the transports start
     * without discovery CHAP; the first plan's diff sets it, as a reload does).
     */
    public static ExportPlan empty(ServerConfig server) {
        return new ExportPlan(server.withDiscoveryChap(Optional.empty()), List.of(), Map.of(), Map.of(),
                Discovery.OPEN);
    }

    /** The plan of a validated configuration. */
    public static ExportPlan of(BlocktargetConfig config) throws ControlException {
        return of(config.server(), config.luns());
    }

    /**
     * The plan of {@code luns} under {@code server}. The config module validates a directory as a whole; an API caller
     * may hand over a list it did not cross-check, so the exports are checked here to fit the wire and each other
     * (LUN 0..16383, NSID 1..FFFFFFFEh, each target LUN and subsystem NSID once, each name once).
     *
     * @throws ControlException INVALID or CONFLICT naming the LUN and the key
     */
    public static ExportPlan of(ServerConfig server, List<LunConfig> luns) throws ControlException {
        Map<String, TargetBuilder> targets = new LinkedHashMap<>();
        Map<String, SubsystemBuilder> subsystems = new LinkedHashMap<>();
        Set<String> names = new LinkedHashSet<>();
        for (LunConfig lun : luns) {
            if (!names.add(lun.name())) {
                throw new ControlException(ControlException.Kind.CONFLICT, lun.name(), null, "LUN " + lun.name()
                        + " is given twice");
            }
            if (lun.iscsi().isPresent()) {
                var e = lun.iscsi().get();
                if (e.lun() < 0 || e.lun() > ScsiLun.MAX_FLAT_LUN) {
                    throw new ControlException(ControlException.Kind.INVALID, lun.name(), "export.iscsi.lun",
                            "LUN " + e.lun() + " of " + lun.name() + " is outside 0..16383");
                }
                TargetBuilder target = targets.computeIfAbsent(e.target(), TargetBuilder::new);
                String other = target.luns.putIfAbsent((long) e.lun(), lun.name());
                if (other != null) {
                    throw new ControlException(ControlException.Kind.CONFLICT, lun.name(), "export.iscsi.lun",
                            "LUN " + e.lun() + " of target " + e.target() + " is taken by " + other);
                }
                target.add(lun);
            }
            if (lun.nvme().isPresent()) {
                var e = lun.nvme().get();
                if (e.nsid() < 1 || e.nsid() > 0xFFFF_FFFEL || e.subsystem().equals(DiscoveryLog.DISCOVERY_NQN)) {
                    throw new ControlException(ControlException.Kind.INVALID, lun.name(), "export.nvme.nsid",
                            "NSID " + e.nsid() + " of " + lun.name()
                                    + " is outside 1..FFFFFFFEh (or in the discovery subsystem)");
                }
                SubsystemBuilder subsystem = subsystems.computeIfAbsent(e.subsystem(), SubsystemBuilder::new);
                String other = subsystem.namespaces.putIfAbsent(e.nsid(), lun.name());
                if (other != null) {
                    throw new ControlException(ControlException.Kind.CONFLICT, lun.name(), "export.nvme.nsid",
                            "NSID " + e.nsid() + " of subsystem " + e.subsystem() + " is taken by " + other);
                }
                subsystem.add(lun);
            }
        }
        Map<String, IscsiTarget> builtTargets = new LinkedHashMap<>();
        targets.forEach((name, b) -> builtTargets.put(name, b.build()));
        Map<String, NvmeSubsystem> builtSubsystems = new LinkedHashMap<>();
        subsystems.forEach((nqn, b) -> builtSubsystems.put(nqn, b.build()));
        return new ExportPlan(server, luns, builtTargets, builtSubsystems, discovery(server));
    }

    public Optional<LunConfig> lun(String name) {
        return luns.stream().filter(l -> l.name().equals(name)).findFirst();
    }

    /**
     * This plan's exports without its server keys: what two servers on different ports compare to say they serve the
     * same thing.
     */
    /** How the warning of RAM disks declaring more than the memory budget begins. */
    static final String RAM_OVER_BUDGET = "RAM disks declare ";

    public Exports exports() {
        return new Exports(luns, targets, subsystems, discovery);
    }

    /** {@link ExportPlan} without the server keys (ports, threads, control socket). */
    public record Exports(List<LunConfig> luns, Map<String, IscsiTarget> targets, Map<String, NvmeSubsystem> subsystems,
                          Discovery discovery) {
    }

    /**
     * What is allowed but worth telling whoever asked for this plan: RAM disks declaring more than the memory budget
     * (they are thin, like brd: writes beyond it fail with out-of-space), fault rules whose LBA range reaches past
     * their LUN (commands there are refused as out of range before any rule sees them).
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        long ram = luns.stream().filter(l -> l.backend() == BackendKind.RAM).mapToLong(LunConfig::size).sum();
        if (ram > server.memoryBudget()) {
            warnings.add(RAM_OVER_BUDGET + ConfigLoader.formatSize(ram) + " in total, more than the memory budget"
                    + " of " + ConfigLoader.formatSize(server.memoryBudget()) + "; writes beyond the budget fail with"
                    + " out-of-space");
        }
        for (LunConfig lun : luns) {
            long last = lun.blockCount() - 1;
            for (FaultRuleConfig rule : lun.features().faults()) {
                if (rule.hasLbaRange() && rule.lastLba() > last) {
                    warnings.add("LUN " + lun.name() + ": fault rule " + rule.id() + " covers LBAs " + rule.firstLba()
                            + ".." + (rule.lastLba() == Long.MAX_VALUE ? "end" : Long.toString(rule.lastLba()))
                            + " but the LUN ends at LBA " + last + "; commands beyond it fail as out of range before"
                            + " the rule sees them");
                }
            }
        }
        return warnings;
    }

    // ---- the translations: configuration → the runtime's vocabulary ------------------------------------------

    private static Discovery discovery(ServerConfig server) {
        return new Discovery(server.discoveryChap().map(ExportPlan::chap));
    }

    /** {@code access.chap} / {@code discovery-chap} as the iSCSI transport checks it (RFC 7143 §12.1.3). */
    static Chap chap(ChapConfig c) {
        return new Chap(c.user(), c.secret(), c.mutualUser(), c.mutualSecret());
    }

    /**
     * A target's session values from its LUN's {@code session:} keys, the transport's defaults where a key is absent;
     * empty when the LUN sets none of the iSCSI ones.
     */
    static Optional<IscsiSettings.SessionLimits> sessionLimits(DeviceKnobs knobs) {
        boolean any = java.util.Arrays.stream(DeviceKnobs.Session.values())
                .anyMatch(s -> !s.isNvme() && knobs.session(s).isPresent());
        if (!any) {
            return Optional.empty();
        }
        IscsiSettings defaults = IscsiSettings.defaults();
        return Optional.of(new IscsiSettings.SessionLimits(
                session(knobs, DeviceKnobs.Session.MAX_RECV_DATA_SEGMENT_LENGTH, defaults.maxRecvDataSegmentLength()),
                session(knobs, DeviceKnobs.Session.MAX_BURST_LENGTH, defaults.maxBurstLength()),
                session(knobs, DeviceKnobs.Session.FIRST_BURST_LENGTH, defaults.firstBurstLength()),
                session(knobs, DeviceKnobs.Session.QUEUE_DEPTH, defaults.queueDepth())));
    }

    private static int session(DeviceKnobs knobs, DeviceKnobs.Session key, int fallback) {
        return knobs.session(key).map(Long::intValue).orElse(fallback);
    }

    /** Per host NQN: its host key (own or the file's key for every host) with its controller key, if any. */
    static DhchapKeys dhchapKeys(DhchapConfig d) {
        Map<String, DhchapKeys.HostKeys> hosts = new LinkedHashMap<>();
        for (String host : d.namedHosts()) {
            d.hostSecret(host).ifPresent(h -> hosts.put(host, new DhchapKeys.HostKeys(key(h),
                    d.ctrlSecret(host).map(ExportPlan::key))));
        }
        Optional<DhchapKeys.HostKeys> others = d.host().others().map(h ->
                new DhchapKeys.HostKeys(key(h), d.ctrl().flatMap(DhchapSecrets::others).map(ExportPlan::key)));
        return new DhchapKeys(hosts, others);
    }

    private static DhchapKeys.Key key(DhchapSecret secret) {
        return new DhchapKeys.Key(secret.transform(), secret.key());
    }

    /**
     * {@code access.tls} as the subsystem's TREQ. The NVMe/TCP port is shared by every subsystem, so a port has no TLS
     * setting of its own: which subsystem a connection is for is known only at Connect (or, over TLS, from the PSK
     * identity), and that is where {@code required} is enforced.
     */
    static SecureChannel channel(TlsMode mode) {
        return switch (mode) {
            case OFF -> SecureChannel.NOT_SPECIFIED;
            case ALLOWED -> SecureChannel.NOT_REQUIRED;
            case REQUIRED -> SecureChannel.REQUIRED;
        };
    }

    /** Collects one target's LUNs and settings. */
    private static final class TargetBuilder {
        final String name;
        final SortedMap<Long, String> luns = new TreeMap<>();
        Optional<Chap> chap = Optional.empty();
        Set<String> initiators = Set.of();
        Optional<IscsiSettings.SessionLimits> limits = Optional.empty();

        TargetBuilder(String name) {
            this.name = name;
        }

        void add(LunConfig lun) {
            if (chap.isEmpty()) {
                chap = lun.access().chap().map(ExportPlan::chap);
            }
            if (initiators.isEmpty()) {
                initiators = Set.copyOf(lun.access().initiators());
            }
            if (limits.isEmpty()) {
                limits = sessionLimits(lun.features().knobs());
            }
        }

        IscsiTarget build() {
            return new IscsiTarget(name, luns, new TargetAccess(chap, initiators, limits));
        }
    }

    /** Collects one subsystem's namespaces and settings. */
    private static final class SubsystemBuilder {
        final String nqn;
        final SortedMap<Long, String> namespaces = new TreeMap<>();
        Set<String> hosts = Set.of();
        Optional<DhchapKeys> dhchap = Optional.empty();
        SecureChannel channel;
        Optional<io.blocktarget.config.TlsPsk> psk = Optional.empty();

        SubsystemBuilder(String nqn) {
            this.nqn = nqn;
        }

        void add(LunConfig lun) {
            if (hosts.isEmpty()) {
                hosts = Set.copyOf(lun.access().hosts());
            }
            if (dhchap.isEmpty()) {
                dhchap = lun.access().dhchap().map(ExportPlan::dhchapKeys);
            }
            if (channel == null) {
                channel = channel(lun.access().tls().mode());
            }
            if (psk.isEmpty()) {
                psk = lun.access().tls().psk();
            }
        }

        NvmeSubsystem build() {
            return new NvmeSubsystem(nqn, namespaces, new SubsystemAccess(hosts, dhchap, channel, psk));
        }
    }
}
