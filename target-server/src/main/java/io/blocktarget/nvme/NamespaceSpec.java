package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.LunFeatures;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One namespace to serve: what the server hands the NVMe layer for each LUN exported over NVMe/TCP.
 *
 * @param subsystemNqn the NVM subsystem it belongs to
 * @param nsid         namespace ID, 1..0xFFFFFFFE
 * @param name         the LUN's name from the config (serial number, NGUID / UUID derive from it: stable)
 * @param device       the backend
 * @param state        the device's shared state (the same instance the SCSI logical unit of this LUN uses)
 * @param uuid         the namespace UUID from {@code export.nvme.uuid}; empty: derived from {@code name}
 * @param features     the LUN's round-2 config sections; the knobs feed Identify and the command checks
 */
public record NamespaceSpec(String subsystemNqn, long nsid, String name, BlockDevice device, LunState state,
                            Optional<UUID> uuid, LunFeatures features) {
    public NamespaceSpec {
        Objects.requireNonNull(subsystemNqn, "subsystemNqn");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(features, "features");
    }

    /** A namespace without round-2 sections: today's behaviour. */
    public NamespaceSpec(String subsystemNqn, long nsid, String name, BlockDevice device, LunState state,
                         Optional<UUID> uuid) {
        this(subsystemNqn, nsid, name, device, state, uuid, LunFeatures.NONE);
    }

    /** A namespace whose UUID derives from its name. */
    public NamespaceSpec(String subsystemNqn, long nsid, String name, BlockDevice device, LunState state) {
        this(subsystemNqn, nsid, name, device, state, Optional.empty());
    }

    /** A namespace whose device no other command set exports (tests, NVMe-only LUNs): a state of its own. */
    public NamespaceSpec(String subsystemNqn, long nsid, String name, BlockDevice device) {
        this(subsystemNqn, nsid, name, device, new LunState(name));
    }
}
