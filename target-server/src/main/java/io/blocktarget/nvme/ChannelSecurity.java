package io.blocktarget.nvme;

/** What protects one transport connection, as the transport reports it (NVMe/TCP Transport §3.6). */
public enum ChannelSecurity {
    /** Plain NVMe/TCP. */
    NONE,
    /** TLS 1.3 with a PSK (the transport checked the PSK identity's subsystem and host). */
    TLS13
}
