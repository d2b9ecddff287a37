package io.blocktarget.transport.iscsi;

import java.util.EnumSet;
import java.util.Set;

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

    Set<SessionState> next() {
        return switch (this) {
            case ACTIVE -> EnumSet.of(LOGGED_IN, FREE);
            case LOGGED_IN -> EnumSet.of(FAILED, FREE);
            case FAILED -> EnumSet.of(FREE);
            case FREE -> EnumSet.noneOf(SessionState.class);
        };
    }
}
