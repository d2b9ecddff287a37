package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateMachine;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/** The one checked, logged transition of the connection, login and session (DESIGN §7): their tables' check. */
final class States {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi.state");

    private States() {
    }

    /** Returns {@code to} when {@code machine} allows it; otherwise an {@link IllegalStateException} (a bug). */
    static <S extends Enum<S>> S transition(String who, StateMachine<S> machine, S from, S to) {
        machine.transitionOf(who, from, to);
        LOG.log(Level.TRACE, () -> who + ": " + from.getDeclaringClass().getSimpleName() + " " + from + " -> " + to);
        return to;
    }
}
