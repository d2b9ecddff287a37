package io.blocktarget.transport.iscsi;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;

/** The one checked, logged transition shared by the connection, login and session state enums (DESIGN §7). */
final class States {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi.state");

    private States() {
    }

    /** Returns {@code to} when {@code allowed} contains it; otherwise an {@link IllegalStateException} (a bug). */
    static <S extends Enum<S>> S transition(String who, S from, S to, Set<S> allowed) {
        if (!allowed.contains(to)) {
            throw new IllegalStateException(who + ": illegal transition " + from + " -> " + to);
        }
        LOG.log(Level.TRACE, () -> who + ": " + from.getDeclaringClass().getSimpleName() + " " + from + " -> " + to);
        return to;
    }
}
