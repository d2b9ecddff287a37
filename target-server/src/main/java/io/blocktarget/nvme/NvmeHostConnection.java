package io.blocktarget.nvme;

/** The transport connection behind a queue, as the NVMe layer sees it. Implemented by the transport. */
public interface NvmeHostConnection extends io.blocktarget.block.fault.FaultConnection {

    /** The host's address and port, e.g. {@code 192.168.231.2:51234}, for logs. */
    String peerAddress();

    /**
     * Whether one more session-event line about this connection's host (controller created, state changes, a refused
     * Connect) may be logged now: the transport bounds them per peer address, so a flood of short connections cannot
     * flood the log. Ask right before logging, and build nothing when it says no.
     */
    default boolean logAdmitted() {
        return true;
    }

    /** The local IP the host connected to (TRADDR of this port in discovery log entries when bound to a wildcard). */
    String localAddress();

    /** The local port (TRSVCID). */
    int localPort();

    /** What protects this connection; plain NVMe/TCP unless the transport negotiated TLS. */
    default ChannelSecurity security() {
        return tlsSession().isPresent() ? ChannelSecurity.TLS13 : ChannelSecurity.NONE;
    }

    /** The host and subsystem the connection's TLS PSK was derived for; empty on a plain connection. */
    default java.util.Optional<TlsSession> tlsSession() {
        return java.util.Optional.empty();
    }

    /** The controller is gone (keep-alive expiry, shutdown, reset): close this connection. Callable from any thread. */
    void terminate(String reason);

    /**
     * Abort (Base §5.1) of command {@code cid} of this connection's queue, when the transport still holds it: a
     * command waiting for its host-to-controller data (R2T outstanding) completes with Command Abort Requested.
     * {@code done} learns whether it was aborted (false: unknown CID, or already handed to the NVMe layer, which
     * cannot cancel a backend operation). Callable from any thread; {@code done} runs on any thread, exactly once.
     */
    default void abort(int cid, java.util.function.Consumer<Boolean> done) {
        done.accept(false);
    }

    /** Connection faults of fault rules (drop, stall, a bad digest); none applies unless the transport says so. */
    @Override
    default boolean applyFault(io.blocktarget.block.fault.FaultAction.ConnectionFault fault,
                               io.blocktarget.block.fault.ActiveRule rule) {
        return false;
    }

    /**
     * The transport's commands of this connection by state name, every state listed (issue 27: shown per controller
     * by {@code sessions --json}); empty when the transport does not count them. Any thread.
     */
    default java.util.Map<String, Long> commandCounts() {
        return java.util.Map.of();
    }
}
