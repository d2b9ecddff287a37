package io.blocktarget.server;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.lun.AccessState;
import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.IscsiExport;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.PathState;
import io.blocktarget.config.PortalConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * issue 29: a LUN's {@code paths:} through the plan — its state on each portal when created, changed in place by an
 * apply (data and sessions kept), through transitioning first with a transition time (ended by the server's clock),
 * and listed by {@link ControlPlane#paths()}.
 */
class PathsApplyTest {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;

    private final ManualClock clock = new ManualClock();
    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    private final Registry registry = new Registry(
            new ServerConfig(null, "127.0.0.1", 0, 0, 0, budget.limit(), IQN, NQN).withPortals(List.of(
                    new PortalConfig("a", "127.0.0.1", 3260, 4420), new PortalConfig("b", "127.0.0.2", 3260, 4420))),
            Optional.empty(), budget, Registry.opener(budget, Runnable::run), null,
            NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420),
                    new NvmePort(2, "127.0.0.2", 4420)), NvmeLimits.DEFAULT, clock, Map.of()), clock);

    @AfterEach
    void close() {
        registry.closeAll();
    }

    private static LunConfig lun(Map<String, PathState> paths) {
        return new LunConfig("disk", null, BackendKind.RAM, 1 << 20, 512, 512,
                Optional.of(new IscsiExport(IQN + "disk", 0)), Optional.of(new NvmeExport(NQN + "disk", 1)), false,
                Optional.empty(), AccessConfig.OPEN, LunFeatures.NONE.withPaths(paths));
    }

    private io.blocktarget.block.lun.PathStates states() {
        return registry.snapshot().luns().getFirst().state().paths();
    }

    @Test
    void aLunStartsInItsConfiguredStatesAndAnApplyChangesThemInPlace() throws Exception {
        registry.apply(List.of(lun(Map.of("b", PathState.STANDBY))));
        assertThat(registry.paths()).containsExactly(
                new ControlPlane.PathStatus("disk", "a", 1, "optimized", "optimized", "configured"),
                new ControlPlane.PathStatus("disk", "b", 2, "standby", "standby", "configured"));
        io.blocktarget.block.lun.PathStates before = states();

        ControlPlane.ApplyResult r = registry.apply(List.of(lun(Map.of("a", PathState.NON_OPTIMIZED))));
        assertThat(r.steps()).containsExactly("set the paths of LUN disk: a optimized -> non-optimized, b standby ->"
                + " optimized (data and sessions kept; initiators are told)");
        assertThat(states()).as("the same LUN, changed in place").isSameAs(before);
        assertThat(before.state(1)).isEqualTo(AccessState.NON_OPTIMIZED);
        assertThat(before.state(2)).isEqualTo(AccessState.OPTIMIZED);
        assertThat(registry.paths()).extracting(ControlPlane.PathStatus::origin).containsOnly("implicit");
    }

    @Test
    void aTransitionTimePassesThroughTransitioningOnTheClock() throws Exception {
        registry.apply(List.of(lun(Map.of())));
        ControlPlane.ApplyResult dry = registry.apply(List.of(lun(Map.of("b", PathState.INACCESSIBLE))),
                new ControlPlane.ApplyOptions(false, true).withTransition(3_000_000_000L));
        assertThat(dry.steps()).containsExactly("set the paths of LUN disk: b optimized -> inaccessible"
                + " (transitioning for 3s first) (data and sessions kept; initiators are told)");
        assertThat(states().state(2)).as("a dry run changes nothing").isEqualTo(AccessState.OPTIMIZED);

        registry.apply(List.of(lun(Map.of("b", PathState.INACCESSIBLE))),
                ControlPlane.ApplyOptions.NONE.withTransition(3_000_000_000L));
        assertThat(states().state(2)).isEqualTo(AccessState.TRANSITIONING);
        assertThat(registry.paths().get(1).state()).isEqualTo("transitioning");
        assertThat(registry.paths().get(1).configured()).isEqualTo("inaccessible");
        clock.advanceMillis(2_999);
        assertThat(states().state(2)).isEqualTo(AccessState.TRANSITIONING);
        clock.advanceMillis(1);
        assertThat(states().state(2)).isEqualTo(AccessState.INACCESSIBLE);
        assertThat(states().state(1)).isEqualTo(AccessState.OPTIMIZED);
    }
}
