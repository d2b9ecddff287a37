package io.blocktarget.config;

import java.util.Objects;

/**
 * How a LUN is exported over NVMe/TCP.
 *
 * @param subsystem the NVM subsystem's NQN (NVMe Base §4.5)
 * @param nsid      the namespace ID within that subsystem, 1..0xFFFFFFFE
 */
public record NvmeExport(String subsystem, long nsid) {
    public NvmeExport {
        Objects.requireNonNull(subsystem, "subsystem");
    }
}
