package io.blocktarget.nvme;


import io.blocktarget.time.Clock;
import java.util.List;
import java.util.Map;

/** Builds the NVMe layer the server hands to the NVMe/TCP transport. */
public final class NvmeTargets {
    private NvmeTargets() {
    }

    /**
     * Every NVM subsystem named by {@code namespaces} (grouped by subsystem NQN) plus the discovery
     * subsystem, whose log lists each NVM subsystem on each of {@code ports}. Any host may connect; see
     * {@link NvmeSubsystems#of} to restrict hosts. The result is an {@link NvmeSubsystems}.
     */
    public static NvmeTarget create(List<NamespaceSpec> namespaces, List<NvmePort> ports, NvmeLimits limits,
                                    Clock clock) {
        return NvmeSubsystems.of(namespaces, ports, limits, clock, Map.of());
    }
}
