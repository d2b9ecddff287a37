package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ConfigProblem;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.config.ServerKeys;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.scsi.ScsiTarget;
import io.blocktarget.time.Clock;
import io.blocktarget.transport.iscsi.IscsiTransport;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The runtime registry of LUNs, iSCSI targets and NVMe subsystems (DESIGN §10, §11), and the {@link ControlPlane} the
 * control layer drives.
 *
 * <p>What is exported lives in immutable {@link Snapshot}s behind one volatile reference — the {@link ExportPlan}
 * served and the LUNs' devices — replaced as a whole when an apply ends; the command-set objects ({@link ScsiTarget},
 * {@link NvmeSubsystems}) publish their own inventories the same way, so logins, Connects, SendTargets, REPORT LUNS,
 * Identify and every command read whatever is current with one volatile load, and a command keeps the objects it
 * started with (RCU-like: a removed LUN's device is closed only after its {@link io.blocktarget.block.InFlight} count
 * drained to zero).
 *
 * <p>Every change — start-up (from the empty plan), reload, SIGHUP, the config watcher, the API — is one path: the
 * new plan, {@link PlanDiff}, {@link StepRunner}. Applies run one at a time (a lock, never taken on an event loop).
 */
final class Registry implements ControlPlane {
    private static final Logger LOG = System.getLogger("blocktarget.server");

    /**
     * What is exported at one moment.
     *
     * @param plan        the plan served
     * @param luns        the plan's LUNs with their devices, in plan order
     * @param scsiTargets target name → target device
     */
    record Snapshot(ExportPlan plan, List<Lun> luns, Map<String, ScsiTarget> scsiTargets) {
        Snapshot {
            Objects.requireNonNull(plan, "plan");
            luns = List.copyOf(luns);
            scsiTargets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scsiTargets));
        }

        Optional<Lun> lun(String name) {
            return luns.stream().filter(l -> l.name().equals(name)).findFirst();
        }

        /** The same devices under {@code next}, a plan that differs in nothing a step applies. */
        Snapshot rebase(ExportPlan next) {
            Map<String, Lun> byName = new LinkedHashMap<>();
            luns.forEach(l -> byName.put(l.name(), l));
            List<Lun> rebased = new ArrayList<>();
            for (LunConfig c : next.luns()) {
                Lun l = byName.get(c.name());
                rebased.add(l.config().equals(c) ? l : new Lun(c, l.device(), l.state()));
            }
            return new Snapshot(next, rebased, scsiTargets);
        }
    }

    /** How the registry opens a backend; the server's is {@link BlockDevices#open}, tests may fail on purpose. */
    @FunctionalInterface
    interface BackendOpener {
        BlockDevice open(LunConfig lun) throws IOException;
    }

    private final Optional<Path> configDir;
    private final MemoryBudget budget;
    private final IscsiTransport iscsi;
    private final NvmeSubsystems nvme;
    private final UnaryOperator<ServerConfig> overrides;
    private final LunPhases phases = new LunPhases();
    private final StepRunner runner;
    private final ReentrantLock applying = new ReentrantLock();
    private volatile Snapshot snapshot;

    /**
     * An empty registry: nothing exported until the first {@link #apply(ExportPlan, ApplyOptions)}.
     *
     * @param iscsi     null: no iSCSI transport (tests); {@code nvme} likewise
     * @param overrides applied to the server keys of every reload (the command line's --bind, ports)
     * @param clock     the server's, for the LUN states it opens
     */
    Registry(ServerConfig server, Optional<Path> configDir, MemoryBudget budget, BackendOpener opener,
             IscsiTransport iscsi, NvmeSubsystems nvme, UnaryOperator<ServerConfig> overrides, Clock clock) {
        this.configDir = Objects.requireNonNull(configDir, "configDir");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.iscsi = iscsi;
        this.nvme = nvme;
        this.overrides = Objects.requireNonNull(overrides, "overrides");
        this.runner = new StepRunner(Objects.requireNonNull(opener, "opener"), budget, iscsi, nvme, phases,
                Objects.requireNonNull(clock, "clock"));
        this.runner.pathListener(this::pathsChanged);
        this.snapshot = new Snapshot(ExportPlan.empty(server), List.of(), Map.of());
    }

    /** Without command-line overrides. */
    Registry(ServerConfig server, Optional<Path> configDir, MemoryBudget budget, BackendOpener opener,
             IscsiTransport iscsi, NvmeSubsystems nvme, Clock clock) {
        this(server, configDir, budget, opener, iscsi, nvme, UnaryOperator.identity(), clock);
    }

    /** The opener the server uses: {@link BlockDevices#open} with the server's budget and file I/O threads. */
    static BackendOpener opener(MemoryBudget budget, Executor fileIo) {
        return lun -> BlockDevices.open(lun, budget, fileIo);
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** The plan served now. */
    ExportPlan plan() {
        return snapshot.plan();
    }

    /** True while an apply waits for the one in progress (tests of the serialization). */
    boolean applyWaiting() {
        return applying.hasQueuedThreads();
    }

    /**
     * A LUN's path states changed (the plan, a transition's end, an initiator's SET TARGET PORT GROUPS): NVMe hosts
     * get an ANA change notice on every controller of the ports that changed (Base 2.x §8.1.1.2, §5.2); SCSI
     * initiators learn it from the unit attention the logical unit establishes on each nexus's next command.
     */
    void pathsChanged(String name, io.blocktarget.block.lun.PathStates.Change change) {
        if (nvme != null) {
            snapshot.lun(name).flatMap(l -> l.config().nvme()).ifPresent(e ->
                    nvme.anaChanged(e.subsystem(), e.nsid(), change.portals()));
        }
        if (change.source() != null) {
            explicitPaths.accept(name);   // an initiator's: the control layer writes it to the LUN's file
        }
    }

    private volatile java.util.function.Consumer<String> explicitPaths = name -> { };

    @Override
    public void onExplicitPathChange(java.util.function.Consumer<String> listener) {
        explicitPaths = listener == null ? name -> { } : listener;
    }

    @Override
    public List<PathStatus> paths() {
        Snapshot s = snapshot;
        List<PathStatus> all = new ArrayList<>();
        for (Lun lun : s.luns()) {
            List<io.blocktarget.block.lun.PathStates.Path> now = lun.state().paths().all();
            List<ExportPlan.PortalSpec> portals = s.plan().portals();
            for (ExportPlan.PortalSpec p : portals) {
                io.blocktarget.block.lun.PathStates.Path path = p.id() <= now.size() ? now.get(p.id() - 1)
                        : new io.blocktarget.block.lun.PathStates.Path(io.blocktarget.block.lun.AccessState.OPTIMIZED,
                        io.blocktarget.block.lun.PathStates.Origin.CONFIGURED);
                all.add(new PathStatus(lun.name(), p.name(), p.id(), ExportPlan.word(path.state()).word(),
                        lun.config().features().path(p.name()).word(),
                        path.origin().name().toLowerCase(java.util.Locale.ROOT)));
            }
        }
        return all;
    }

    @Override
    public List<ExportPlan.PortalSpec> portals() {
        return snapshot.plan().portals();
    }

    /** Runs before each step of every apply (tests: a step that fails on purpose). */
    void stepHook(StepRunner.Hook hook) {
        runner.hook(hook);
    }

    // ---- ControlPlane: reads -------------------------------------------------------------------------

    @Override
    public ServerConfig serverConfig() {
        return snapshot.plan().server();
    }

    @Override
    public Optional<Path> configDir() {
        return configDir;
    }

    @Override
    public List<LunStatus> luns() {
        Snapshot s = snapshot;
        List<LunStatus> all = new ArrayList<>(s.luns().stream().map(this::status).toList());
        phases.outside().forEach((name, e) -> {
            if (s.lun(name).isEmpty()) {
                all.add(outsideStatus(e));
            }
        });
        return all;
    }

    @Override
    public List<LunConfig> lunConfigs() {
        return snapshot.plan().luns();
    }

    @Override
    public Optional<io.blocktarget.block.fault.LunFaults> faults(String name) {
        return snapshot.lun(name).map(l -> l.state().faults());
    }

    @Override
    public Optional<LunStatus> lun(String name) {
        Snapshot s = snapshot;
        Optional<LunStatus> served = s.lun(name).map(this::status);
        if (served.isPresent()) {
            return served;
        }
        LunPhases.Entry e = phases.outside().get(name);
        return e == null ? Optional.empty() : Optional.of(outsideStatus(e));
    }

    @Override
    public Optional<io.blocktarget.block.lun.LunState> lunState(String name) {
        return snapshot.lun(name).map(Lun::state);
    }

    private LunStatus status(Lun lun) {
        return new LunStatus(lun.config(), lun.device().allocatedBytes(), inFlight(lun), phases.phase(lun.name()),
                phases.lastError(lun.name()));
    }

    private static LunStatus outsideStatus(LunPhases.Entry e) {
        LunConfig config = e.outside().orElseThrow();
        return new LunStatus(config, e.device().map(l -> l.device().allocatedBytes()).orElse(0L),
                e.device().map(Registry::inFlight).orElse(0), e.phase(), e.lastError());
    }

    private static int inFlight(Lun lun) {
        return (int) Math.min(Integer.MAX_VALUE, lun.state().inFlight().count());
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
                        List.of(s.localAddress() + " -> " + s.remoteAddress()), s.parameters(), s.commands()));
            }
        }
        if (nvme != null) {
            for (NvmeSubsystems.ControllerInfo c : nvme.controllers()) {
                Map<String, String> parameters = new LinkedHashMap<>();
                parameters.put("KATO", c.katoMillis() + " ms");
                parameters.put("queues", Integer.toString(c.queues().size()));
                parameters.put("queue-entries", c.queueEntries().toString());
                all.add(new SessionInfo(nvmeId(c.subsystemNqn(), c.cntlid()), "nvme", c.hostNqn(), c.subsystemNqn(),
                        c.queues(), parameters, c.commands()));
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
     * Re-reads {@link #configDir()} through {@link ConfigLoader#load} (the one validation), {@code blocktarget.yaml}
     * included (with the command line's overrides), and applies the plan. A directory that fails validation changes
     * nothing: its problems are logged one line each ({@code file:line: key: message}) and thrown as INVALID naming
     * the first problem's file and key.
     */
    @Override
    public ApplyResult reload(ApplyOptions options) throws ControlException {
        // the directory read and its apply as one step against the API's apply-and-write-back (exclusively)
        applying.lock();
        try {
            return reloadLocked(options);
        } finally {
            applying.unlock();
        }
    }

    @Override
    public <T, E extends Exception> T exclusively(Exclusive<T, E> action) throws E {
        applying.lock();
        try {
            return action.run();
        } finally {
            applying.unlock();
        }
    }

    private ApplyResult reloadLocked(ApplyOptions options) throws ControlException {
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
            String lun = file != null && file.endsWith(".yaml") && !file.equals(ConfigLoader.SERVER_FILE)
                    ? file.substring(0, file.length() - 5) : null;
            throw new ControlException(ControlException.Kind.INVALID, lun, first.key().isEmpty() ? null : first.key(),
                    "reload of " + dir + " refused, nothing changed: " + e.getMessage());
        }
        loaded.warnings().forEach(w -> LOG.log(Level.WARNING, "reload: " + w));
        ServerConfig server = overrides.apply(loaded.server());
        ServerConfig running = snapshot.plan().server();
        if (!server.effectivePortals().equals(running.effectivePortals())) {
            // portals: takes effect at the next start; until then the LUNs' paths refer to the portals listening now
            LOG.log(Level.WARNING, "reload: " + ServerKeys.PORTALS.name() + " changed; it takes effect when the server"
                    + " starts again (stop blocktarget serve and start it); the server keeps its portals "
                    + running.portalNames() + " until then");
            server = server.withBindAddress(running.bindAddress()).withIscsiPort(running.iscsiPort())
                    .withNvmePort(running.nvmePort()).withPortals(running.portals());
        }
        ExportPlan next = ExportPlan.of(server, loaded.luns());
        ApplyResult result;
        try {
            result = apply(next, options);
        } catch (ControlException e) {
            if (e.kind() == ControlException.Kind.NEEDS_FORCE) {
                LOG.log(Level.WARNING, "reload of " + dir + " refused, nothing changed: " + e.getMessage()
                        + " (blocktarget reload --force)");
            }
            throw e;
        }
        LOG.log(Level.INFO, "reload of " + dir + ": " + describe(result));
        return result;
    }

    static String describe(ApplyResult r) {
        if (r.changedNothing()) {
            return "no change";
        }
        List<String> parts = new ArrayList<>();
        for (PlanDiff.LunChange c : r.changes()) {
            parts.add(c.action().label() + " " + c.lun());
        }
        int others = (int) r.steps().stream().filter(s -> !s.contains("LUN ")).count();
        if (others > 0) {
            parts.add(others + " target / subsystem / server step(s)");
        }
        return String.join(", ", parts);
    }

    @Override
    public ApplyResult apply(List<LunConfig> desired, ApplyOptions options) throws ControlException {
        applying.lock();
        try {
            return applyLocked(ExportPlan.of(snapshot.plan().server(), List.copyOf(desired)), options, false);
        } finally {
            applying.unlock();
        }
    }

    /** Makes {@code next} the plan served (reload; the server keys come with it). */
    ApplyResult apply(ExportPlan next, ApplyOptions options) throws ControlException {
        applying.lock();
        try {
            return applyLocked(next, options, false);
        } finally {
            applying.unlock();
        }
    }

    /** Start-up: the server's first plan, applied to the empty one; a failure's message names no "nothing changed". */
    ApplyResult start(ExportPlan plan) throws ControlException {
        applying.lock();
        try {
            return applyLocked(plan, ApplyOptions.NONE, true);
        } finally {
            applying.unlock();
        }
    }

    private ApplyResult applyLocked(ExportPlan next, ApplyOptions options, boolean starting) throws ControlException {
        Snapshot current = snapshot;
        PlanDiff.Result diff = PlanDiff.of(current.plan(), next);
        List<String> warnings = new ArrayList<>(diff.warnings());
        List<String> steps = diff.steps().stream().map(step -> step instanceof Step.SetPaths p
                ? p.withTransition(options.transitionNanos()) : step).map(Step::describe).toList();
        List<Step> lossy = diff.dataLoss();
        String refusal = lossy.isEmpty() || options.force() ? null : PlanDiff.refusal(lossy, this::facts);
        if (options.dryRun()) {
            if (refusal != null) {
                warnings.add("without --force this is refused: " + refusal);
            }
            return new ApplyResult(diff.luns(), steps, warnings, true);
        }
        if (refusal != null) {
            Step first = lossy.getFirst();
            throw new ControlException(ControlException.Kind.NEEDS_FORCE, first.subject(), diff.key(first), refusal);
        }
        // at start serve has logged the configuration's own warnings (the memory budget's among them)
        warnings.stream().filter(w -> !starting || !w.startsWith(ExportPlan.RAM_OVER_BUDGET))
                .forEach(w -> LOG.log(Level.WARNING, (starting ? "" : "apply: ") + w));
        ApplyResult result = new ApplyResult(diff.luns(), steps, warnings, false);
        if (diff.isEmpty()) {
            snapshot = current.rebase(next);
            return result;
        }
        List<Step> run = options.transitionNanos() == 0 ? diff.steps() : diff.steps().stream()
                .map(step -> step instanceof Step.SetPaths p ? p.withTransition(options.transitionNanos()) : step)
                .toList();
        StepRunner.Outcome outcome;
        try {
            outcome = runner.run(current, next, run);
        } catch (StepRunner.StepFailure e) {
            String lun = e.step() instanceof Step.RemoveTarget || e.step() instanceof Step.RemoveSubsystem
                    || e.step() instanceof Step.SetTargetAccess || e.step() instanceof Step.SetSubsystemAccess
                    || e.step().subject().isEmpty() ? null : e.step().subject();
            throw new ControlException(e.kind(), lun, e.key(), e.getMessage() + (starting ? "" : "; nothing changed"));
        }
        snapshot = outcome.snapshot();
        runner.finish(outcome);
        if (!starting) {
            LOG.log(Level.INFO, "apply: " + describe(result));
        }
        return result;
    }

    /** What a refusal tells about LUN {@code name}: its allocated bytes and the sessions on its target / subsystem. */
    private PlanDiff.Facts facts(String name) {
        Optional<Lun> lun = snapshot.lun(name);
        if (lun.isEmpty()) {
            return new PlanDiff.Facts(0, 0);
        }
        LunConfig c = lun.get().config();
        Set<String> exports = new HashSet<>();
        c.iscsi().ifPresent(e -> exports.add(e.target()));
        c.nvme().ifPresent(e -> exports.add(e.subsystem()));
        int sessions = (int) sessions().stream().filter(s -> exports.contains(s.target())).count();
        return new PlanDiff.Facts(lun.get().device().allocatedBytes(), sessions);
    }

    /** Closes every device of the current snapshot (server stop). */
    void closeAll() {
        applying.lock();
        try {
            snapshot.luns().forEach(StepRunner::closeQuietly);
        } finally {
            applying.unlock();
        }
    }
}
