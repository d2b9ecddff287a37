package io.blocktarget.nvme;

import io.blocktarget.config.TlsPsk;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Who may connect to one NVM subsystem, set with the subsystem ({@link NvmeSubsystems#addSubsystem}) and changed as a
 * whole ({@link NvmeSubsystems#access(String, SubsystemAccess)}); checked at each Connect and TLS handshake, so
 * controllers already connected stay (Base §3.1: access is granted at Connect).
 *
 * @param hosts         host NQNs allowed to connect; empty: any host
 * @param dhchap        DH-HMAC-CHAP keys (Base 2.2 §8.3.4); empty: no in-band authentication
 * @param secureChannel TREQ of the subsystem's discovery log entries and the Connect check (NVMe/TCP §3.6)
 * @param psk           the configured TLS PSK; empty: no TLS
 */
public record SubsystemAccess(Set<String> hosts, Optional<DhchapKeys> dhchap, SecureChannel secureChannel,
                              Optional<TlsPsk> psk) {
    /** Any host, no authentication, no TLS. */
    public static final SubsystemAccess OPEN = new SubsystemAccess(Set.of(), Optional.empty(),
            SecureChannel.NOT_SPECIFIED, Optional.empty());

    public SubsystemAccess {
        hosts = Set.copyOf(hosts);
        Objects.requireNonNull(dhchap, "dhchap");
        Objects.requireNonNull(secureChannel, "secureChannel");
        Objects.requireNonNull(psk, "psk");
    }
}
