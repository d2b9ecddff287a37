package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.TextParameters;

/** What the login layer wants sent for one Login Request (RFC 7143 §11.13). */
sealed interface LoginStep {
    /** A successful Login Response; the login goes on. */
    record Respond(LoginFlags flags, TextParameters keys) implements LoginStep {
    }

    /** The final Login Response (T=1, NSG=3): the connection enters full feature phase. */
    record Complete(LoginFlags flags, TextParameters keys, LoginResult result) implements LoginStep {
    }

    /** A Login Response with a non-zero status; the connection closes after it (§11.13.5). */
    record Fail(LoginStatus status, String why) implements LoginStep {
    }
}
