package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateMachine;

/** Target-side session states (RFC 7143 §8.3, ErrorRecoveryLevel 0: a failed session is freed at once). */
enum SessionState {
    /** Q3 ACTIVE: the leading connection is logging in. */
    ACTIVE,
    /** Q4 LOGGED_IN. */
    LOGGED_IN,
    /** Q5 FAILED: the connection dropped or the session was reinstated. */
    FAILED,
    /** Q1 FREE: gone. */
    FREE;

    static final StateMachine<SessionState> MACHINE = StateMachine.of("iSCSI", SessionState.class, ACTIVE)
            .allow(ACTIVE, LOGGED_IN, FREE)
            .allow(LOGGED_IN, FAILED, FREE)
            .allow(FAILED, FREE)
            .terminal(FREE)
            .build();
}
