package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.LunConfig;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTarget;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.server.Step.Via;
import io.blocktarget.server.Step.Why;
import io.blocktarget.time.Clock;
import io.blocktarget.transport.iscsi.IscsiTransport;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Applies {@link PlanDiff}'s steps to the runtime — backends, {@link ScsiTarget}s, the {@link IscsiTransport}, the
 * {@link NvmeSubsystems} — in their order, each with its undo. When a step fails, the steps done are undone in reverse
 * and the previous plan keeps serving; the LUN the failed step was about keeps its {@link LunPhase} history and the
 * error as its last error. Once every step succeeded the caller publishes the new snapshot and calls {@link #finish},
 * which does what cannot be undone: removed and replaced devices drain and close, removed targets' sessions are asked
 * to log out. One run at a time (the registry's lock); never on an event loop (it waits for resizes and drains).
 */
final class StepRunner {
    private static final Logger LOG = System.getLogger("blocktarget.server");
    /** How long a removal waits for commands in flight before closing the device under them; a resize its device. */
    static final long DRAIN_TIMEOUT_SECONDS = 30;
    /** RFC 7143 §11.9.1 Parameter3 of the logout request sent to sessions of a removed target. */
    static final int LOGOUT_SECONDS = 2;

    /** Runs before each step (tests make a given step fail on purpose, to see everything before it undone). */
    @FunctionalInterface
    interface Hook {
        void before(Step step) throws Exception;
    }

    /** A step failed; everything done before it was undone. */
    static final class StepFailure extends Exception {
        private final transient Step step;
        private final ControlException.Kind kind;
        private final String key;

        StepFailure(Step step, ControlException.Kind kind, String key, String message, Throwable cause) {
            super(message, cause, false, false);
            this.step = step;
            this.kind = kind;
            this.key = key;
        }

        Step step() {
            return step;
        }

        ControlException.Kind kind() {
            return kind;
        }

        String key() {
            return key;
        }
    }

    /** A device the new plan no longer serves, drained and closed by {@link #finish}. */
    record Retired(Lun lun, Why why) {
    }

    /**
     * What a successful run leaves to publish and to finish.
     *
     * @param snapshot    the new plan's snapshot
     * @param retired     devices to drain and close
     * @param goneTargets iSCSI targets whose sessions are asked to log out
     * @param busy        the LUNs whose phase this run changed, with the phase they are in
     */
    record Outcome(Registry.Snapshot snapshot, List<Retired> retired, List<String> goneTargets,
                   Map<String, LunPhase> busy) {
    }

    private final Registry.BackendOpener opener;
    /** The server's clock: the LUN states opened here run their fault timers and traces on it; drains wait on it. */
    private final Clock clock;
    private final MemoryBudget budget;
    private final IscsiTransport iscsi;
    private final NvmeSubsystems nvme;
    private final LunPhases phases;
    private volatile Hook hook = step -> { };
    /** Told of every change of a LUN's path states, with the LUN's name (the registry: ANA change notices). */
    private volatile java.util.function.BiConsumer<String, io.blocktarget.block.lun.PathStates.Change> pathListener =
            (lun, change) -> { };

    /** @param iscsi null without an iSCSI transport (tests); {@code nvme} likewise */
    StepRunner(Registry.BackendOpener opener, MemoryBudget budget, IscsiTransport iscsi, NvmeSubsystems nvme,
               LunPhases phases, Clock clock) {
        this.clock = clock;
        this.opener = opener;
        this.budget = budget;
        this.iscsi = iscsi;
        this.nvme = nvme;
        this.phases = phases;
    }

    void hook(Hook hook) {
        this.hook = hook;
    }

    /** Who is told of the path state changes of the LUNs opened from now on. */
    void pathListener(java.util.function.BiConsumer<String, io.blocktarget.block.lun.PathStates.Change> listener) {
        this.pathListener = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** The working state of one run. */
    private final class Work {
        final ExportPlan after;
        final Map<String, Lun> serving = new LinkedHashMap<>();
        final Map<String, Lun> opened = new LinkedHashMap<>();
        final Map<String, Retired> retired = new LinkedHashMap<>();
        final Map<String, ScsiTarget> targets;
        final List<String> goneTargets = new ArrayList<>();
        /** Undo actions of the steps done, the latest first. */
        final Deque<Undo> undo = new ArrayDeque<>();

        Work(Registry.Snapshot current, ExportPlan after) {
            this.after = after;
            current.luns().forEach(l -> serving.put(l.name(), l));
            this.targets = new LinkedHashMap<>(current.scsiTargets());
        }
    }

    /** An undo action and the LUN it concerns ("" for none). */
    private record Undo(String lun, String what, Action action) {
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /**
     * Applies {@code steps} from {@code current} towards {@code after}.
     *
     * @throws StepFailure when a step failed; every step before it was undone (a LUN whose undo failed is {@link
     *                     LunPhase#FAILED}, said in the log)
     */
    Outcome run(Registry.Snapshot current, ExportPlan after, List<Step> steps) throws StepFailure {
        Work work = new Work(current, after);
        Map<String, LunPhase> busy = busy(steps);
        busy.forEach((name, phase) -> {
            if (phase == LunPhase.OPENING) {
                phases.opening(after.lun(name).orElseThrow());
            } else if (phase != LunPhase.DRAINING) {
                phases.to(name, phase);
            }
        });
        for (Step step : steps) {
            try {
                hook.before(step);
                apply(work, step);
            } catch (StepFailure e) {
                undo(work, busy, e);
                throw e;
            } catch (Exception | LinkageError e) {
                StepFailure failure = new StepFailure(step, ControlException.Kind.UNAVAILABLE, null,
                        step.describe() + " failed: " + e, e);
                undo(work, busy, failure);
                throw failure;
            }
        }
        List<Lun> ordered = new ArrayList<>();
        for (LunConfig c : after.luns()) {
            Lun lun = work.serving.get(c.name());
            if (lun == null) {
                throw new IllegalStateException("LUN " + c.name() + " of the plan was not exported by its steps");
            }
            ordered.add(lun.config().equals(c) ? lun : new Lun(c, lun.device(), lun.state()));
        }
        return new Outcome(new Registry.Snapshot(after, ordered, work.targets), List.copyOf(work.retired.values()),
                List.copyOf(work.goneTargets), busy);
    }

    /** The phase each LUN a step touches is in during the run: the most disruptive of its steps. */
    private static Map<String, LunPhase> busy(List<Step> steps) {
        Map<String, LunPhase> busy = new LinkedHashMap<>();
        for (Step step : steps) {
            LunPhase phase = switch (step) {
                case Step.OpenBackend o -> o.why() == Why.ADD ? LunPhase.OPENING : phase(o.why());
                case Step.Unexport u -> phase(u.why());
                case Step.Export x -> phase(x.why());
                case Step.Resize r -> LunPhase.RESIZING;
                case Step.Retune r -> LunPhase.RETUNING;
                case Step.SetPaths p -> LunPhase.RETUNING;
                default -> null;
            };
            if (phase != null) {
                busy.merge(step.subject(), phase, (a, b) -> rank(a) >= rank(b) ? a : b);
            }
        }
        return busy;
    }

    private static LunPhase phase(Why why) {
        return switch (why) {
            case ADD -> LunPhase.OPENING;
            case REMOVE -> LunPhase.DRAINING;
            case REEXPORT -> LunPhase.REEXPORTING;
            case REOPEN -> LunPhase.REOPENING;
            case REPLACE -> LunPhase.REPLACING;
        };
    }

    private static int rank(LunPhase p) {
        return List.of(LunPhase.RETUNING, LunPhase.RESIZING, LunPhase.REEXPORTING, LunPhase.REOPENING,
                LunPhase.REPLACING, LunPhase.OPENING, LunPhase.DRAINING).indexOf(p);
    }

    private void undo(Work work, Map<String, LunPhase> busy, StepFailure failure) {
        LOG.log(Level.WARNING, "apply failed at \"" + failure.step().describe() + "\": " + failure.getMessage()
                + "; undoing " + work.undo.size() + " action(s)");
        java.util.Set<String> broken = new java.util.HashSet<>();
        while (!work.undo.isEmpty()) {
            Undo u = work.undo.pop();
            try {
                u.action().run();
            } catch (Exception | LinkageError e) {
                LOG.log(Level.ERROR, "undoing \"" + u.what() + "\" failed: " + e + "; LUN " + u.lun()
                        + " may not be as its configuration says");
                if (!u.lun().isEmpty()) {
                    broken.add(u.lun());
                    phases.failed(u.lun(), "undoing \"" + u.what() + "\" after a failed change: " + e);
                }
            }
        }
        String subject = failure.step().subject();
        busy.forEach((name, phase) -> {
            if (phase == LunPhase.OPENING) {
                phases.gone(name);
            } else if (phase != LunPhase.DRAINING || phases.phase(name) == LunPhase.DRAINING) {
                phases.to(name, broken.contains(name) ? LunPhase.FAILED : LunPhase.ACTIVE);
            }
        });
        if (busy.containsKey(subject) && busy.get(subject) != LunPhase.OPENING && !broken.contains(subject)) {
            phases.failed(subject, failure.getMessage() + "; the change was undone");
        }
    }

    // ---- the steps -----------------------------------------------------------------------------------------

    private void apply(Work work, Step step) throws Exception {
        switch (step) {
            case Step.OpenBackend o -> open(work, o);
            case Step.Resize r -> resize(work, r);
            case Step.SetDiscoveryChap d -> {
                if (iscsi != null) {
                    iscsi.discoveryChap(d.after());
                    work.undo.push(new Undo("", step.describe(), () -> iscsi.discoveryChap(d.before())));
                }
            }
            case Step.SetMemoryBudget m -> {
                budget.limit(m.after());
                work.undo.push(new Undo("", step.describe(), () -> budget.limit(m.before())));
                if (m.after() < budget.used()) {
                    LOG.log(Level.WARNING, "memory budget " + m.after() + " bytes is below the " + budget.used()
                            + " bytes RAM disks hold now: writes needing new memory fail until some is freed");
                }
            }
            case Step.Unexport u -> unexport(work, u);
            case Step.SetTargetAccess a -> {
                if (iscsi != null) {
                    iscsi.access(a.target(), a.after());
                    work.undo.push(new Undo("", step.describe(), () -> iscsi.access(a.target(), a.before())));
                }
            }
            case Step.SetSubsystemAccess a -> {
                if (nvme != null) {
                    nvme.access(a.subsystem(), a.after());
                    work.undo.push(new Undo("", step.describe(), () -> nvme.access(a.subsystem(), a.before())));
                }
            }
            case Step.Retune r -> retune(work, r);
            case Step.SetPaths p -> {
                io.blocktarget.block.lun.PathStates paths = served(work, p.lun()).state().paths();
                paths.set(p.changes(), p.transitionNanos(), null);
                work.undo.push(new Undo(p.lun(), step.describe(), () -> {
                    java.util.Map<Integer, io.blocktarget.block.lun.AccessState> back = new java.util.LinkedHashMap<>();
                    p.changes().keySet().forEach(portal -> back.put(portal, p.before().get(portal - 1)));
                    paths.set(back, 0, null);
                }));
                LOG.log(Level.INFO, "LUN " + p.lun() + ": " + step.describe());
            }
            case Step.Export x -> export(work, x);
            case Step.RemoveTarget t -> {
                ScsiTarget target = work.targets.remove(t.target());
                if (iscsi != null) {
                    iscsi.removeTarget(t.target());
                }
                work.goneTargets.add(t.target());
                work.undo.push(new Undo("", step.describe(), () -> {
                    work.goneTargets.remove(t.target());
                    if (target != null) {
                        work.targets.put(t.target(), target);
                        if (iscsi != null) {
                            iscsi.addTarget(target, t.access());
                        }
                    }
                }));
            }
            case Step.RemoveSubsystem s -> {
                if (nvme != null && nvme.removeSubsystem(s.subsystem())) {
                    work.undo.push(new Undo("", step.describe(),
                            () -> nvme.addSubsystem(s.subsystem(), s.access(), List.of())));
                }
            }
        }
        LOG.log(Level.DEBUG, "apply: " + step.describe());
    }

    private void open(Work work, Step.OpenBackend o) throws StepFailure {
        LunConfig c = o.lun();
        BlockDevice device;
        try {
            device = opener.open(c);
        } catch (IOException | RuntimeException e) {
            throw new StepFailure(o, ControlException.Kind.UNAVAILABLE, "backend", "cannot open the "
                    + c.backend().configName() + " backend of LUN " + c.name() + ": " + e.getMessage(), e);
        }
        Lun lun;
        try {
            lun = new Lun(c, device, Lun.stateFor(c, clock, portalNames(work)));
        } catch (IllegalArgumentException e) {
            try {
                device.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw new StepFailure(o, ControlException.Kind.INVALID, "placement", "cannot model the placement of LUN "
                    + c.name() + ": " + e.getMessage(), e);
        }
        java.util.function.BiConsumer<String, io.blocktarget.block.lun.PathStates.Change> told = pathListener;
        lun.state().paths().install(work.after.paths(c), change -> told.accept(c.name(), change));
        work.opened.put(c.name(), lun);
        work.undo.push(new Undo(c.name(), o.describe(), () -> {
            work.opened.remove(c.name());
            closeQuietly(lun);
        }));
    }

    private void resize(Work work, Step.Resize r) throws StepFailure {
        Lun lun = served(work, r.before().name());
        resizeDevice(r, lun.device(), r.after().blockCount());
        // the media model's tables are per logical block: a new size is a new model (counters from zero)
        io.blocktarget.block.placement.Placement before = lun.state().placement(
                Lun.placementFor(r.after(), r.after().blockCount(), clock).orElse(null));
        capacityChanged(work, lun.config());
        work.undo.push(new Undo(lun.name(), r.describe(), () -> {
            resizeDevice(r, lun.device(), r.before().blockCount());
            lun.state().placement(before);
            capacityChanged(work, lun.config());
        }));
    }

    private void unexport(Work work, Step.Unexport u) {
        Lun lun = served(work, u.lun().name());
        detach(work, lun, u.via());
        work.undo.push(new Undo(lun.name(), u.describe(), () -> attach(work, lun, u.via())));
        if (u.why() != Why.REEXPORT) {
            work.serving.remove(lun.name());
            work.retired.put(lun.name(), new Retired(lun, u.why()));
            work.undo.push(new Undo(lun.name(), u.describe(), () -> {
                work.retired.remove(lun.name());
                work.serving.put(lun.name(), lun);
            }));
        }
        if (u.why() == Why.REMOVE) {
            phases.to(lun.name(), LunPhase.DRAINING, Optional.of(lun));
        }
    }

    /** The portal names of the plan being applied, portal 1 first: what a fault rule's portal: is resolved in. */
    private static List<String> portalNames(Work work) {
        return work.after.portals().stream().map(ExportPlan.PortalSpec::name).toList();
    }

    private void retune(Work work, Step.Retune r) {
        Lun before = served(work, r.after().name());
        Lun after = new Lun(r.after(), before.device(), before.state());
        work.serving.put(after.name(), after);
        work.undo.push(new Undo(after.name(), r.describe(), () -> work.serving.put(before.name(), before)));
        if (!r.knobs().isEmpty()) {
            retuneUnits(work, after, r.knobs());
            work.undo.push(new Undo(after.name(), r.describe(), () -> retuneUnits(work, before, r.knobs())));
            LOG.log(Level.INFO, "LUN " + after.name() + " retuned (knobs changed; sessions kept)");
        }
        if (r.faults()) {
            List<String> portals = portalNames(work);
            Lun.installFaults(before.state(), r.after(), portals);
            work.undo.push(new Undo(after.name(), r.describe(),
                    () -> Lun.installFaults(before.state(), r.before(), portals)));
            LOG.log(Level.INFO, "LUN " + after.name() + ": fault rules from its file installed ("
                    + r.after().features().faults().size() + ")");
        }
    }

    private void retuneUnits(Work work, Lun lun, Set<Via> via) {
        if (via.contains(Via.ISCSI)) {
            lun.logicalUnit().ifPresent(spec -> {
                ScsiTarget target = work.targets.get(spec.targetName());
                if (target == null || !target.retune(spec)) {
                    throw new IllegalStateException("LUN " + lun.name() + " is not attached to " + spec.targetName());
                }
            });
        }
        if (via.contains(Via.NVME) && nvme != null) {
            lun.namespace().ifPresent(spec -> {
                if (!nvme.retuneNamespace(spec)) {
                    throw new IllegalStateException("LUN " + lun.name() + " is not attached to " + spec.subsystemNqn());
                }
            });
        }
    }

    private void export(Work work, Step.Export x) {
        String name = x.lun().name();
        Lun lun;
        if (x.why() == Why.REEXPORT) {
            Lun was = served(work, name);
            lun = new Lun(x.lun(), was.device(), was.state());
            work.undo.push(new Undo(name, x.describe(), () -> work.serving.put(name, was)));
        } else {
            lun = work.opened.remove(name);
            if (lun == null) {
                throw new IllegalStateException("LUN " + name + " exported before its backend was opened");
            }
            work.undo.push(new Undo(name, x.describe(), () -> {
                work.serving.remove(name);
                work.opened.put(name, lun);
            }));
        }
        work.serving.put(name, lun);
        Created created = attach(work, lun, x.via());
        work.undo.push(new Undo(name, x.describe(), () -> {
            detach(work, lun, x.via());
            created.target().ifPresent(t -> {   // a target or subsystem this step brought goes with it
                work.targets.remove(t);
                if (iscsi != null) {
                    iscsi.removeTarget(t);
                }
            });
            created.subsystem().ifPresent(nvme::removeSubsystem);
        }));
    }

    /** The target and subsystem an attach created (they did not exist before it). */
    private record Created(Optional<String> target, Optional<String> subsystem) {
    }

    // ---- the runtime ---------------------------------------------------------------------------------------

    private static Lun served(Work work, String name) {
        Lun lun = work.serving.get(name);
        if (lun == null) {
            throw new IllegalStateException("LUN " + name + " is not served");
        }
        return lun;
    }

    /**
     * Puts {@code lun}'s unit / namespace {@code via} into its target / subsystem. A target or subsystem the server
     * does not have yet is created with it, its access from the new plan set in the same swap.
     */
    private Created attach(Work work, Lun lun, Set<Via> via) {
        Optional<String> newTarget = Optional.empty();
        Optional<String> newSubsystem = Optional.empty();
        if (via.contains(Via.ISCSI) && lun.logicalUnit().isPresent()) {
            LogicalUnitSpec spec = lun.logicalUnit().get();
            ScsiTarget target = work.targets.get(spec.targetName());
            if (target != null) {
                target.attach(spec);
            } else {
                target = ScsiTargetDevices.createTargets(List.of(spec)).get(spec.targetName());
                work.targets.put(spec.targetName(), target);
                if (iscsi != null) {
                    iscsi.addTarget(target, targetAccess(work, spec.targetName()));
                }
                newTarget = Optional.of(spec.targetName());
                LOG.log(Level.INFO, "iSCSI target " + spec.targetName() + " added");
            }
        }
        if (via.contains(Via.NVME) && nvme != null && lun.namespace().isPresent()) {
            NamespaceSpec spec = lun.namespace().get();
            if (nvme.access(spec.subsystemNqn()).isPresent()) {
                nvme.attachNamespace(spec);
            } else {
                nvme.addSubsystem(spec.subsystemNqn(), subsystemAccess(work, spec.subsystemNqn()), List.of(spec));
                newSubsystem = Optional.of(spec.subsystemNqn());
            }
        }
        return new Created(newTarget, newSubsystem);
    }

    /**
     * Takes {@code lun}'s unit / namespace {@code via} out of its target / subsystem; the target or subsystem stays
     * (a {@link Step.RemoveTarget} / {@link Step.RemoveSubsystem} says when it goes).
     */
    private void detach(Work work, Lun lun, Set<Via> via) {
        if (via.contains(Via.ISCSI)) {
            lun.config().iscsi().ifPresent(e -> {
                ScsiTarget target = work.targets.get(e.target());
                if (target != null) {
                    target.detach(e.lun());
                }
            });
        }
        if (via.contains(Via.NVME) && nvme != null) {
            lun.config().nvme().ifPresent(e -> nvme.detachNamespace(e.subsystem(), e.nsid(), false));
        }
    }

    private static io.blocktarget.transport.iscsi.TargetAccess targetAccess(Work work, String target) {
        ExportPlan.IscsiTarget t = work.after.targets().get(target);
        return t != null ? t.access() : io.blocktarget.transport.iscsi.TargetAccess.OPEN;
    }

    private static io.blocktarget.nvme.SubsystemAccess subsystemAccess(Work work, String nqn) {
        ExportPlan.NvmeSubsystem s = work.after.subsystems().get(nqn);
        return s != null ? s.access() : io.blocktarget.nvme.SubsystemAccess.OPEN;
    }

    /** The capacity of {@code lun} changed (SBC-4 §4.6 CAPACITY DATA HAS CHANGED; Base §5.2 namespace change). */
    private void capacityChanged(Work work, LunConfig lun) {
        lun.iscsi().ifPresent(e -> {
            ScsiTarget target = work.targets.get(e.target());
            if (target != null) {
                target.capacityDataChanged(e.lun());
            }
        });
        if (nvme != null) {
            lun.nvme().filter(e -> nvme.nsids(e.subsystem()).contains(e.nsid()))
                    .ifPresent(e -> nvme.namespaceChanged(e.subsystem(), e.nsid()));
        }
    }

    private static void resizeDevice(Step step, BlockDevice device, long blockCount) throws StepFailure {
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
            throw new StepFailure(step, ControlException.Kind.UNAVAILABLE, "size", "cannot resize LUN "
                    + device.name() + " to " + blockCount + " blocks: " + why, e.getCause());
        } catch (TimeoutException e) {
            throw new StepFailure(step, ControlException.Kind.UNAVAILABLE, "size", "resize of LUN " + device.name()
                    + " did not complete in " + DRAIN_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StepFailure(step, ControlException.Kind.UNAVAILABLE, "size", "interrupted", e);
        }
    }

    // ---- after the snapshot is published ---------------------------------------------------------------------

    /**
     * What cannot be undone, once the new snapshot is published: retired devices stop taking commands and drain (a
     * fault rule holding commands releases them, as on a pulled disk), then close; sessions of removed targets are
     * asked to log out; every LUN of the run goes back to {@link LunPhase#ACTIVE} (or leaves).
     */
    void finish(Outcome outcome) {
        for (String gone : outcome.goneTargets()) {
            int asked = iscsi == null ? 0 : iscsi.logoutTarget(gone, LOGOUT_SECONDS);
            LOG.log(Level.INFO, "iSCSI target " + gone + " removed; " + asked + " session(s) asked to log out");
        }
        for (Retired r : outcome.retired()) {
            r.lun().state().inFlight().drain();   // all refuse at once, then each is waited for
            r.lun().state().faults().holds().release(h -> true);
            r.lun().state().faults().replace(List.of());   // stalls of its rules end with it
            r.lun().state().paths().close();   // a transition in progress ends with it
        }
        for (Retired r : outcome.retired()) {
            drain(r.lun());
            if (r.why() == Why.REMOVE) {
                phases.to(r.lun().name(), LunPhase.REMOVING, Optional.of(r.lun()));
            }
            closeQuietly(r.lun());
            if (r.why() == Why.REMOVE) {
                phases.gone(r.lun().name());
                LOG.log(Level.INFO, "LUN " + r.lun().name() + " removed");
            }
        }
        outcome.busy().forEach((name, phase) -> {
            if (phase != LunPhase.DRAINING) {
                phases.to(name, LunPhase.ACTIVE);
                phases.succeeded(name);
            }
        });
    }

    /** Waits for the commands in flight on a retired device. */
    private static void drain(Lun lun) {
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
    }

    static void closeQuietly(Lun lun) {
        try {
            lun.device().close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "closing LUN " + lun.name() + ": " + e);
        }
    }
}
