package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;

import java.util.Objects;

/**
 * One namespace to serve: what the server hands the NVMe layer for each LUN exported over NVMe/TCP.
 *
 * @param subsystemNqn the NVM subsystem it belongs to
 * @param nsid         namespace ID, 1..0xFFFFFFFE
 * @param name         the LUN's name from the config (serial number, NGUID / UUID derive from it: stable)
 * @param device       the backend
 */
public record NamespaceSpec(String subsystemNqn, long nsid, String name, BlockDevice device) {
    public NamespaceSpec {
        Objects.requireNonNull(subsystemNqn, "subsystemNqn");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
    }
}
