package io.blocktarget.state;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The legal transitions of one state enum, declared once (a {@code static final} beside the enum), and the one place
 * objects of that kind change state. An object keeps its own state field and moves it with
 * {@code state = MACHINE.transition(state, next, counters)}: the table check is a bit test, the counting two adds
 * ({@link StateCounters}: atomic, or plain for single-writer counters) — no allocation and no lock per transition, so
 * commands on the I/O path use it too. An illegal transition is a bug: {@link IllegalStateException} naming the kind,
 * {@code from} and {@code to}. Thread-safe (immutable); the object whose state moves is owned by one thread at a time
 * (its connection's event loop, or under its own lock) — the machine does not order concurrent moves of one object.
 *
 * @param <S> the state enum (at most 64 constants: each state's successors are one {@code long})
 */
public final class StateMachine<S extends Enum<S>> {
    private final String kind;
    private final Class<S> type;
    private final S[] states;
    private final S initial;
    /** Bit {@code t} of {@code next[f]}: {@code f -> t} is legal. */
    private final long[] next;
    /** Bit {@code s}: state {@code s} is final (where an object's life ends; no transition leaves it). */
    private final long finals;

    private StateMachine(String kind, Class<S> type, S initial, long[] next, long finals) {
        this.kind = kind;
        this.type = type;
        this.states = type.getEnumConstants();
        this.initial = initial;
        this.next = next;
        this.finals = finals;
    }

    /**
     * Starts the table of {@code type}; objects begin in {@code initial}. {@code kind} names them in the exception of
     * an illegal transition ("NVMe/TCP command", "iSCSI session").
     */
    public static <S extends Enum<S>> Builder<S> of(String kind, Class<S> type, S initial) {
        return new Builder<>(kind, type, initial);
    }

    public String kind() {
        return kind;
    }

    public S initial() {
        return initial;
    }

    /** Whether {@code from -> to} is in the table. */
    public boolean allows(S from, S to) {
        return (next[from.ordinal()] & 1L << to.ordinal()) != 0;
    }

    /** Whether {@code state} ends an object's life. */
    public boolean isFinal(S state) {
        return (finals & 1L << state.ordinal()) != 0;
    }

    /** The states no transition leaves, in declaration order. */
    public Set<S> finalStates() {
        EnumSet<S> set = EnumSet.noneOf(type);
        for (S s : states) {
            if (isFinal(s)) {
                set.add(s);
            }
        }
        return set;
    }

    /** {@code to} when {@code from -> to} is legal; an {@link IllegalStateException} naming both otherwise. */
    public S transition(S from, S to) {
        if (!allows(from, to)) {
            throw new IllegalStateException(kind + ": illegal transition " + from + " -> " + to);
        }
        return to;
    }

    /** The same for one named object: the exception names it ({@code who}'s {@code toString}, only then). */
    public S transitionOf(Object who, S from, S to) {
        if (!allows(from, to)) {
            throw new IllegalStateException(kind + " " + who + ": illegal transition " + from + " -> " + to);
        }
        return to;
    }

    /**
     * The same, moving one object from {@code from} to {@code to} in {@code counters} — the only way a count
     * changes after {@link #start}.
     */
    public S transition(S from, S to, StateCounters<S> counters) {
        S checked = transition(from, to);
        counters.move(from.ordinal(), to.ordinal());
        return checked;
    }

    /** A new object enters {@link #initial()}: counted there; returns the initial state. */
    public S start(StateCounters<S> counters) {
        counters.enter(initial.ordinal());
        return initial;
    }

    /** Counters for objects of this kind (one set per connection, server, ...), all zero; any thread may count. */
    public StateCounters<S> newCounters() {
        return new StateCounters<>(this, false);
    }

    /**
     * Counters changed by one thread only — the event loop that owns the objects (a connection's commands) — read by
     * any: no atomic instruction per transition (issue 27's hot-path budget). Moving an object from another thread
     * would lose counts; use {@link #newCounters} for objects shared between threads.
     */
    public StateCounters<S> newLoopCounters() {
        return new StateCounters<>(this, true);
    }

    S[] states() {
        return states;
    }

    /** Collects the table; {@link #build} checks it is complete. */
    public static final class Builder<S extends Enum<S>> {
        private final String kind;
        private final Class<S> type;
        private final S initial;
        private final long[] next;
        private final boolean[] declared;

        private Builder(String kind, Class<S> type, S initial) {
            this.kind = Objects.requireNonNull(kind);
            this.type = type;
            this.initial = Objects.requireNonNull(initial);
            int n = type.getEnumConstants().length;
            if (n > Long.SIZE) {
                throw new IllegalArgumentException(type.getName() + ": more than 64 states");
            }
            next = new long[n];
            declared = new boolean[n];
        }

        /** {@code from} may go to each of {@code to} (none: {@code from} is final). Each state is declared once. */
        @SafeVarargs
        public final Builder<S> allow(S from, S... to) {
            if (declared[from.ordinal()]) {
                throw new IllegalArgumentException(kind + ": " + from + " declared twice");
            }
            declared[from.ordinal()] = true;
            for (S t : to) {
                next[from.ordinal()] |= 1L << t.ordinal();
            }
            return this;
        }

        /** {@code state} is final: no transition leaves it. */
        public Builder<S> terminal(S state) {
            return allow(state);
        }

        public StateMachine<S> build() {
            S[] states = type.getEnumConstants();
            long finals = 0;
            for (S s : states) {
                if (!declared[s.ordinal()]) {
                    throw new IllegalArgumentException(kind + ": " + s + " has no transitions declared");
                }
                if (next[s.ordinal()] == 0) {
                    finals |= 1L << s.ordinal();
                }
            }
            if (finals == 0) {
                throw new IllegalArgumentException(kind + ": no final state");
            }
            return new StateMachine<>(kind, type, initial, Arrays.copyOf(next, next.length), finals);
        }
    }
}
