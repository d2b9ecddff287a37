package io.blocktarget.transport.nvmetcp;

import java.util.EnumSet;
import java.util.Set;

/**
 * Life of one NVMe/TCP connection (NVMe/TCP §3.3: ICReq/ICResp first, then exactly one queue bound by a Fabrics
 * Connect, then commands until either side ends it). Checked by {@link #checkTransition}.
 */
enum ConnectionState {
    /** Only an ICReq (or an H2CTermReq) may arrive. */
    AWAIT_ICREQ,
    /** ICResp sent: the next capsule must be a Connect; it may be refused and retried. */
    AWAIT_CONNECT,
    /** A queue serves this connection. */
    LIVE,
    /** Closed or closing: nothing more is read, late completions are dropped. */
    CLOSING;

    private Set<ConnectionState> next() {
        return switch (this) {
            case AWAIT_ICREQ -> EnumSet.of(AWAIT_CONNECT, CLOSING);
            case AWAIT_CONNECT -> EnumSet.of(LIVE, CLOSING);
            case LIVE -> EnumSet.of(CLOSING);
            case CLOSING -> EnumSet.noneOf(ConnectionState.class);
        };
    }

    /** The new state when the transition is legal; a programming error otherwise. */
    ConnectionState checkTransition(ConnectionState to) {
        if (!next().contains(to)) {
            throw new IllegalStateException("connection " + this + " -> " + to);
        }
        return to;
    }
}
