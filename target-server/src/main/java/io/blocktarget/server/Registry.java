package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ConfigProblem;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTarget;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.transport.iscsi.IscsiTransport;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The runtime registry of LUNs, iSCSI targets and NVMe subsystems (DESIGN §10), and the {@link ControlPlane} the
 * control layer drives.
 *
 * <p>What is exported lives in immutable {@link Snapshot}s behind one volatile reference, replaced as a whole by
 * {@link #apply}; the command-set objects it points to ({@link ScsiTarget}, {@link NvmeSubsystems}) publish their own
 * inventories the same way, so logins, Connects, SendTargets, REPORT LUNS, Identify and every command read whatever
 * is current with one volatile load, and a command keeps the objects it started with (RCU-like: a removed LUN's device
 * is closed only after its {@link io.blocktarget.block.InFlight} count drained to zero).
 *
 * <p>{@link #apply} runs one at a time (a lock, never taken on an event loop: callers are the control layer's worker
 * threads and the config watcher) and is all-or-nothing: every new backend is opened and every resize done before
 * anything initiators see changes; when one fails, what was opened is closed, what was resized is sized back, and the
 * snapshot stays as it was. Then removals (so a replaced LUN frees its LUN number / NSID), then additions.
 */
final class Registry implements ControlPlane {
    private static final Logger LOG = System.getLogger("blocktarget.server");
    /** How long a removal waits for commands in flight before closing the device under them. */
    static final long DRAIN_TIMEOUT_SECONDS = 30;
    /** RFC 7143 §11.9.1 Parameter3 of the logout request sent to sessions of a removed target. */
    static final int LOGOUT_SECONDS = 2;

    /**
     * What is exported at one moment.
     *
     * @param luns        in config order
     * @param scsiTargets target name → target device, in first-seen order
     */
    record Snapshot(List<Lun> luns, Map<String, ScsiTarget> scsiTargets) {
        Snapshot {
            luns = List.copyOf(luns);
            scsiTargets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scsiTargets));
        }

        Optional<Lun> lun(String name) {
            return luns.stream().filter(l -> l.name().equals(name)).findFirst();
        }
    }

    /** How the registry opens a backend; the server's is {@link BlockDevices#open}, tests may fail on purpose. */
    @FunctionalInterface
    interface BackendOpener {
        BlockDevice open(LunConfig lun) throws IOException;
    }

    private final ServerConfig serverConfig;
    private final Optional<Path> configDir;
    private final MemoryBudget budget;
    private final BackendOpener opener;
    private final IscsiTransport iscsi;
    private final NvmeSubsystems nvme;
    /** The server's clock, for the LUN states it opens. */
    private final io.blocktarget.time.Clock clock;
    private final ReentrantLock applying = new ReentrantLock();
    private volatile Snapshot snapshot;

    Registry(ServerConfig serverConfig, Optional<Path> configDir, MemoryBudget budget, BackendOpener opener,
             List<Lun> luns, Map<String, ScsiTarget> scsiTargets, IscsiTransport iscsi, NvmeSubsystems nvme,
             io.blocktarget.time.Clock clock) {
        this.serverConfig = Objects.requireNonNull(serverConfig, "serverConfig");
        this.configDir = Objects.requireNonNull(configDir, "configDir");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.iscsi = iscsi;
        this.nvme = nvme;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.snapshot = new Snapshot(luns, scsiTargets);
    }

    /** The opener the server uses: {@link BlockDevices#open} with the server's budget and file I/O threads. */
    static BackendOpener opener(MemoryBudget budget, Executor fileIo) {
        return lun -> BlockDevices.open(lun, budget, fileIo);
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** True while an apply waits for the one in progress (tests of the serialization). */
    boolean applyWaiting() {
        return applying.hasQueuedThreads();
    }

    // ---- ControlPlane: reads -------------------------------------------------------------------------

    @Override
    public ServerConfig serverConfig() {
        return serverConfig;
    }

    @Override
    public Optional<Path> configDir() {
        return configDir;
    }

    @Override
    public List<LunStatus> luns() {
        return snapshot.luns().stream().map(Registry::status).toList();
    }

    @Override
    public Optional<io.blocktarget.block.fault.LunFaults> faults(String name) {
        return snapshot.luns().stream().filter(l -> l.name().equals(name)).findFirst().map(l -> l.state().faults());
    }

    @Override
    public Optional<LunStatus> lun(String name) {
        return snapshot.lun(name).map(Registry::status);
    }

    @Override
    public Optional<io.blocktarget.block.LunState> lunState(String name) {
        return snapshot.lun(name).map(Lun::state);
    }

    private static LunStatus status(Lun lun) {
        long allocated = lun.device().allocatedBytes();
        return new LunStatus(lun.config(), allocated, (int) Math.min(Integer.MAX_VALUE, lun.state().inFlight().count()));
    }

    @Override
    public long memoryBudgetBytes() {
        return budget.limit();
    }

    @Override
    public long memoryUsedBytes() {
        return budget.used();
    }

    @Override
    public List<SessionInfo> sessions() {
        List<SessionInfo> all = new ArrayList<>();
        if (iscsi != null) {
            for (IscsiTransport.SessionView s : iscsi.sessions()) {
                all.add(new SessionInfo("iscsi:" + s.tsih(), "iscsi", s.initiatorName() + ",i,0x"
                        + HexFormat.of().toHexDigits(s.isid()).substring(4), s.target(),
                        List.of(s.localAddress() + " -> " + s.remoteAddress()), s.parameters()));
            }
        }
        if (nvme != null) {
            for (NvmeSubsystems.ControllerInfo c : nvme.controllers()) {
                Map<String, String> parameters = new LinkedHashMap<>();
                parameters.put("KATO", c.katoMillis() + " ms");
                parameters.put("queues", Integer.toString(c.queues().size()));
                parameters.put("queue-entries", c.queueEntries().toString());
                all.add(new SessionInfo(nvmeId(c.subsystemNqn(), c.cntlid()), "nvme", c.hostNqn(), c.subsystemNqn(),
                        c.queues(), parameters));
            }
        }
        return all;
    }

    /** CNTLIDs are unique within a subsystem only (Base §3.1.2.1), so the id names both. */
    static String nvmeId(String subsystemNqn, int cntlid) {
        return "nvme:" + cntlid + "@" + subsystemNqn;
    }

    @Override
    public boolean dropSession(String id) {
        try {
            if (id.startsWith("iscsi:") && iscsi != null) {
                return iscsi.dropSession(Integer.parseInt(id.substring(6)), "dropped through the control plane");
            }
            if (id.startsWith("nvme:") && nvme != null) {
                int at = id.indexOf('@');
                if (at < 0) {
                    return false;
                }
                return nvme.dropController(id.substring(at + 1), Integer.parseInt(id.substring(5, at)),
                        "dropped through the control plane");
            }
        } catch (NumberFormatException e) {
            return false;
        }
        return false;
    }

    // ---- ControlPlane: apply -------------------------------------------------------------------------

    /**
     * Re-reads {@link #configDir()} through {@link ConfigLoader#load} (the one validation) and applies its LUNs.
     * A directory that fails validation changes nothing: its problems are logged one line each ({@code file:line:
     * key: message}) and thrown as INVALID naming the first problem's file and key.
     */
    @Override
    public ApplyResult reload() throws ControlException {
        Path dir = configDir.orElseThrow(() -> new ControlException(ControlException.Kind.UNAVAILABLE, null, null,
                "the server was started without --config; there is no directory to reload"));
        BlocktargetConfig loaded;
        try {
            loaded = ConfigLoader.load(dir);
        } catch (ConfigException e) {
            for (ConfigProblem problem : e.problems()) {
                LOG.log(Level.WARNING, "reload: " + problem);
            }
            ConfigProblem first = e.problems().getFirst();
            String file = first.file() == null || first.file().getFileName() == null ? null
                    : first.file().getFileName().toString();
            String lun = file != null && file.endsWith(".yaml") ? file.substring(0, file.length() - 5) : null;
            throw new ControlException(ControlException.Kind.INVALID, lun, first.key().isEmpty() ? null : first.key(),
                    "reload of " + dir + " refused, nothing changed: " + e.getMessage());
        }
        loaded.warnings().forEach(w -> LOG.log(Level.WARNING, "reload: " + w));
        ApplyResult result = apply(loaded.luns());
        LOG.log(Level.INFO, "reload of " + dir + ": " + describe(result));
        return result;
    }

    static String describe(ApplyResult r) {
        return r.changedNothing() ? "no change" : "added " + r.added() + ", removed " + r.removed() + ", resized "
                + r.resized() + ", replaced " + r.replaced() + (r.retuned().isEmpty() ? "" : ", retuned " + r.retuned());
    }

    @Override
    public ApplyResult apply(List<LunConfig> desired) throws ControlException {
        applying.lock();
        try {
            return applyLocked(List.copyOf(desired));
        } finally {
            applying.unlock();
        }
    }

    /** A LUN whose backend this apply opened. */
    private record Opened(LunConfig config, Lun lun) {
    }

    /** A resize done, with the count to go back to. */
    private record Resized(Lun before, LunConfig after) {
    }

    private ApplyResult applyLocked(List<LunConfig> desired) throws ControlException {
        Snapshot current = snapshot;
        Map<String, Lun> now = new LinkedHashMap<>();
        current.luns().forEach(l -> now.put(l.name(), l));
        Map<String, LunConfig> wanted = new LinkedHashMap<>();
        for (LunConfig c : desired) {
            if (wanted.put(c.name(), c) != null) {
                throw new ControlException(ControlException.Kind.CONFLICT, c.name(), null, "LUN " + c.name()
                        + " is given twice");
            }
        }
        List<String> added = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        List<String> resized = new ArrayList<>();
        List<String> replaced = new ArrayList<>();
        List<LunConfig> toOpen = new ArrayList<>();
        List<Resized> toResize = new ArrayList<>();
        List<Lun> toRemove = new ArrayList<>();
        List<String> retuned = new ArrayList<>();
        List<Resized> toRetune = new ArrayList<>();
        for (LunConfig c : desired) {
            Lun old = now.get(c.name());
            if (old == null) {
                added.add(c.name());
                toOpen.add(c);
            } else if (sameExcept(old.config(), c, Set.of())) {
                continue;
            } else if (tunedInPlace(old.config(), c)) {
                // issue 11: knobs and / or fault rules changed — the device, its data and sessions stay
                if (!old.config().features().knobs().equals(c.features().knobs())) {
                    retuned.add(c.name());
                }
                toRetune.add(new Resized(old, c));
            } else if (sameExcept(old.config(), c, Set.of("size")) && c.size() % c.logicalBlockSize() == 0) {
                resized.add(c.name());
                toResize.add(new Resized(old, c));
            } else {
                replaced.add(c.name());
                toRemove.add(old);
                toOpen.add(c);
            }
        }
        for (Lun old : current.luns()) {
            if (!wanted.containsKey(old.name())) {
                removed.add(old.name());
                toRemove.add(old);
            }
        }
        ApplyResult result = new ApplyResult(List.copyOf(added), List.copyOf(removed), List.copyOf(resized),
                List.copyOf(replaced), List.copyOf(retuned));
        if (result.changedNothing() && toRetune.isEmpty()) {
            return result;
        }

        // 1. Everything that can fail, before anything initiators see changes.
        checkExports(desired);
        Map<String, Lun> opened = openAll(toOpen);
        List<Resized> done = new ArrayList<>();
        for (Resized r : toResize) {
            try {
                resizeDevice(r.before().device(), r.after().blockCount());
                done.add(r);
            } catch (ControlException e) {
                for (Resized back : done.reversed()) {
                    try {
                        resizeDevice(back.before().device(), back.before().config().blockCount());
                    } catch (ControlException again) {
                        LOG.log(Level.WARNING, "LUN " + back.before().name() + ": cannot size back after a failed apply: "
                                + again.getMessage());
                    }
                }
                opened.values().forEach(Registry::closeQuietly);
                throw e;
            }
        }

        // 2. Removals: out of the inventories (new commands refused), then drained, then closed.
        Map<String, ScsiTarget> targets = new LinkedHashMap<>(current.scsiTargets());
        List<String> goneTargets = new ArrayList<>();
        // iSCSI: one inventory swap per target (removals and additions together), below in step 4.
        Map<String, List<Long>> detachByTarget = new LinkedHashMap<>();
        Map<String, List<LogicalUnitSpec>> attachByTarget = new LinkedHashMap<>();
        for (Lun old : toRemove) {
            old.config().iscsi().ifPresent(e -> detachByTarget.computeIfAbsent(e.target(), t -> new ArrayList<>())
                    .add((long) e.lun()));
            if (nvme != null) {
                old.config().nvme().ifPresent(e -> nvme.detachNamespace(e.subsystem(), e.nsid()));
            }
        }

        // 3. Resizes are visible: capacity data / namespace attributes changed.
        Map<String, Lun> next = new LinkedHashMap<>(now);
        for (Resized r : toResize) {
            Lun lun = new Lun(r.after(), r.before().device(), r.before().state());
            next.put(lun.name(), lun);
            r.after().iscsi().ifPresent(e -> {
                ScsiTarget target = targets.get(e.target());
                if (target != null) {
                    target.capacityDataChanged(e.lun());
                }
            });
            if (nvme != null) {
                r.after().nvme().ifPresent(e -> nvme.namespaceChanged(e.subsystem(), e.nsid()));
            }
        }

        // 3b. Knob and fault-rule changes: the same device and state under the new config. Knobs: units and
        // namespaces retuned in place (sessions stay; SCSI unit attention INQUIRY DATA / MODE PARAMETERS CHANGED, NVMe
        // namespace change). Fault rules from the file: installed in place (runtime-added rules give way to them).
        for (Resized r : toRetune) {
            Lun lun = new Lun(r.after(), r.before().device(), r.before().state());
            next.put(lun.name(), lun);
            if (!r.before().config().features().knobs().equals(r.after().features().knobs())) {
                lun.logicalUnit().ifPresent(spec -> {
                    ScsiTarget target = targets.get(spec.targetName());
                    if (target != null) {
                        target.retune(spec);
                    }
                });
                if (nvme != null) {
                    lun.namespace().ifPresent(nvme::retuneNamespace);
                }
                LOG.log(Level.INFO, "LUN " + lun.name() + " retuned (knobs changed; sessions kept)");
            }
            if (!r.before().config().features().faults().equals(r.after().features().faults())) {
                Lun.installFaults(r.before().state(), r.after());
                LOG.log(Level.INFO, "LUN " + lun.name() + ": fault rules from its file installed ("
                        + r.after().features().faults().size() + ")");
            }
        }

        // 4. Additions (and the new half of replacements).
        List<String> newTargets = new ArrayList<>();
        for (LunConfig c : toOpen) {
            Lun lun = opened.get(c.name());
            next.put(c.name(), lun);
            lun.logicalUnit().ifPresent(spec -> attachByTarget.computeIfAbsent(spec.targetName(),
                    t -> new ArrayList<>()).add(spec));
            if (nvme != null) {
                lun.namespace().ifPresent(spec -> nvme.attachNamespace(spec, Set.copyOf(c.access().hosts())));
            }
        }
        java.util.Set<String> touched = new java.util.LinkedHashSet<>(detachByTarget.keySet());
        touched.addAll(attachByTarget.keySet());
        for (String name : touched) {
            List<Long> detach = detachByTarget.getOrDefault(name, List.of());
            List<LogicalUnitSpec> attach = attachByTarget.getOrDefault(name, List.of());
            ScsiTarget target = targets.get(name);
            if (target == null) {
                targets.put(name, ScsiTargetDevices.createTargets(attach).get(name));
                newTargets.add(name);
                continue;
            }
            target.change(detach, attach);
            if (target.isEmpty()) {
                targets.remove(name);
                goneTargets.add(name);
            }
        }
        for (String name : removed) {
            next.remove(name);
        }
        List<Lun> ordered = new ArrayList<>();
        for (LunConfig c : desired) {
            ordered.add(next.get(c.name()));
        }
        if (nvme != null) {
            // access.hosts is per subsystem (the config checks its LUNs agree): a changed list applies to new Connects
            TargetServer.hostsBySubsystem(desired).forEach(nvme::allowHosts);
            desired.stream().flatMap(c -> c.nvme().stream()).map(e -> e.subsystem()).distinct()
                    .filter(nqn -> !TargetServer.hostsBySubsystem(desired).containsKey(nqn))
                    .forEach(nqn -> nvme.allowHosts(nqn, Set.of()));
            // access.dhchap likewise: new keys apply to the next Connect and re-authentication of new queues
            Map<String, io.blocktarget.nvme.DhchapKeys> keys = TargetServer.dhchapBySubsystem(desired);
            desired.stream().flatMap(c -> c.nvme().stream()).map(e -> e.subsystem()).distinct()
                    .forEach(nqn -> nvme.dhchap(nqn, java.util.Optional.ofNullable(keys.get(nqn))));
            // access.tls likewise (TREQ in the discovery log, the Connect check)
            NvmeTls.bySubsystem(desired).forEach(nvme::secureChannel);
            Map<String, io.blocktarget.config.TlsPsk> psks = NvmeTls.pskBySubsystem(desired);
            desired.stream().flatMap(c -> c.nvme().stream()).map(e -> e.subsystem()).distinct()
                    .forEach(nqn -> nvme.tlsPsk(nqn, java.util.Optional.ofNullable(psks.get(nqn))));
        }
        snapshot = new Snapshot(ordered, targets);
        if (iscsi != null) {
            iscsi.targets(List.<ScsiTargetDevice>copyOf(targets.values()), TargetServer.chapByTarget(desired),
                    TargetServer.initiatorsByTarget(desired),
                    TargetServer.sessionLimitsByTarget(desired, iscsi.serverSettings()));
        }
        for (String gone : goneTargets) {
            int asked = iscsi == null ? 0 : iscsi.logoutTarget(gone, LOGOUT_SECONDS);
            LOG.log(Level.INFO, "iSCSI target " + gone + " removed; " + asked + " session(s) asked to log out");
        }
        toRemove.forEach(old -> old.state().inFlight().drain());   // all refuse at once, then each is waited for
        // commands a no-response rule holds would never drain: they end now, as on a pulled disk
        toRemove.forEach(old -> old.state().faults().holds().release(h -> true));
        toRemove.forEach(old -> old.state().faults().replace(List.of())); // stalls of its rules end with it
        for (Lun old : toRemove) {
            drainAndClose(old);
        }
        LOG.log(Level.INFO, "apply: " + describe(result));
        return result;
    }

    /**
     * The exports of the desired set must fit the wire and each other (the config module checks this for a directory;
     * an API caller may not have): LUN 0..16383 and NSID 1..FFFFFFFEh, each (target, LUN) and (subsystem, NSID)
     * once. Checked before anything is opened, so the steps after it cannot fail half way.
     */
    private static void checkExports(List<LunConfig> desired) throws ControlException {
        Map<String, String> claims = new LinkedHashMap<>();
        for (LunConfig c : desired) {
            if (c.iscsi().isPresent()) {
                var e = c.iscsi().get();
                if (e.lun() < 0 || e.lun() > io.blocktarget.protocol.scsi.ScsiLun.MAX_FLAT_LUN) {
                    throw new ControlException(ControlException.Kind.INVALID, c.name(), "export.iscsi.lun",
                            "LUN " + e.lun() + " of " + c.name() + " is outside 0..16383");
                }
                String other = claims.putIfAbsent("iscsi " + e.target() + " LUN " + e.lun(), c.name());
                if (other != null) {
                    throw new ControlException(ControlException.Kind.CONFLICT, c.name(), "export.iscsi.lun",
                            "LUN " + e.lun() + " of target " + e.target() + " is taken by " + other);
                }
            }
            if (c.nvme().isPresent()) {
                var e = c.nvme().get();
                if (e.nsid() < 1 || e.nsid() > 0xFFFF_FFFEL
                        || e.subsystem().equals(io.blocktarget.protocol.nvme.DiscoveryLog.DISCOVERY_NQN)) {
                    throw new ControlException(ControlException.Kind.INVALID, c.name(), "export.nvme.nsid",
                            "NSID " + e.nsid() + " of " + c.name() + " is outside 1..FFFFFFFEh (or in the discovery subsystem)");
                }
                String other = claims.putIfAbsent("nvme " + e.subsystem() + " NSID " + e.nsid(), c.name());
                if (other != null) {
                    throw new ControlException(ControlException.Kind.CONFLICT, c.name(), "export.nvme.nsid",
                            "NSID " + e.nsid() + " of subsystem " + e.subsystem() + " is taken by " + other);
                }
            }
        }
    }

    /** Opens every backend or none: on a failure the ones opened are closed again. */
    private Map<String, Lun> openAll(List<LunConfig> configs) throws ControlException {
        Map<String, Lun> opened = new LinkedHashMap<>();
        for (LunConfig c : configs) {
            try {
                opened.put(c.name(), new Lun(c, opener.open(c), Lun.stateFor(c, clock)));
            } catch (IOException | RuntimeException e) {
                opened.values().forEach(Registry::closeQuietly);
                throw new ControlException(ControlException.Kind.UNAVAILABLE, c.name(), "backend",
                        "cannot open the " + c.backend().configName() + " backend of LUN " + c.name() + ": "
                                + e.getMessage() + "; nothing changed");
            }
        }
        return opened;
    }

    private static void resizeDevice(BlockDevice device, long blockCount) throws ControlException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        device.resize(blockCount, (ignored, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
            } else {
                done.complete(null);
            }
        });
        try {
            done.get(DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            String why = e.getCause() instanceof BlockIoException b ? b.getMessage() : String.valueOf(e.getCause());
            throw new ControlException(ControlException.Kind.UNAVAILABLE, device.name(), "size",
                    "cannot resize LUN " + device.name() + " to " + blockCount + " blocks: " + why + "; nothing changed");
        } catch (TimeoutException e) {
            throw new ControlException(ControlException.Kind.UNAVAILABLE, device.name(), "size",
                    "resize of LUN " + device.name() + " did not complete in " + DRAIN_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException(ControlException.Kind.UNAVAILABLE, device.name(), "size", "interrupted");
        }
    }

    /** Waits for the commands in flight on a removed LUN, then closes its device (RAM: memory back to the budget). */
    private static void drainAndClose(Lun lun) {
        try {
            lun.state().inFlight().drain().get(DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.WARNING, "LUN " + lun.name() + ": " + lun.state().inFlight().count() + " command(s) still in"
                    + " flight after " + DRAIN_TIMEOUT_SECONDS + " s; closing the device under them (they fail)");
        } catch (ExecutionException e) {
            LOG.log(Level.WARNING, "LUN " + lun.name() + ": drain failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(lun);
        LOG.log(Level.INFO, "LUN " + lun.name() + " removed");
    }

    private static void closeQuietly(Lun lun) {
        try {
            lun.device().close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "closing LUN " + lun.name() + ": " + e);
        }
    }

    /** Closes every device of the current snapshot (server stop). */
    void closeAll() {
        applying.lock();
        try {
            snapshot.luns().forEach(Registry::closeQuietly);
        } finally {
            applying.unlock();
        }
    }

    /**
     * Whether {@code a} and {@code b} differ only in their knobs ({@code commands:}, {@code limits:}, {@code
     * rotational:}, {@code identity:}): a change the command sets apply to the open device in place.
     */
    static boolean knobsOnly(LunConfig a, LunConfig b) {
        return sameExcept(a, b, Set.of("features"))
                && a.features().withKnobs(b.features().knobs()).equals(b.features())
                && !a.features().knobs().equals(b.features().knobs());
    }

    /** Whether only the {@code faults:} list differs: rules change in place, the device is not reopened. */
    static boolean onlyFaultsDiffer(LunConfig a, LunConfig b) {
        return sameExcept(a, b, Set.of("features"))
                && a.features().withFaults(List.of()).equals(b.features().withFaults(List.of()))
                && !a.features().faults().equals(b.features().faults());
    }

    /** Knobs and / or fault rules differ, nothing else: applied in place (retune, install rules). */
    static boolean tunedInPlace(LunConfig a, LunConfig b) {
        LunFeatures fa = a.features().withKnobs(DeviceKnobs.DEFAULTS).withFaults(List.of());
        LunFeatures fb = b.features().withKnobs(DeviceKnobs.DEFAULTS).withFaults(List.of());
        return sameExcept(a, b, Set.of("features")) && fa.equals(fb) && !a.features().equals(b.features());
    }

    /**
     * Equal in every config key but {@code except} (and {@code source}: where the config was read from — a file
     * moved, or an API edit, is no change). Compares record components, so keys the config module adds later take
     * part without this code knowing them.
     */

    static boolean sameExcept(LunConfig a, LunConfig b, Set<String> except) {
        for (RecordComponent component : LunConfig.class.getRecordComponents()) {
            if (component.getName().equals("source") || except.contains(component.getName())) {
                continue;
            }
            try {
                if (!Objects.equals(component.getAccessor().invoke(a), component.getAccessor().invoke(b))) {
                    return false;
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("LunConfig." + component.getName() + " unreadable", e);
            }
        }
        return true;
    }
}
