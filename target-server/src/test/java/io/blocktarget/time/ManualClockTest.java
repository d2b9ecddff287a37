package io.blocktarget.time;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The virtual clock the unit tests' timers run on: nothing moves until the test advances it. */
class ManualClockTest {
    private final ManualClock clock = new ManualClock();
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksRunWhenTheirTimeComesInDueOrderAndTiesInTheOrderScheduled() {
        long start = clock.nanoTime();
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(20), () -> ran.add("20 ms"));
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(10), () -> ran.add("10 ms a"));
        clock.schedule(null, TimeUnit.MILLISECONDS.toNanos(10), () -> ran.add("10 ms b"));
        clock.advanceMillis(9);
        assertThat(ran).isEmpty();
        assertThat(clock.nextDueIn()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
        clock.advanceMillis(1);
        assertThat(ran).containsExactly("10 ms a", "10 ms b");
        clock.advance(1, TimeUnit.SECONDS);
        assertThat(ran).containsExactly("10 ms a", "10 ms b", "20 ms");
        assertThat(clock.nanoTime() - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1010));
        assertThat(clock.pending()).isZero();
        assertThat(clock.nextDueIn()).isEqualTo(-1);
    }

    @Test
    void aCancelledTaskNeverRunsAndATaskMayScheduleTheNextOne() {
        clock.schedule(5, () -> ran.add("cancelled")).cancel();
        clock.schedule(10, () -> {
            ran.add("first at " + clock.nanoTime());
            clock.schedule(10, () -> ran.add("second at " + clock.nanoTime()));
        });
        long t0 = clock.nanoTime();
        clock.advanceNanos(100);
        assertThat(ran).containsExactly("first at " + (t0 + 10), "second at " + (t0 + 20));
    }

    @Test
    void timeGoesForwardOnly() {
        assertThatThrownBy(() -> clock.advanceNanos(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
