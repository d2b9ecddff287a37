package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.DiscoveryLog;

/**
 * What an NVM subsystem asks of the channel a host reaches it over (the "secure channel" part of TREQ in its
 * discovery log entry, NVMe Base 2.x Discovery Log Page Entry; NVMe/TCP Transport §3.6: the secure channel is
 * TLS 1.3, TSAS SECTYPE 02h). From the LUN files' {@code access.tls}: off, allowed, required.
 */
public enum SecureChannel {
    /** {@code tls: off}: plain NVMe/TCP; TREQ "not specified", SECTYPE none (what the entries said before TLS). */
    NOT_SPECIFIED(DiscoveryLog.Entry.TREQ_NOT_SPECIFIED, DiscoveryLog.Entry.SECTYPE_NONE),
    /** {@code tls: allowed}: TLS 1.3 or plain. */
    NOT_REQUIRED(DiscoveryLog.Entry.TREQ_NOT_REQUIRED, DiscoveryLog.Entry.SECTYPE_TLS13),
    /** {@code tls: required}: a Connect over a plain connection is refused and the connection closed. */
    REQUIRED(DiscoveryLog.Entry.TREQ_REQUIRED, DiscoveryLog.Entry.SECTYPE_TLS13);

    private final int treq;
    private final int sectype;

    SecureChannel(int treq, int sectype) {
        this.treq = treq;
        this.sectype = sectype;
    }

    /** TREQ bits 1:0. */
    public int treq() {
        return treq;
    }

    /** TSAS byte 0 for TCP. */
    public int sectype() {
        return sectype;
    }

    /** Whether a host on a channel of {@code security} may connect. */
    boolean admits(ChannelSecurity security) {
        return this != REQUIRED || security == ChannelSecurity.TLS13;
    }
}
