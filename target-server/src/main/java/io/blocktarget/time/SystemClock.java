package io.blocktarget.time;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link Clock}: {@link System#nanoTime}, timers on Netty's timer wheel of an event loop, and one timer
 * thread of its own for tasks scheduled off the event loops (file I/O threads, the control plane). That thread starts
 * at the first such task, ends after a minute without one, and is stopped by {@link #close} — the server that creates
 * the clock closes it, so two servers in one JVM share no thread.
 */
public final class SystemClock implements Clock, AutoCloseable {
    private static final System.Logger LOG = System.getLogger("blocktarget.server");
    private static final long IDLE_SECONDS = 60;

    private final ScheduledThreadPoolExecutor timer;

    /** @param threadName the timer thread's name: says whose timers it runs */
    public SystemClock(String threadName) {
        Objects.requireNonNull(threadName, "threadName");
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        timer.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true); // keep-alive timers are restarted (cancelled) every KATO / 2
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Timer schedule(EventExecutor loop, long delayNanos, Runnable task) {
        Objects.requireNonNull(task, "task");
        try {
            ScheduledFuture<?> f = loop.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException e) {
            return dropped(e); // the loop is shutting down with its server
        }
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop != null) {
            return schedule(loop, delayNanos, task);
        }
        Objects.requireNonNull(task, "task");
        try {
            java.util.concurrent.ScheduledFuture<?> f = timer.schedule(task, Math.max(0, delayNanos),
                    TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException e) {
            return dropped(e); // closed: the server has stopped
        }
    }

    private static Timer dropped(RejectedExecutionException e) {
        LOG.log(System.Logger.Level.DEBUG, "timer dropped, its server is stopping: " + e.getMessage());
        return () -> { };
    }

    /** Stops the timer thread; tasks not yet run never run (their server has stopped). Idempotent. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
