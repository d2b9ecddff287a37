package io.blocktarget.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may reach a LUN, from its {@code access:} map.
 *
 * @param chap  iSCSI CHAP for the LUN's target; empty: AuthMethod=None
 * @param hosts host NQNs allowed to connect to the LUN's NVMe subsystem, in file order; empty: any host
 */
public record AccessConfig(Optional<ChapConfig> chap, List<String> hosts) {
    /** No {@code access:} map: no CHAP, any NVMe host. */
    public static final AccessConfig OPEN = new AccessConfig(Optional.empty(), List.of());

    public AccessConfig {
        Objects.requireNonNull(chap, "chap");
        hosts = List.copyOf(hosts);
    }
}
