package io.blocktarget.time;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The production clock's timers: where they run, that cancel works, and that {@link SystemClock#close} ends them. Their
 * order is the JDK's and Netty's business (and ManualClockTest's for the tests' clock): on a busy machine this thread
 * may stall between two schedule calls for longer than their delays differ.
 */
class SystemClockTest {
    private final SystemClock clock = new SystemClock("test-timer");
    private final EventLoop loop = new DefaultEventLoop();

    @AfterEach
    void tearDown() throws Exception {
        clock.close();
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    }

    @Test
    void offTheEventLoopsATaskRunsOnTheTimerThreadNoSoonerThanItsDelay() throws Exception {
        CompletableFuture<String> ran = new CompletableFuture<>();
        long start = System.nanoTime();
        clock.schedule(TimeUnit.MILLISECONDS.toNanos(50), () -> ran.complete(Thread.currentThread().getName()));
        assertThat(ran.get(10, TimeUnit.SECONDS)).isEqualTo("test-timer");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Test
    void aTimerCancelledBeforeItIsDueNeverRuns() throws Exception {
        // the timer thread is kept busy while a task due at once is scheduled and cancelled: the cancel comes
        // before the task could run however slowly this thread runs
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        clock.schedule(0, () -> {
            busy.countDown();
            await(release);
        });
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        List<String> ran = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> after = new CompletableFuture<>();
        clock.schedule(0, () -> ran.add("cancelled")).cancel();
        clock.schedule(0, () -> after.complete(null));
        release.countDown();
        after.get(10, TimeUnit.SECONDS); // one thread, due order: the cancelled one would have run by now
        assertThat(ran).isEmpty();
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
    void aNamedLoopRunsTheTaskAndCancelStopsIt() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CompletableFuture<Boolean> inLoop = new CompletableFuture<>();
        // scheduled and cancelled in one task of the loop: it cannot run a timer in between
        loop.submit(() -> clock.schedule(loop, 0, () -> ran.add("cancelled")).cancel()).get(10, TimeUnit.SECONDS);
        clock.schedule(loop, TimeUnit.MILLISECONDS.toNanos(20), () -> inLoop.complete(loop.inEventLoop()));
        assertThat(inLoop.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isEmpty();
        assertThat(clock.nanoTime()).isPositive();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
