package io.blocktarget.nvme;

import java.util.Objects;

/**
 * A TLS 1.3 session of an NVMe/TCP connection, as the PSK identity the host chose names it (NVMe/TCP §3.6.1.3):
 * the TLS PSK was derived for this host and this subsystem, so only a Connect naming both is admitted.
 */
public record TlsSession(String hostNqn, String subsystemNqn) {
    public TlsSession {
        Objects.requireNonNull(hostNqn, "hostNqn");
        Objects.requireNonNull(subsystemNqn, "subsystemNqn");
    }
}
