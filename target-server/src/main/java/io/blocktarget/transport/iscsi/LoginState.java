package io.blocktarget.transport.iscsi;

import java.util.EnumSet;
import java.util.Set;

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

    Set<LoginState> next() {
        return switch (this) {
            case SECURITY -> EnumSet.of(CHAP_AWAIT_ALGORITHM, AUTHENTICATED, OPERATIONAL, COMPLETE, FAILED);
            case CHAP_AWAIT_ALGORITHM -> EnumSet.of(CHAP_AWAIT_RESPONSE, FAILED);
            case CHAP_AWAIT_RESPONSE -> EnumSet.of(AUTHENTICATED, OPERATIONAL, COMPLETE, FAILED);
            case AUTHENTICATED -> EnumSet.of(OPERATIONAL, COMPLETE, FAILED);
            case OPERATIONAL -> EnumSet.of(COMPLETE, FAILED);
            case COMPLETE, FAILED -> EnumSet.noneOf(LoginState.class);
        };
    }
}
