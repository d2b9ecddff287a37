package io.blocktarget.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** poll-window: which turns of an event loop poll (non-blocking epoll_wait) and which sleep, on a fake clock. */
class WindowedPollStrategyTest {
    private static final long WINDOW = 100_000;   // 100 µs

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger ready = new AtomicInteger();
    private final IntSupplier epollWaitNow = () -> {
        polls.incrementAndGet();
        return ready.get();
    };
    private final WindowedPollStrategy strategy = new WindowedPollStrategy(WINDOW, now::get);

    @Test
    void pollsForTheWindowAfterWorkThenSleeps() throws Exception {
        // the first turn (after start or a wake-up) counts as work: it polls
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        assertThat(polls).hasValue(1);
        now.addAndGet(WINDOW - 1);   // still inside the window: poll again
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        assertThat(polls).hasValue(2);
        now.addAndGet(1);            // the window is over with nothing found: block
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(SelectStrategy.SELECT);
        assertThat(polls).hasValue(2);
    }

    @Test
    void readyEventsRestartTheWindow() throws Exception {
        strategy.calculateStrategy(epollWaitNow, false);
        now.addAndGet(WINDOW - 10);
        ready.set(3);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(3);   // Netty processes 3 events
        ready.set(0);
        now.addAndGet(WINDOW - 1);   // measured from the events, not from the first poll
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        now.addAndGet(1);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(SelectStrategy.SELECT);
    }

    @Test
    void queuedTasksRestartTheWindowAndNeverBlock() throws Exception {
        strategy.calculateStrategy(epollWaitNow, false);
        now.addAndGet(WINDOW * 5);
        assertThat(strategy.calculateStrategy(epollWaitNow, true)).isZero();   // tasks: poll, as Netty's default does
        now.addAndGet(WINDOW - 1);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        assertThat(polls).hasValue(3);
    }

    @Test
    void theTurnAfterABlockingWaitPollsAgain() throws Exception {
        strategy.calculateStrategy(epollWaitNow, false);
        now.addAndGet(WINDOW);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(SelectStrategy.SELECT);
        now.addAndGet(5_000_000_000L);   // slept 5 s; whatever woke the loop is work
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        now.addAndGet(WINDOW - 1);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isZero();
        now.addAndGet(1);
        assertThat(strategy.calculateStrategy(epollWaitNow, false)).isEqualTo(SelectStrategy.SELECT);
    }

    @Test
    void aWindowMustBePositive() {
        assertThatThrownBy(() -> new WindowedPollStrategy(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
