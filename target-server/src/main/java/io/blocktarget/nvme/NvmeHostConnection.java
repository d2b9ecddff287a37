package io.blocktarget.nvme;

/** The transport connection behind a queue, as the NVMe layer sees it. Implemented by the transport. */
public interface NvmeHostConnection {

    /** The host's address and port, e.g. {@code 192.168.231.2:51234}, for logs. */
    String peerAddress();

    /** The local IP the host connected to (TRADDR of this port in discovery log entries when bound to a wildcard). */
    String localAddress();

    /** The local port (TRSVCID). */
    int localPort();

    /** The controller is gone (keep-alive expiry, shutdown, reset): close this connection. Callable from any thread. */
    void terminate(String reason);
}
