package io.blocktarget.state;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many objects of one kind are in each state right now (SPDK's per-qpair {@code state_cntr[]}): one set per
 * connection for its commands, or one shared by many objects. Changed only by {@link StateMachine#start} and
 * {@link StateMachine#transition(Enum, Enum, StateCounters)} — atomic adds, lock-free, safe to share between
 * threads; read from any thread. A final state's count is cumulative (every object that ended there); every other
 * state's count is the objects currently in it, so at teardown all must be zero ({@link #stragglers}).
 */
public final class StateCounters<S extends Enum<S>> {
    private final StateMachine<S> machine;
    private final AtomicLongArray counts;

    StateCounters(StateMachine<S> machine) {
        this.machine = machine;
        this.counts = new AtomicLongArray(machine.states().length);
    }

    void enter(int state) {
        counts.getAndIncrement(state);
    }

    void move(int from, int to) {
        counts.getAndDecrement(from);
        counts.getAndIncrement(to);
    }

    public StateMachine<S> machine() {
        return machine;
    }

    public long get(S state) {
        return counts.get(state.ordinal());
    }

    /** Objects in states that are not final: still alive. */
    public long live() {
        long sum = 0;
        for (S s : machine.states()) {
            if (!machine.isFinal(s)) {
                sum += counts.get(s.ordinal());
            }
        }
        return sum;
    }

    /**
     * Every state by name with its count, in declaration order (zeros included, so the shape is fixed). Each count is
     * read atomically, the set not: under load the sum may be off by the objects moving meanwhile.
     */
    public Map<String, Long> snapshot() {
        Map<String, Long> map = new LinkedHashMap<>();
        for (S s : machine.states()) {
            map.put(s.name(), counts.get(s.ordinal()));
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * The objects not in a final state, by state ({@code "EXECUTING 2, AWAITING_H2C_DATA 1"}); empty when none —
     * what a connection's teardown checks, as SPDK's qpair teardown checks every request is back in FREE.
     */
    public String stragglers() {
        StringBuilder b = new StringBuilder();
        for (S s : machine.states()) {
            long n = counts.get(s.ordinal());
            if (!machine.isFinal(s) && n != 0) {
                b.append(b.isEmpty() ? "" : ", ").append(s.name()).append(' ').append(n);
            }
        }
        return b.toString();
    }

    /** Adds {@code counts} (a {@link #snapshot}) into {@code into}, state by state: sessions with several queues. */
    public static void sum(Map<String, Long> into, Map<String, Long> counts) {
        counts.forEach((state, n) -> into.merge(state, n, Long::sum));
    }

    @Override
    public String toString() {
        return machine.kind() + " " + snapshot();
    }
}
