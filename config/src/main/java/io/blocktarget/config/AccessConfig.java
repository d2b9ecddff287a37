package io.blocktarget.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may reach a LUN, from its {@code access:} map.
 *
 * @param chap       iSCSI CHAP for the LUN's target; empty: AuthMethod=None
 * @param hosts      host NQNs allowed to connect to the LUN's NVMe subsystem, in file order; empty: any host
 * @param initiators iSCSI initiator names allowed to log in to the LUN's target, in file order; empty: any initiator
 * @param dhchap     NVMe in-band authentication (DH-HMAC-CHAP) keys of the LUN's subsystem; empty: none
 * @param tls        NVMe/TCP TLS 1.3 of the LUN's subsystem ({@code access.tls}, {@code access.tls-psk-file})
 */
public record AccessConfig(Optional<ChapConfig> chap, List<String> hosts, List<String> initiators,
                           Optional<DhchapConfig> dhchap, TlsConfig tls) {
    /** No {@code access:} map: no CHAP, any NVMe host. */
    public static final AccessConfig OPEN = new AccessConfig(Optional.empty(), List.of());

    public AccessConfig {
        Objects.requireNonNull(chap, "chap");
        Objects.requireNonNull(dhchap, "dhchap");
        Objects.requireNonNull(tls, "tls");
        hosts = List.copyOf(hosts);
        initiators = List.copyOf(initiators);
    }

    /** Without TLS. */
    public AccessConfig(Optional<ChapConfig> chap, List<String> hosts, List<String> initiators,
                        Optional<DhchapConfig> dhchap) {
        this(chap, hosts, initiators, dhchap, TlsConfig.OFF);
    }

    /** CHAP and hosts only: any initiator, no DH-HMAC-CHAP. */
    public AccessConfig(Optional<ChapConfig> chap, List<String> hosts) {
        this(chap, hosts, List.of(), Optional.empty());
    }
}
