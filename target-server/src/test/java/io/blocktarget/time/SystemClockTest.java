package io.blocktarget.time;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The production clock's timers: where they run, that cancel works, and that {@link SystemClock#close} ends them. */
class SystemClockTest {
    private final SystemClock clock = new SystemClock("test-timer");
    private final EventLoop loop = new DefaultEventLoop();

    @AfterEach
    void tearDown() throws Exception {
        clock.close();
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    }

    @Test
    void offTheEventLoopsTasksRunOnTheTimerThreadInDueOrderAndACancelledOneNever() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CompletableFuture<String> last = new CompletableFuture<>();
        long start = System.nanoTime();
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(50), () -> ran.add("50 ms"));
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(20), () -> ran.add("20 ms, cancelled")).cancel();
        clock.schedule(0, () -> ran.add("now"));
        // one timer thread runs tasks in due order: when the 60 ms task runs, the cancelled one would have run
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(60), () -> last.complete(Thread.currentThread().getName()));
        assertThat(last.get(10, TimeUnit.SECONDS)).isEqualTo("test-timer");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(60));
        assertThat(ran).containsExactly("now", "50 ms");
    }

    @Test
    void onAnEventLoopTasksStayOnThatLoop() throws Exception {
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        Thread loopThread = loop.submit(() -> {
            clock.schedule(TimeUnit.MILLISECONDS.toNanos(5), () -> ranOn.complete(Thread.currentThread()));
            return Thread.currentThread();
        }).get(10, TimeUnit.SECONDS);
        assertThat(ranOn.get(10, TimeUnit.SECONDS)).isSameAs(loopThread);
    }

    @Test
    void aNamedLoopRunsTheTaskFromAnyThreadAndCancelStopsIt() throws Exception {
        CompletableFuture<Boolean> inLoop = new CompletableFuture<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        clock.schedule(loop, TimeUnit.MILLISECONDS.toNanos(10), () -> ran.add("cancelled")).cancel();
        clock.schedule(loop, TimeUnit.MILLISECONDS.toNanos(20), () -> inLoop.complete(loop.inEventLoop()));
        assertThat(inLoop.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isEmpty();
        assertThat(clock.nanoTime()).isPositive();
    }

    @Test
    void closeEndsTheTimerThreadAndLaterTasksAreDropped() throws Exception {
        CompletableFuture<Thread> timerThread = new CompletableFuture<>();
        clock.schedule(0, () -> timerThread.complete(Thread.currentThread()));
        Thread t = timerThread.get(10, TimeUnit.SECONDS);
        clock.close();
        t.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(t.isAlive()).as("the timer thread ends with its server").isFalse();
        List<String> ran = new CopyOnWriteArrayList<>();
        clock.schedule(0, () -> ran.add("after close")).cancel(); // no exception: a stopping server drops it
        assertThat(ran).isEmpty();
    }
}
