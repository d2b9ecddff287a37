package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.server.ControlPlane.ApplyResult;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A change of only a LUN's {@code faults:} (a file edit, SIGHUP, a PATCH) installs the new rules in place: the device
 * and its data stay, sessions see nothing else change, and the rules' counters start again.
 */
class FaultReloadTest {
    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    private final Registry registry = new Registry(ConfigLoader.embeddedDefault().server(), Optional.empty(), budget,
            Registry.opener(budget, Runnable::run), null,
            io.blocktarget.nvme.NvmeSubsystems.of(List.of(), List.of(new io.blocktarget.nvme.NvmePort(1, "127.0.0.1",
                    4420)), io.blocktarget.nvme.NvmeLimits.DEFAULT, new ManualClock(), java.util.Map.of()), new ManualClock());

    @AfterEach
    void close() {
        registry.closeAll();
    }

    private static LunConfig lun(String faults) throws Exception {
        return ConfigLoader.readLun("f", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"logical-block-size\": 4096"
                + faults + "}", Optional.empty(), ConfigLoader.embeddedDefault().server(), List.of());
    }

    private static FaultCommand read(long lba) {
        return new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, lba, 1, "iqn.x", -1);
    }

    @Test
    void onlyFaultsChangedKeepsTheDeviceAndSwapsTheRules() throws Exception {
        registry.apply(List.of(lun(", \"faults\": [{\"lba\": 10, \"action\": \"busy\"}]")));
        BlockDevice device = registry.snapshot().luns().getFirst().device();
        LunState state = registry.snapshot().luns().getFirst().state();
        assertThat(state.faults().command(read(10))).isNotNull();
        state.faults().add(FaultRules.of(ConfigLoader.readFaultRule("{\"id\": \"rt\", \"action\": \"busy\"}", "x")));

        ApplyResult changed = registry.apply(List.of(lun(", \"faults\": [{\"lba\": 20, \"action\": \"not-ready\"}]")));
        assertThat(changed.replaced()).as("not reopened").isEmpty();
        assertThat(registry.snapshot().luns().getFirst().device()).isSameAs(device);
        assertThat(registry.snapshot().luns().getFirst().state()).isSameAs(state);
        assertThat(registry.lun("f").orElseThrow().config().features().faults()).hasSize(1);
        assertThat(state.faults().rules()).extracting(r -> r.rule().id()).as("the file's rules only").containsExactly("f1");
        assertThat(state.faults().command(read(10))).isNull();
        assertThat(state.faults().command(read(20))).isNotNull();
        assertThat(state.faults().rules().getFirst().hits()).isEqualTo(1);

        registry.apply(List.of(lun("")));
        assertThat(registry.snapshot().luns().getFirst().device()).isSameAs(device);
        assertThat(state.faults().commandRules()).isFalse();
    }

    @Test
    void anUnchangedFileLeavesRuntimeRulesAlone() throws Exception {
        registry.apply(List.of(lun("")));
        LunState state = registry.snapshot().luns().getFirst().state();
        state.faults().add(FaultRules.of(ConfigLoader.readFaultRule("{\"id\": \"rt\", \"action\": \"busy\"}", "x")));
        assertThat(registry.apply(List.of(lun(""))).changedNothing()).isTrue();
        assertThat(state.faults().rules()).hasSize(1);
    }

    @Test
    void removingTheLunEndsTheCommandsItsRulesHold() throws Exception {
        registry.apply(List.of(lun(", \"faults\": [{\"action\": \"no-response\"}]")));
        LunState state = registry.snapshot().luns().getFirst().state();
        java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        assertThat(state.inFlight().enter()).isTrue();
        state.faults().holds().hold("nexus", 1, () -> {
            released.incrementAndGet();
            state.inFlight().exit(); // as the held command's completion does
        });
        registry.apply(List.of());
        assertThat(released).as("released once, so the removal drained it").hasValue(1);
        assertThat(state.inFlight().count()).isZero();
        assertThat(state.faults().holds().size()).isZero();
    }

    private static ExportPlan plan(LunConfig lun) throws Exception {
        return ExportPlan.of(ConfigLoader.embeddedDefault().server(), List.of(lun));
    }

    /** The plan diff: {@code faults:} is a key applied in place, so a change of it alone is one retune of the rules. */
    @Test
    void aFaultsOnlyChangeIsOneRetuneOfTheRules() throws Exception {
        LunConfig a = lun("");
        LunConfig b = lun(", \"faults\": [{\"action\": \"busy\"}]");
        LunConfig c = ConfigLoader.readLun("f", "{\"backend\": \"ram\", \"size\": \"2MiB\", \"logical-block-size\": 4096,"
                + " \"faults\": [{\"action\": \"busy\"}]}", Optional.empty(), ConfigLoader.embeddedDefault().server(),
                List.of());
        assertThat(PlanDiff.diff(plan(a), plan(b))).containsExactly(new Step.Retune(a, b, java.util.Set.of(), true));
        assertThat(PlanDiff.diff(plan(a), plan(a))).isEmpty();
        assertThat(PlanDiff.diff(plan(a), plan(c))).as("size too: a resize and the rules")
                .containsExactly(new Step.Resize(a, c), new Step.Retune(a, c, java.util.Set.of(), true));
    }
}
