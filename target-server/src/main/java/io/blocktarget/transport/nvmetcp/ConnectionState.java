package io.blocktarget.transport.nvmetcp;

import io.blocktarget.state.StateMachine;

/**
 * Life of one NVMe/TCP connection (NVMe/TCP §3.3: ICReq/ICResp first, then exactly one queue bound by a Fabrics
 * Connect, then commands until either side ends it). Checked by {@link #MACHINE}.
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

    static final StateMachine<ConnectionState> MACHINE = StateMachine.of("NVMe/TCP connection", ConnectionState.class,
                    AWAIT_ICREQ)
            .allow(AWAIT_ICREQ, AWAIT_CONNECT, CLOSING)
            .allow(AWAIT_CONNECT, LIVE, CLOSING)
            .allow(LIVE, CLOSING)
            .terminal(CLOSING)
            .build();
}
