package io.blocktarget.control;

import io.blocktarget.config.BackendKind;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ExportPlan;
import io.blocktarget.server.PlanDiff;
import io.blocktarget.server.Step;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test double of the server's registry: it keeps the LUN list it is given and reports the difference, like the
 * real {@link ControlPlane} does, without serving anything. Tests can make the next apply fail and add sessions.
 * The control layer's tests run against it; the same tests can be pointed at a real server's control plane.
 */
public final class InMemoryControlPlane implements ControlPlane {
    private final ServerConfig server;
    private final Optional<Path> configDir;
    private volatile List<LunConfig> luns;
    private final List<SessionInfo> sessions = new CopyOnWriteArrayList<>();
    private final AtomicInteger applies = new AtomicInteger();
    private final AtomicInteger concurrent = new AtomicInteger();
    private volatile int maxConcurrent;
    private volatile ControlException refuseNext;
    private volatile long overlapWindowMillis;
    /** Signalled when an apply starts while another runs: what {@link #watchForOverlap} waits for. */
    private final Object overlap = new Object();
    private final java.util.Map<String, io.blocktarget.block.fault.LunFaults> faults =
            new java.util.concurrent.ConcurrentHashMap<>();

    public InMemoryControlPlane(ServerConfig server, Optional<Path> configDir, List<LunConfig> luns) {
        this.server = server;
        this.configDir = configDir;
        this.luns = List.copyOf(luns);
    }

    private final java.util.Map<String, io.blocktarget.block.lun.LunState> states =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** A device state per LUN name while the LUN exists (what the trace routes switch). */
    @Override
    public Optional<io.blocktarget.block.lun.LunState> lunState(String name) {
        if (luns.stream().noneMatch(l -> l.name().equals(name))) {
            states.remove(name);
            return Optional.empty();
        }
        return Optional.of(states.computeIfAbsent(name, io.blocktarget.block.lun.LunState::new));
    }

    /** The next {@link #apply} throws {@code e} and changes nothing. */
    public void refuseNext(ControlException e) {
        refuseNext = e;
    }

    /**
     * Each apply stays open until another apply overlaps it or {@code millis} pass. That no two applies ever overlap
     * can only be watched for a while; an overlap (the bug) ends the watch at once and shows in
     * {@link #maxConcurrentApplies}, and serialized applies each wait the window out.
     */
    public void watchForOverlap(long millis) {
        overlapWindowMillis = millis;
    }

    public void addSession(SessionInfo session) {
        sessions.add(session);
    }

    public int applies() {
        return applies.get();
    }

    /** The most applies that ran at the same time. */
    public int maxConcurrentApplies() {
        return maxConcurrent;
    }

    public List<LunConfig> lunConfigs() {
        return luns;
    }

    @Override
    public ServerConfig serverConfig() {
        return server;
    }

    @Override
    public Optional<Path> configDir() {
        return configDir;
    }

    @Override
    public List<LunStatus> luns() {
        return luns.stream().map(l -> new LunStatus(l, 0, 0)).toList();
    }

    @Override
    public Optional<io.blocktarget.block.fault.LunFaults> faults(String name) {
        return lun(name).map(l -> faults.computeIfAbsent(name, n -> new io.blocktarget.block.fault.LunFaults(new io.blocktarget.time.ManualClock())));
    }

    @Override
    public Optional<LunStatus> lun(String name) {
        return luns().stream().filter(s -> s.config().name().equals(name)).findFirst();
    }

    @Override
    public ApplyResult reload(ApplyOptions options) throws ControlException {
        Path dir = configDir.orElseThrow(() -> new ControlException(ControlException.Kind.CONFLICT, null, null,
                "no config directory"));
        try {
            return apply(io.blocktarget.config.ConfigLoader.load(dir).luns(), options);
        } catch (io.blocktarget.config.ConfigException e) {
            throw new ControlException(ControlException.Kind.INVALID, null, null, e.getMessage());
        }
    }

    /**
     * Diffs the plans as the server does ({@link PlanDiff}: the same keys, rules and --force rule; RAM LUNs hold one
     * 4 KiB chunk here) and keeps {@code desired}; applies nothing to any device.
     */
    @Override
    public ApplyResult apply(List<LunConfig> desired, ApplyOptions options) throws ControlException {
        int now = concurrent.incrementAndGet();
        maxConcurrent = Math.max(maxConcurrent, now);
        try {
            if (overlapWindowMillis > 0) {
                synchronized (overlap) {
                    overlap.notifyAll(); // an apply already running sees this one
                    long deadline = System.nanoTime() + overlapWindowMillis * 1_000_000;
                    long left;
                    while (maxConcurrent < 2 && (left = deadline - System.nanoTime()) > 0) {
                        overlap.wait(Math.max(1, left / 1_000_000));
                    }
                }
            }
            ControlException refusal = refuseNext;
            if (refusal != null) {
                refuseNext = null;
                throw refusal;
            }
            PlanDiff.Result diff = PlanDiff.of(ExportPlan.of(server, luns), ExportPlan.of(server, desired));
            List<String> warnings = new ArrayList<>(diff.warnings());
            List<Step> lossy = diff.dataLoss();
            if (!lossy.isEmpty() && !options.force()) {
                String why = PlanDiff.refusal(lossy, name -> new PlanDiff.Facts(luns.stream()
                        .anyMatch(l -> l.name().equals(name) && l.backend() == BackendKind.RAM) ? 4096 : 0,
                        (int) sessions.stream().filter(s -> s.target().endsWith(":" + name)).count()));
                if (!options.dryRun()) {
                    throw new ControlException(ControlException.Kind.NEEDS_FORCE, lossy.getFirst().subject(),
                            diff.key(lossy.getFirst()), why);
                }
                warnings.add("without --force this is refused: " + why);
            }
            List<String> steps = diff.steps().stream().map(Step::describe).toList();
            if (!options.dryRun()) {
                applies.incrementAndGet();
                luns = List.copyOf(desired);
            }
            return new ApplyResult(diff.luns(), steps, warnings, options.dryRun());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException(ControlException.Kind.UNAVAILABLE, null, null, "interrupted");
        } finally {
            concurrent.decrementAndGet();
        }
    }

    /** Every LUN on every portal in its configured state (nothing serves here to be in another). */
    @Override
    public List<PathStatus> paths() {
        List<PathStatus> all = new ArrayList<>();
        for (LunConfig lun : luns) {
            for (ExportPlan.PortalSpec p : portals()) {
                String word = lun.features().path(p.name()).word();
                all.add(new PathStatus(lun.name(), p.name(), p.id(), word, word, "configured"));
            }
        }
        return all;
    }

    @Override
    public List<SessionInfo> sessions() {
        return List.copyOf(sessions);
    }

    @Override
    public boolean dropSession(String id) {
        return sessions.removeIf(s -> s.id().equals(id));
    }

    @Override
    public long memoryBudgetBytes() {
        return server.memoryBudget();
    }

    @Override
    public long memoryUsedBytes() {
        return luns.stream().filter(l -> l.backend() == BackendKind.RAM).count() * 4096;
    }
}
