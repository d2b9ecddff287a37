package io.blocktarget.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** poll-window: auto — arrival patterns on a fake clock, and which turns poll and which sleep. */
class AdaptivePollStrategyTest {
    private static final long US = 1_000;

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger ready = new AtomicInteger();
    private final IntSupplier epollWaitNow = () -> {
        polls.incrementAndGet();
        return ready.get();
    };
    private final AdaptivePollStrategy strategy = new AdaptivePollStrategy(now::get);

    /** One command arriving {@code gap} after the last work: the turns of the loop until it would block. */
    private int arrive(long gap) throws Exception {
        now.addAndGet(gap);
        ready.set(1);
        int first = strategy.calculateStrategy(epollWaitNow, false);
        ready.set(0);
        return first;
    }

    /** After work: poll turns (1 µs apart) until the strategy says SELECT; returns how many polls it made. */
    private int pollUntilSleep() throws Exception {
        int before = polls.get();
        for (int turn = 0; turn < 10_000; turn++) {
            if (strategy.calculateStrategy(epollWaitNow, false) == SelectStrategy.SELECT) {
                return polls.get() - before;
            }
            now.addAndGet(US);
        }
        throw new AssertionError("never slept");
    }

    @Test
    void aFreshLoopSleepsAtOnce() throws Exception {
        assertThat(arrive(0)).isEqualTo(1);
        assertThat(pollUntilSleep()).isZero();
        assertThat(strategy.polling()).isFalse();
    }

    @Test
    void aQd1StreamTurnsPollingOnAfterAFewShortGaps() throws Exception {
        // a QD1 host 60 µs apart while the loop sleeps (its gap includes the wake-up)
        int sleepingArrivals = 0;
        while (true) {
            assertThat(arrive(60 * US)).isEqualTo(1);
            sleepingArrivals++;
            if (strategy.polling()) {
                break;
            }
            assertThat(pollUntilSleep()).isZero();
        }
        assertThat(sleepingArrivals).isBetween(8, 14);
        assertThat(pollUntilSleep()).isPositive();   // the last short gap made it poll after this command
        // now polling: the next command, 30 µs after our response, finds the loop polling — no sleep in between
        assertThat(arrive(0)).isEqualTo(1);
        int idlePolls = 0;
        for (; idlePolls < 30; idlePolls++) {
            now.addAndGet(US);
            assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        }
        now.addAndGet(US);
        ready.set(1);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(1);   // caught while polling
        ready.set(0);
        assertThat(strategy.averageGapNanos()).isLessThan(AdaptivePollStrategy.THRESHOLD_NANOS);
    }

    @Test
    void theWindowIsTwiceTheAverageGapWithinItsBounds() throws Exception {
        while (!strategy.polling()) {
            arrive(60 * US);
            pollUntilSleep();
        }
        arrive(0);
        long window = strategy.windowNanos();
        assertThat(window).isEqualTo(Math.min(Math.max(2 * strategy.averageGapNanos(),
                AdaptivePollStrategy.MIN_WINDOW_NANOS), AdaptivePollStrategy.THRESHOLD_NANOS));
        int polled = pollUntilSleep();   // one poll per µs until the window is over
        assertThat((long) polled).isBetween(window / US - 1, window / US + 1);
        for (int i = 0; i < 40; i++) {   // arrivals 2 µs apart, each after an empty poll: the window shrinks
            now.addAndGet(US);
            assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
            assertThat(arrive(US)).isEqualTo(1);
        }
        assertThat(strategy.windowNanos()).isEqualTo(AdaptivePollStrategy.MIN_WINDOW_NANOS);
    }

    @Test
    void oneLongIdlePeriodSendsItBackToSleepingAtOnce() throws Exception {
        while (!strategy.polling()) {
            arrive(60 * US);
            pollUntilSleep();
        }
        arrive(0);
        pollUntilSleep();
        arrive(1_000_000 * US);   // a keep-alive a second later
        assertThat(strategy.polling()).isFalse();
        assertThat(pollUntilSleep()).isZero();
    }

    @Test
    void keepAlivesNeverMakeItPoll() throws Exception {
        for (int i = 0; i < 1_000; i++) {
            arrive(5_000_000 * US);
            assertThat(pollUntilSleep()).isZero();
        }
        assertThat(strategy.averageGapNanos()).isGreaterThan(AdaptivePollStrategy.THRESHOLD_NANOS);
    }

    @Test
    void queuedTasksNeverBlockButAreNoArrival() throws Exception {
        arrive(0);
        long average = strategy.averageGapNanos();
        now.addAndGet(10 * US);
        assertThat(strategy.calculateStrategy(epollWaitNow, true)).isZero();
        assertThat(strategy.averageGapNanos()).isEqualTo(average);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(SelectStrategy.SELECT);
    }
}
