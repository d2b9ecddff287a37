package io.blocktarget.config;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * How a LUN is exported over NVMe/TCP.
 *
 * @param subsystem the NVM subsystem's NQN (NVMe Base §4.5)
 * @param nsid      the namespace ID within that subsystem, 1..0xFFFFFFFE
 * @param uuid      the namespace UUID (Identify Namespace Identification Descriptor, NIDT 3h, NVMe Base §5.1.13.2.3)
 *                  from {@code export.nvme.uuid}; empty: derived from the LUN name
 */
public record NvmeExport(String subsystem, long nsid, Optional<UUID> uuid) {
    public NvmeExport {
        Objects.requireNonNull(subsystem, "subsystem");
        Objects.requireNonNull(uuid, "uuid");
    }

    /** A namespace whose UUID is derived from the LUN name. */
    public NvmeExport(String subsystem, long nsid) {
        this(subsystem, nsid, Optional.empty());
    }
}
