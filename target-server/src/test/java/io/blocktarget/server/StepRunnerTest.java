package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.ChapConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.nvme.SubsystemAccess;
import io.blocktarget.server.ControlPlane.ApplyOptions;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.time.ManualClock;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import io.blocktarget.transport.iscsi.TargetAccess;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link StepRunner} through the registry, on real runtime objects (SCSI targets, an iSCSI transport and NVMe
 * subsystems without sockets): a change of every kind at once fails at each of its steps in turn, and each time
 * everything done before is undone — the runtime is as it was, what was opened is closed, the LUN says why; then it
 * succeeds and the runtime is what the plan says. Start-up (from the empty plan) and a runtime apply of the same plan
 * leave the same runtime. LUN states are visible while a step runs.
 */
class StepRunnerTest {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;

    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    private final ServerConfig server = budget(ConfigLoader.embeddedDefault().server(), 64L << 20);
    /** Every device opened, in order, to check what was closed. */
    private final List<BlockDevice> opened = new CopyOnWriteArrayList<>();
    /** By LUN name: refuse a device's n-th resize (1-based), looked up at each resize. */
    private final Map<String, Predicate<Integer>> refuseResize = new ConcurrentHashMap<>();
    /** LUN names whose backend cannot be opened. */
    private final java.util.Set<String> failOpen = ConcurrentHashMap.newKeySet();
    private final List<Registry> registries = new ArrayList<>();

    private static ServerConfig budget(ServerConfig s, long bytes) {
        return new ServerConfig(s.source(), "127.0.0.1", s.iscsiPort(), s.nvmePort(), s.discoveryPort(), bytes,
                s.iqnPrefix(), s.nqnPrefix(), s.eventLoops(), s.poll(), s.control(), s.discoveryChap(),
                s.pollWindowNanos());
    }

    /** The runtime a registry drives, without sockets. */
    private record Runtime(Registry registry, IscsiTransport iscsi, NvmeSubsystems nvme) {
    }

    private Runtime runtime() {
        return runtime(server);
    }

    /** A runtime whose registry starts under {@code start} (as the server's starts under its configuration's). */
    private Runtime runtime(ServerConfig start) {
        ManualClock clock = new ManualClock();
        IscsiTransport iscsi = IscsiTransport.create(null, List.of(), IscsiSettings.defaults(), clock);
        NvmeSubsystems nvme = NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420)),
                NvmeLimits.DEFAULT, clock, Map.of());
        Registry.BackendOpener real = Registry.opener(budget, Runnable::run);
        Registry registry = new Registry(start, Optional.empty(), budget, c -> {
            if (failOpen.contains(c.name())) {
                throw new java.io.IOException("disk on fire");
            }
            BlockDevice device = new ResizeRefusing(real.open(c),
                    n -> refuseResize.getOrDefault(c.name(), x -> false).test(n));
            opened.add(device);
            return device;
        }, iscsi, nvme, clock);
        registries.add(registry);
        return new Runtime(registry, iscsi, nvme);
    }

    @AfterEach
    void close() {
        registries.forEach(Registry::closeAll);
    }

    private LunConfig lun(String name, String json) throws Exception {
        return ConfigLoader.readLun(name, json, Optional.empty(), server, List.of());
    }

    private String shared(int lun) {
        return "\"export\": {\"iscsi\": {\"target\": \"" + IQN + "shared\", \"lun\": " + lun + "}, \"nvme\": "
                + "{\"subsystem\": \"" + NQN + "shared\", \"nsid\": " + (lun + 1) + "}}";
    }

    /** A plan with a LUN for each kind of change {@link #after} makes. */
    private ExportPlan before() throws Exception {
        return ExportPlan.of(server, List.of(
                lun("keep", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared(0) + "}"),
                lun("replace", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared(1) + "}"),
                lun("grow", "{\"backend\": \"ram\", \"size\": \"1MiB\"}"),
                lun("shrink", "{\"backend\": \"ram\", \"size\": \"2MiB\"}"),
                lun("move", "{\"backend\": \"ram\", \"size\": \"1MiB\"}"),
                lun("retune", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"access\": {\"hosts\": [\"nqn.2026-11.test:h1\"]}}"),
                lun("gone", "{\"backend\": \"null\", \"size\": \"1MiB\"}")));
    }

    /** Every kind of change at once: add, remove, grow, shrink, replace, re-export, retune, access, server keys. */
    private ExportPlan after() throws Exception {
        ServerConfig changed = budget(server, 32L << 20).withDiscoveryChap(Optional.of(new ChapConfig("disco",
                "discovery-secret", Optional.empty(), Optional.empty())));
        return ExportPlan.of(changed, List.of(
                lun("keep", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared(0) + "}"),
                lun("replace", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"logical-block-size\": 4096, " + shared(1) + "}"),
                lun("grow", "{\"backend\": \"ram\", \"size\": \"2MiB\"}"),
                lun("shrink", "{\"backend\": \"ram\", \"size\": \"1MiB\"}"),
                lun("move", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared(2) + "}"),
                lun("retune", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"rotational\": true, \"faults\": [{\"action\":"
                        + " \"busy\"}], \"access\": {\"hosts\": [\"nqn.2026-11.test:h2\"]}}"),
                lun("added", "{\"backend\": \"null\", \"size\": \"1MiB\"}")));
    }

    /** Everything an initiator or the control plane can see of a runtime, and the devices' identities and sizes. */
    private static Map<String, Object> fingerprint(Runtime rt, boolean withDevices) {
        Map<String, Object> f = new LinkedHashMap<>();
        Registry.Snapshot s = rt.registry().snapshot();
        f.put("plan", s.plan().exports());
        f.put("budget", rt.registry().memoryBudgetBytes());
        Map<String, Object> luns = new LinkedHashMap<>();
        for (Lun lun : s.luns()) {
            luns.put(lun.name(), (withDevices ? System.identityHashCode(lun.device()) + "/" : "")
                    + lun.device().geometry().blockCount() + "/" + lun.device().geometry().logicalBlockSize()
                    + "/" + lun.state().faults().rules().size());
        }
        f.put("luns", luns);
        Map<String, Object> targets = new TreeMap<>();
        s.scsiTargets().forEach((name, t) -> targets.put(name, t.luns()));
        f.put("scsi-targets", targets);
        Map<String, Object> iscsi = new TreeMap<>();
        rt.iscsi().targetNames().forEach(name -> iscsi.put(name, rt.iscsi().access(name)));
        f.put("iscsi", iscsi);
        f.put("discovery-chap", rt.iscsi().serverSettings().discoveryChap());
        Map<String, Object> nvme = new TreeMap<>();
        rt.nvme().subsystemNqns().forEach(nqn -> nvme.put(nqn, rt.nvme().nsids(nqn) + " "
                + rt.nvme().access(nqn).map(Object::toString).orElse("-")));
        f.put("nvme", nvme);
        Map<String, Object> states = new TreeMap<>();
        rt.registry().luns().forEach(l -> states.put(l.config().name(), l.state()));
        f.put("states", states);
        return f;
    }

    /** What the plan says the runtime is: every target's LUN map and access, every subsystem's NSIDs and access. */
    private static void assertRuntimeIs(ExportPlan plan, Runtime rt) {
        assertThat(rt.iscsi().targetNames()).containsExactlyInAnyOrderElementsOf(plan.targets().keySet());
        plan.targets().forEach((name, t) -> {
            assertThat(rt.registry().snapshot().scsiTargets().get(name).luns()).as(name)
                    .containsExactlyElementsOf(t.luns().keySet());
            assertThat(rt.iscsi().access(name)).as(name).isEqualTo(t.access());
        });
        List<String> nqns = new ArrayList<>(rt.nvme().subsystemNqns());
        nqns.remove(io.blocktarget.protocol.nvme.DiscoveryLog.DISCOVERY_NQN);
        assertThat(nqns).containsExactlyInAnyOrderElementsOf(plan.subsystems().keySet());
        plan.subsystems().forEach((nqn, sub) -> {
            assertThat(rt.nvme().nsids(nqn)).as(nqn).containsExactlyElementsOf(sub.namespaces().keySet());
            assertThat(rt.nvme().access(nqn)).as(nqn).contains(sub.access());
        });
        assertThat(rt.iscsi().serverSettings().discoveryChap()).isEqualTo(plan.discovery().iscsiChap());
        assertThat(rt.registry().memoryBudgetBytes()).isEqualTo(plan.server().memoryBudget());
        assertThat(rt.registry().snapshot().luns()).extracting(Lun::config).containsExactlyElementsOf(plan.luns());
    }

    /** Whether a read of LBA 0 fails CLOSED (a RAM / null device completes inline). */
    private static boolean closed(BlockDevice device) {
        CompletableFuture<BlockError> outcome = new CompletableFuture<>();
        device.read(0, 1, (data, failure) -> {
            if (data != null) {
                data.release();
            }
            outcome.complete(failure == null ? null : failure.error());
        });
        return outcome.getNow(BlockError.INVALID_LENGTH) == BlockError.CLOSED;
    }

    /**
     * The change fails at each of its steps in turn (a step that throws, as a runtime object refusing would); each
     * time the runtime is exactly as before, the devices the failed apply opened are closed, the old ones open, and the
     * LUN of the failed step has the error as its last error. Then the change goes through.
     */
    @Test
    void aFailureAtAnyStepUndoesEveryStepBeforeIt() throws Exception {
        Runtime rt = runtime();
        ExportPlan before = before();
        rt.registry().start(before);
        Io.write(rt.registry().snapshot().lun("keep").orElseThrow().device(), 0, new byte[512]);
        List<BlockDevice> served = rt.registry().snapshot().luns().stream().map(Lun::device).toList();
        Map<String, Object> was = fingerprint(rt, true);
        assertRuntimeIs(before, rt);
        ExportPlan after = after();
        List<Step> steps = PlanDiff.diff(before, after);
        assertThat(steps).hasSizeGreaterThan(15);

        for (int k = 0; k < steps.size(); k++) {
            Step failing = steps.get(k);
            int at = k;
            AtomicInteger seen = new AtomicInteger();
            rt.registry().stepHook(step -> {
                if (seen.getAndIncrement() == at) {
                    throw new IllegalStateException("step " + step.describe() + " fails on purpose");
                }
            });
            int openedBefore = opened.size();
            ControlException e = assertThrows(ControlException.class,
                    () -> rt.registry().apply(after, ApplyOptions.FORCE), failing.describe());
            assertThat(e.getMessage()).contains("fails on purpose").endsWith("; nothing changed");
            assertThat(fingerprint(rt, true)).as("after a failure at step %d: %s", k, failing.describe())
                    .isEqualTo(was);
            assertThat(opened.subList(openedBefore, opened.size())).as("opened by the failed apply").allMatch(
                    StepRunnerTest::closed);
            assertThat(served).as("the devices served").noneMatch(StepRunnerTest::closed);
            if (before.lun(failing.subject()).isPresent()) {
                assertThat(rt.registry().lun(failing.subject()).orElseThrow().lastError()).as(failing.describe())
                        .hasValueSatisfying(m -> assertThat(m).contains(failing.describe(), "fails on purpose",
                                "the change was undone"));
            }
        }

        rt.registry().stepHook(step -> { });
        ControlPlane.ApplyResult result = rt.registry().apply(after, ApplyOptions.FORCE);
        assertThat(result.steps()).hasSize(steps.size());
        assertRuntimeIs(after, rt);
        assertThat(rt.registry().luns()).allMatch(l -> l.state() == LunPhase.ACTIVE && l.lastError().isEmpty());
        assertThat(served.get(1)).as("replace's old device").matches(StepRunnerTest::closed);
        assertThat(served.get(6)).as("gone's device").matches(StepRunnerTest::closed);
        assertThat(rt.registry().snapshot().lun("keep").orElseThrow().device()).isSameAs(served.get(0));
        assertThat(rt.registry().snapshot().lun("move").orElseThrow().device()).as("re-exported: the same device")
                .isSameAs(served.get(4));
        assertThat(rt.registry().snapshot().lun("retune").orElseThrow().state().faults().rules()).hasSize(1);
    }

    /** Start-up (the plan applied to an empty server) and a runtime apply of the same plan leave the same runtime. */
    @Test
    void startUpAndRuntimeApplyOfOnePlanLeaveTheSameRuntime() throws Exception {
        Runtime started = runtime(after().server());   // as TargetServer: the registry knows the keys it starts with
        started.registry().start(after());
        Runtime changed = runtime();
        changed.registry().start(before());
        changed.registry().apply(after(), ApplyOptions.FORCE);
        assertRuntimeIs(after(), started);
        assertRuntimeIs(after(), changed);
        assertThat(fingerprint(changed, false)).isEqualTo(fingerprint(started, false));
    }

    /** A resize that fails while its undo must size back devices grown before it; an undo that fails says so. */
    @Test
    void anUndoThatFailsLeavesTheLunFailedWithItsReason() throws Exception {
        refuseResize.put("grow", count -> count >= 2);   // grows once, refuses to shrink back
        Runtime rt = runtime();
        rt.registry().start(before());
        rt.registry().stepHook(step -> {
            if (step instanceof Step.Resize r && r.after().name().equals("shrink")) {
                throw new IllegalStateException("shrink refused on purpose");
            }
        });
        assertThrows(ControlException.class, () -> rt.registry().apply(after(), ApplyOptions.FORCE));
        ControlPlane.LunStatus grow = rt.registry().lun("grow").orElseThrow();
        assertThat(grow.state()).isEqualTo(LunPhase.FAILED);
        assertThat(grow.lastError().orElseThrow()).startsWith("undoing \"grow LUN grow from 1 MiB to 2 MiB\" after a"
                + " failed change: ");
        assertThat(rt.registry().lun("shrink").orElseThrow().lastError().orElseThrow())
                .contains("shrink refused on purpose").endsWith("; the change was undone");
        // the next change that works makes it active again
        rt.registry().stepHook(step -> { });
        refuseResize.clear();
        rt.registry().apply(after(), ApplyOptions.FORCE);
        assertRuntimeIs(after(), rt);
        assertThat(rt.registry().lun("grow").orElseThrow().state()).isEqualTo(LunPhase.ACTIVE);
        assertThat(rt.registry().lun("grow").orElseThrow().lastError()).isEmpty();
    }

    private static final String PLACED = "\"logical-block-size\": 4096, \"placement\": {\"reclaim-unit-size\":"
            + " \"64KiB\", \"handles\": 4, \"streams\": 2}";

    /**
     * {@code placement:} (issue 32) becomes the media model of the LUN's state, sized for the LUN; a LUN without it has
     * none; a grow gives the LUN a model of its new size (the old one's tables are per block), and an undone grow
     * gives the old model back.
     */
    @Test
    void placementIsTheLunStatesModelAndAResizeRemodelsIt() throws Exception {
        Runtime rt = runtime();
        LunConfig placed = lun("p", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + PLACED + "}");
        LunConfig plain = lun("plain", "{\"backend\": \"ram\", \"size\": \"1MiB\"}");
        rt.registry().start(ExportPlan.of(server, List.of(placed, plain)));
        io.blocktarget.block.placement.Placement first = rt.registry().snapshot().lun("p").orElseThrow().state()
                .placement();
        assertThat(first.config()).isEqualTo(new io.blocktarget.block.placement.PlacementSpec(64 << 10, 4, 2, 700));
        assertThat(first.geometry().logicalBlockSize()).isEqualTo(4096);
        assertThat(first.geometry().blockCount()).isEqualTo(256);
        assertThat(first.geometry().reclaimUnitBlocks()).isEqualTo(16);
        assertThat(rt.registry().snapshot().lun("plain").orElseThrow().state().placement()).isNull();
        first.writeHandle(1, 0, 16);
        assertThat(first.stats().handles().get(1).hostBytes()).isEqualTo(64 << 10);

        // a grow that is undone (the export after it fails): the first model is back, counters kept
        LunConfig grown = lun("p", "{\"backend\": \"ram\", \"size\": \"2MiB\", " + PLACED + "}");
        LunConfig late = lun("late", "{\"backend\": \"null\", \"size\": \"1MiB\"}");
        java.util.concurrent.atomic.AtomicReference<io.blocktarget.block.placement.Placement> during =
                new java.util.concurrent.atomic.AtomicReference<>();
        io.blocktarget.block.lun.LunState state = rt.registry().snapshot().lun("p").orElseThrow().state();
        rt.registry().stepHook(step -> {
            if (step instanceof Step.Export x && x.lun().name().equals("late")) {
                during.set(state.placement());
                throw new IllegalStateException("export refused on purpose");
            }
        });
        assertThrows(ControlException.class, () -> rt.registry().apply(List.of(grown, plain, late)));
        assertThat(during.get().geometry().blockCount()).as("the model while grown").isEqualTo(512);
        assertThat(rt.registry().snapshot().lun("p").orElseThrow().state().placement()).isSameAs(first);
        assertThat(first.stats().handles().get(1).hostBytes()).isEqualTo(64 << 10);

        rt.registry().stepHook(step -> { });
        rt.registry().apply(List.of(grown, plain));
        io.blocktarget.block.placement.Placement second = rt.registry().snapshot().lun("p").orElseThrow().state()
                .placement();
        assertThat(second).isNotSameAs(first);
        assertThat(second.geometry().blockCount()).isEqualTo(512);
        assertThat(second.stats().total().hostBytes()).isZero();
        assertThat(rt.registry().snapshot().lun("plain").orElseThrow().state().placement()).isNull();
    }

    /** While a change runs, each LUN it touches shows what is happening to it. */
    @Test
    void statesAreVisibleWhileAChangeRuns() throws Exception {
        Runtime rt = runtime();
        rt.registry().start(before());
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        rt.registry().stepHook(step -> {
            if (step instanceof Step.Export x && x.lun().name().equals("added")) {
                inStep.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
        });
        CompletableFuture<ControlPlane.ApplyResult> apply = CompletableFuture.supplyAsync(() -> {
            try {
                return rt.registry().apply(after(), ApplyOptions.FORCE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(inStep.await(10, TimeUnit.SECONDS)).isTrue();
        Map<String, String> states = new TreeMap<>();
        rt.registry().luns().forEach(l -> states.put(l.config().name(), l.state().label()));
        assertThat(states).isEqualTo(new TreeMap<>(Map.of("keep", "active", "replace", "replacing", "grow", "resizing",
                "shrink", "resizing", "move", "re-exporting", "retune", "retuning", "gone", "draining",
                "added", "opening")));
        release.countDown();
        apply.get(10, TimeUnit.SECONDS);
        assertThat(rt.registry().luns()).extracting(l -> l.config().name() + " " + l.state().label())
                .containsExactly("keep active", "replace active", "grow active", "shrink active", "move active",
                        "retune active", "added active");
    }

    /** A backend that cannot be opened: the LUN being added is gone again, the others as they were. */
    @Test
    void aBackendThatCannotBeOpenedLeavesNoTrace() throws Exception {
        Runtime rt = runtime();
        rt.registry().start(before());
        Map<String, Object> was = fingerprint(rt, true);
        List<LunConfig> desired = new ArrayList<>(before().luns());
        desired.add(lun("broken", "{\"backend\": \"ram\", \"size\": \"1MiB\"}"));
        failOpen.add("broken");
        ControlException e = assertThrows(ControlException.class, () -> rt.registry().apply(desired));
        assertThat(e.kind()).isEqualTo(ControlException.Kind.UNAVAILABLE);
        assertThat(e.lun()).isEqualTo("broken");
        assertThat(e.key()).isEqualTo("backend");
        assertThat(e.getMessage()).isEqualTo("cannot open the ram backend of LUN broken: disk on fire; nothing changed");
        assertThat(fingerprint(rt, true)).isEqualTo(was);
        assertThat(rt.registry().lun("broken")).isEmpty();
    }

    /** Access applied at creation: a target / subsystem that comes with a LUN has its access from the first swap. */
    @Test
    void aNewTargetAndSubsystemComeWithTheirAccess() throws Exception {
        Runtime rt = runtime();
        List<Object> seenAtCreation = new CopyOnWriteArrayList<>();
        rt.registry().stepHook(step -> {
            if (step instanceof Step.Export) {
                seenAtCreation.add(rt.iscsi().targetNames().contains(IQN + "sec") ? rt.iscsi().access(IQN + "sec")
                        : "no target");
            }
        });
        rt.registry().start(ExportPlan.of(server, List.of(lun("sec", "{\"backend\": \"null\", \"size\": \"1MiB\","
                + " \"access\": {\"initiators\": [\"iqn.2026-11.test:i\"], \"hosts\": [\"nqn.2026-11.test:h\"]}}"))));
        assertThat(seenAtCreation).containsExactly("no target");
        assertThat(rt.iscsi().access(IQN + "sec")).isEqualTo(new TargetAccess(Optional.empty(),
                java.util.Set.of("iqn.2026-11.test:i"), Optional.empty()));
        assertThat(rt.nvme().access(NQN + "sec")).contains(new SubsystemAccess(java.util.Set.of("nqn.2026-11.test:h"),
                Optional.empty(), io.blocktarget.nvme.SecureChannel.NOT_SPECIFIED, Optional.empty()));
        assertThat(rt.iscsi().serverSettings().discoveryChap()).isEqualTo(Optional.<Chap>empty());
    }

    /** A device whose resizes succeed while {@code refuse} says no for the count of resizes so far (1-based). */
    private static final class ResizeRefusing implements BlockDevice {
        private final BlockDevice inner;
        private final Predicate<Integer> refuse;
        private final AtomicInteger resizes = new AtomicInteger();

        ResizeRefusing(BlockDevice inner, Predicate<Integer> refuse) {
            this.inner = inner;
            this.refuse = refuse;
        }

        @Override
        public void resize(long newBlockCount, IoCallback<Void> callback) {
            if (refuse.test(resizes.incrementAndGet())) {
                callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH, "refused on purpose"));
                return;
            }
            inner.resize(newBlockCount, callback);
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public io.blocktarget.block.BlockGeometry geometry() {
            return inner.geometry();
        }

        @Override
        public boolean readOnly() {
            return inner.readOnly();
        }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            inner.read(lba, blockCount, callback);
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            inner.write(lba, data, fua, callback);
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            inner.flush(callback);
        }

        @Override
        public void unmap(List<io.blocktarget.block.BlockRange> ranges, IoCallback<Void> callback) {
            inner.unmap(ranges, callback);
        }

        @Override
        public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
            inner.writeZeroes(lba, blockCount, callback);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
