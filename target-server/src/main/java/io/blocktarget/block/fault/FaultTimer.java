package io.blocktarget.block.fault;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs a delayed command later on the thread that asked, never by sleeping on it: on a Netty event loop (where every
 * command arrives) the loop's own timer, so the command continues on its connection's thread as it would have
 * without the delay; elsewhere (unit tests, file I/O threads) a shared daemon timer.
 */
public final class FaultTimer {
    private static final class Fallback {
        static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "blocktarget-fault-timer");
            t.setDaemon(true);
            return t;
        });
    }

    private FaultTimer() {
    }

    public static void schedule(Runnable task, long nanos) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop != null) {
            loop.schedule(task, nanos, TimeUnit.NANOSECONDS);
        } else {
            Fallback.TIMER.schedule(task, nanos, TimeUnit.NANOSECONDS);
        }
    }
}
