package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;

/** Every NVM subsystem of the server plus the discovery subsystem; what a new NVMe/TCP connection talks to. */
public interface NvmeTarget {

    /**
     * A Fabrics Connect, the first command of a connection (NVMe/TCP §3.3: one queue per connection).
     * QID 0 creates a controller (CNTLID 0xFFFF: dynamic model) for the subsystem and host; QID ≥ 1
     * attaches an I/O queue to the existing controller named by {@code data.cntlid()}. Completes
     * exactly once, possibly on another thread.
     */
    void connect(ConnectCommand command, ConnectData data, NvmeHostConnection connection, ConnectCompletion done);

    /**
     * The configured TLS PSK of an NVM subsystem ({@code access.tls-psk-file}), from which the transport derives the
     * TLS PSK of a handshake whose PSK identity names that subsystem; empty when it has none or is unknown.
     */
    default java.util.Optional<io.blocktarget.config.TlsPsk> tlsPsk(String subsystemNqn) {
        return java.util.Optional.empty();
    }

    /** True when some NVM subsystem has a TLS PSK, so a new connection may start with a TLS handshake. */
    default boolean tlsOffered() {
        return false;
    }

    /** Outcome of a Connect. */
    @FunctionalInterface
    interface ConnectCompletion {
        void complete(ConnectResult result);
    }
}
