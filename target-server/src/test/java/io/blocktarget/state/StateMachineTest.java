package io.blocktarget.state;

import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StateMachineTest {
    enum S { NEW, WAITING, RUNNING, DONE, ABORTED }

    static final StateMachine<S> MACHINE = StateMachine.of("test command", S.class, S.NEW)
            .allow(S.NEW, S.WAITING, S.RUNNING, S.ABORTED)
            .allow(S.WAITING, S.RUNNING, S.ABORTED)
            .allow(S.RUNNING, S.WAITING, S.DONE, S.ABORTED)
            .terminal(S.DONE)
            .terminal(S.ABORTED)
            .build();

    @Test
    void everyPairIsLegalExactlyWhenTheTableSaysSo() {
        Map<S, java.util.Set<S>> table = Map.of(
                S.NEW, java.util.EnumSet.of(S.WAITING, S.RUNNING, S.ABORTED),
                S.WAITING, java.util.EnumSet.of(S.RUNNING, S.ABORTED),
                S.RUNNING, java.util.EnumSet.of(S.WAITING, S.DONE, S.ABORTED),
                S.DONE, java.util.EnumSet.noneOf(S.class),
                S.ABORTED, java.util.EnumSet.noneOf(S.class));
        for (S from : S.values()) {
            for (S to : S.values()) {
                assertThat(MACHINE.allows(from, to)).as(from + " -> " + to).isEqualTo(table.get(from).contains(to));
            }
        }
        assertThat(MACHINE.finalStates()).containsExactly(S.DONE, S.ABORTED);
        assertThat(MACHINE.isFinal(S.RUNNING)).isFalse();
    }

    @Test
    void anIllegalTransitionNamesKindFromAndToAndCountsNothing() {
        StateCounters<S> counters = MACHINE.newCounters();
        S s = MACHINE.start(counters);
        assertThatThrownBy(() -> MACHINE.transition(S.NEW, S.DONE, counters))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("test command: illegal transition NEW -> DONE");
        assertThatThrownBy(() -> MACHINE.transition(S.DONE, S.RUNNING))
                .hasMessage("test command: illegal transition DONE -> RUNNING");
        // a self-transition is legal only where the table lists it
        assertThatThrownBy(() -> MACHINE.transition(S.WAITING, S.WAITING)).isInstanceOf(IllegalStateException.class);
        assertThat(s).isEqualTo(S.NEW);
        assertThat(counters.snapshot()).containsExactly(Map.entry("NEW", 1L), Map.entry("WAITING", 0L),
                Map.entry("RUNNING", 0L), Map.entry("DONE", 0L), Map.entry("ABORTED", 0L));
    }

    @Test
    void aTableMustDeclareEveryStateOnceAndHaveAFinalOne() {
        assertThatThrownBy(() -> StateMachine.of("t", S.class, S.NEW).allow(S.NEW, S.DONE).build())
                .hasMessage("t: WAITING has no transitions declared");
        assertThatThrownBy(() -> StateMachine.of("t", S.class, S.NEW).allow(S.NEW, S.DONE).allow(S.NEW, S.RUNNING))
                .hasMessage("t: NEW declared twice");
        assertThatThrownBy(() -> StateMachine.of("t", S.class, S.NEW).allow(S.NEW, S.WAITING)
                .allow(S.WAITING, S.NEW).allow(S.RUNNING, S.NEW).allow(S.DONE, S.NEW).allow(S.ABORTED, S.NEW).build())
                .hasMessage("t: no final state");
    }

    @Test
    void stragglersListTheObjectsNotInAFinalStateByState() {
        StateCounters<S> counters = MACHINE.newCounters();
        S a = MACHINE.start(counters);
        S b = MACHINE.start(counters);
        S c = MACHINE.start(counters);
        a = MACHINE.transition(a, S.RUNNING, counters);
        b = MACHINE.transition(b, S.WAITING, counters);
        c = MACHINE.transition(c, S.ABORTED, counters);
        assertThat(counters.stragglers()).isEqualTo("WAITING 1, RUNNING 1");
        assertThat(counters.live()).isEqualTo(2);
        a = MACHINE.transition(a, S.DONE, counters);
        b = MACHINE.transition(b, S.ABORTED, counters);
        assertThat(counters.stragglers()).isEmpty();
        assertThat(counters.live()).isZero();
        assertThat(counters.get(S.ABORTED)).isEqualTo(2);
        assertThat(counters.get(S.DONE)).isEqualTo(1);
        assertThat(a).isEqualTo(S.DONE);
        assertThat(c).isEqualTo(S.ABORTED);
    }

    @Test
    void sumAddsSnapshotsStateByState() {
        StateCounters<S> one = MACHINE.newCounters();
        StateCounters<S> two = MACHINE.newCounters();
        MACHINE.start(one);
        MACHINE.transition(MACHINE.start(two), S.RUNNING, two);
        Map<String, Long> total = new java.util.LinkedHashMap<>();
        StateCounters.sum(total, one.snapshot());
        StateCounters.sum(total, two.snapshot());
        assertThat(total).containsExactly(Map.entry("NEW", 1L), Map.entry("WAITING", 0L), Map.entry("RUNNING", 1L),
                Map.entry("DONE", 0L), Map.entry("ABORTED", 0L));
    }

    /**
     * Single-writer counters (a connection's commands on its event loop): each count a reader sees is one the writer
     * stored — never torn, never below zero or above the objects alive — and once the writer is done (joined) the
     * counters equal the objects in each state exactly; a final state counts every object that ended.
     */
    @Test
    void loopCountersAreExactForTheirWriterAndSaneForReaders() throws Exception {
        int objects = 32;
        int steps = 200_000;
        StateCounters<S> counters = MACHINE.newLoopCounters();
        assertThat(counters.singleWriter()).isTrue();
        assertThat(MACHINE.newCounters().singleWriter()).isFalse();
        S[] mine = new S[objects];
        long[] ended = new long[1];
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writer = Thread.ofPlatform().start(() -> {
            SplittableRandom random = new SplittableRandom(7);
            for (int i = 0; i < objects; i++) {
                mine[i] = MACHINE.start(counters);
            }
            for (int step = 0; step < steps; step++) {
                int i = random.nextInt(objects);
                if (MACHINE.isFinal(mine[i])) {
                    ended[0]++;
                    mine[i] = MACHINE.start(counters);
                    continue;
                }
                S to = S.values()[random.nextInt(S.values().length)];
                if (MACHINE.allows(mine[i], to)) {
                    mine[i] = MACHINE.transition(mine[i], to, counters);
                }
            }
            done.set(true);
        });
        long reads = 0;
        while (!done.get() || reads == 0) {
            for (S s : S.values()) {
                long n = counters.get(s);
                assertThat(n).as("%s read %d", s, n).isGreaterThanOrEqualTo(0);
                if (!MACHINE.isFinal(s)) {
                    assertThat(n).as("%s read %d", s, n).isLessThanOrEqualTo(objects);
                }
            }
            reads++;
        }
        writer.join();
        EnumMap<S, Long> actual = new EnumMap<>(S.class);
        for (S s : mine) {
            actual.merge(s, 1L, Long::sum);
        }
        for (S s : S.values()) {
            if (!MACHINE.isFinal(s)) {
                assertThat(counters.get(s)).as(s.name()).isEqualTo(actual.getOrDefault(s, 0L));
            }
        }
        assertThat(counters.get(S.DONE) + counters.get(S.ABORTED))
                .isEqualTo(ended[0] + actual.getOrDefault(S.DONE, 0L) + actual.getOrDefault(S.ABORTED, 0L));
    }

    /**
     * Threads move their own objects along random legal paths through one shared set of counters (as commands of many
     * connections would through a server-wide set); at each barrier, with every thread parked, the counters equal the
     * objects in each state — no sleeps, the barrier is the synchronisation.
     */
    @Test
    void countersEqualTheObjectsInEachStateUnderConcurrency() throws Exception {
        int threads = 4;
        int objects = 64;
        int rounds = 50;
        int stepsPerRound = 500;
        StateCounters<S> counters = MACHINE.newCounters();
        S[][] states = new S[threads][objects];
        long[] ended = new long[threads];
        AtomicReference<String> mismatch = new AtomicReference<>();
        CyclicBarrier barrier = new CyclicBarrier(threads, () -> {
            EnumMap<S, Long> actual = new EnumMap<>(S.class);
            for (S s : S.values()) {
                actual.put(s, 0L);
            }
            long finished = 0;
            for (int t = 0; t < threads; t++) {
                for (S s : states[t]) {
                    actual.merge(s, 1L, Long::sum);
                }
                finished += ended[t];
            }
            for (S s : S.values()) {
                // a final state counts every object that ever ended there: the live ones plus those replaced
                long expected = MACHINE.isFinal(s) ? -1 : actual.get(s);
                if (expected >= 0 && counters.get(s) != expected) {
                    mismatch.compareAndSet(null, s + ": counted " + counters.get(s) + ", objects " + expected);
                }
            }
            long finals = counters.get(S.DONE) + counters.get(S.ABORTED);
            long finalNow = actual.get(S.DONE) + actual.get(S.ABORTED);
            if (finals != finished + finalNow) {
                mismatch.compareAndSet(null, "final: counted " + finals + ", ended " + (finished + finalNow));
            }
        });
        Thread[] workers = new Thread[threads];
        Throwable[] failures = new Throwable[threads];
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers[t] = Thread.ofPlatform().start(() -> {
                SplittableRandom random = new SplittableRandom(me);
                S[] mine = states[me];
                try {
                    for (int i = 0; i < objects; i++) {
                        mine[i] = MACHINE.start(counters);
                    }
                    barrier.await();
                    for (int r = 0; r < rounds; r++) {
                        for (int step = 0; step < stepsPerRound; step++) {
                            int i = random.nextInt(objects);
                            S from = mine[i];
                            if (MACHINE.isFinal(from)) {
                                ended[me]++;
                                mine[i] = MACHINE.start(counters);   // the slot takes a new object
                                continue;
                            }
                            S[] all = S.values();
                            S to = all[random.nextInt(all.length)];
                            if (MACHINE.allows(from, to)) {
                                mine[i] = MACHINE.transition(from, to, counters);
                            } else {
                                S before = from;
                                try {
                                    MACHINE.transition(from, to, counters);
                                    throw new AssertionError(before + " -> " + to + " accepted");
                                } catch (IllegalStateException expected) {
                                    // refused, and counted nothing
                                }
                            }
                        }
                        barrier.await();
                    }
                } catch (InterruptedException | BrokenBarrierException | RuntimeException | Error e) {
                    failures[me] = e;
                    barrier.reset();
                }
            });
        }
        for (Thread w : workers) {
            w.join();
        }
        for (Throwable f : failures) {
            assertThat(f).isNull();
        }
        assertThat(mismatch.get()).isNull();
        long total = 0;
        for (S s : S.values()) {
            total += counters.get(s);
        }
        long endedAll = 0;
        for (long e : ended) {
            endedAll += e;
        }
        assertThat(total).as("every object ever started is counted in exactly one state")
                .isEqualTo((long) threads * objects + endedAll);
        assertThat(counters.get(S.DONE) + counters.get(S.ABORTED)).isPositive();
    }
}
