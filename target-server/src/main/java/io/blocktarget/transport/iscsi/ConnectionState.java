package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateMachine;

/** Target-side connection states (RFC 7143 §8.1.2, the subset ErrorRecoveryLevel 0 needs). */
enum ConnectionState {
    /** S3 XPT_UP: TCP is up, no Login Request yet. */
    XPT_UP,
    /** S4 IN_LOGIN. */
    IN_LOGIN,
    /** S5 LOGGED_IN: full feature phase. */
    LOGGED_IN,
    /** S6 IN_LOGOUT: Logout Response being sent, the connection closes after it. */
    IN_LOGOUT,
    /** S1 FREE: closed; nothing is sent or processed any more. */
    FREE;

    static final StateMachine<ConnectionState> MACHINE = StateMachine.of("iSCSI connection", ConnectionState.class, XPT_UP)
            .allow(XPT_UP, IN_LOGIN, FREE)
            .allow(IN_LOGIN, LOGGED_IN, FREE)
            .allow(LOGGED_IN, IN_LOGOUT, FREE)
            .allow(IN_LOGOUT, FREE)
            .terminal(FREE)
            .build();
}
