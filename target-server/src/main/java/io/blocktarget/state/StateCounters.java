package io.blocktarget.state;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How many objects of one kind are in each state right now (SPDK's per-qpair {@code state_cntr[]}): one set per
 * connection for its commands, or one shared by many objects. Changed only by {@link StateMachine#start} and
 * {@link StateMachine#transition(Enum, Enum, StateCounters)}. Shared counters ({@link StateMachine#newCounters})
 * count with atomic adds, lock-free, safe to share between threads; single-writer ones
 * ({@link StateMachine#newLoopCounters}), for objects moved only on their connection's event loop (the hot path: a
 * command changes state 3-4 times), with opaque stores — a plain {@code mov} on x86, no lock prefix, no fence —
 * that other threads read untorn, at most a moment late (SPDK's {@code state_cntr[]} is a plain array too). Read
 * from any thread. A final state's count is cumulative (every object that ended there); every other
 * state's count is the objects currently in it, so at teardown all must be zero ({@link #stragglers}).
 */
public final class StateCounters<S extends Enum<S>> {
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

    private final StateMachine<S> machine;
    private final long[] counts;
    /** Only one thread changes the counts (opaque read-modify-write instead of atomic adds). */
    private final boolean singleWriter;

    StateCounters(StateMachine<S> machine, boolean singleWriter) {
        this.machine = machine;
        this.counts = new long[machine.states().length];
        this.singleWriter = singleWriter;
    }

    void enter(int state) {
        add(state, 1);
    }

    void move(int from, int to) {
        add(from, -1);
        add(to, 1);
    }

    private void add(int state, long delta) {
        if (singleWriter) {
            COUNT.setOpaque(counts, state, (long) COUNT.getOpaque(counts, state) + delta);
        } else {
            COUNT.getAndAdd(counts, state, delta);
        }
    }

    private long count(int state) {
        return (long) COUNT.getOpaque(counts, state);
    }

    /** Whether only one thread changes these counts ({@link StateMachine#newLoopCounters}). */
    public boolean singleWriter() {
        return singleWriter;
    }

    public StateMachine<S> machine() {
        return machine;
    }

    public long get(S state) {
        return count(state.ordinal());
    }

    /** Objects in states that are not final: still alive. */
    public long live() {
        long sum = 0;
        for (S s : machine.states()) {
            if (!machine.isFinal(s)) {
                sum += count(s.ordinal());
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
            map.put(s.name(), count(s.ordinal()));
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
            long n = count(s.ordinal());
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
