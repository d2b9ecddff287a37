package io.blocktarget.transport.iscsi;

import java.util.EnumSet;
import java.util.Set;

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

    Set<ConnectionState> next() {
        return switch (this) {
            case XPT_UP -> EnumSet.of(IN_LOGIN, FREE);
            case IN_LOGIN -> EnumSet.of(LOGGED_IN, FREE);
            case LOGGED_IN -> EnumSet.of(IN_LOGOUT, FREE);
            case IN_LOGOUT -> EnumSet.of(FREE);
            case FREE -> EnumSet.noneOf(ConnectionState.class);
        };
    }
}
