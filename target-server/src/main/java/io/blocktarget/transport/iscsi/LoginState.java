package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateMachine;

/** Where one connection's login stands (RFC 7143 §6.3, §12.1.3 for the CHAP steps). */
enum LoginState {
    /** Security negotiation: AuthMethod not settled yet. */
    SECURITY,
    /** AuthMethod=CHAP agreed: waiting for CHAP_A. */
    CHAP_AWAIT_ALGORITHM,
    /** CHAP_I / CHAP_C sent: waiting for CHAP_N / CHAP_R. */
    CHAP_AWAIT_RESPONSE,
    /** The initiator is authenticated (or none was needed), still in the security stage. */
    AUTHENTICATED,
    /** Login operational negotiation. */
    OPERATIONAL,
    /** The final Login Response (T=1, NSG=3) went out. */
    COMPLETE,
    /** A Login Response with a non-zero status went out; the connection closes. */
    FAILED;

    static final StateMachine<LoginState> MACHINE = StateMachine.of("iSCSI login", LoginState.class, SECURITY)
            .allow(SECURITY, CHAP_AWAIT_ALGORITHM, AUTHENTICATED, OPERATIONAL, COMPLETE, FAILED)
            .allow(CHAP_AWAIT_ALGORITHM, CHAP_AWAIT_RESPONSE, FAILED)
            .allow(CHAP_AWAIT_RESPONSE, AUTHENTICATED, OPERATIONAL, COMPLETE, FAILED)
            .allow(AUTHENTICATED, OPERATIONAL, COMPLETE, FAILED)
            .allow(OPERATIONAL, COMPLETE, FAILED)
            .terminal(COMPLETE)
            .terminal(FAILED)
            .build();
}
