package io.blocktarget.time;

import io.netty.util.concurrent.EventExecutor;

/**
 * The server's one clock (DESIGN §11): monotonic time and one-shot timers for every timer of a server — iSCSI login
 * timeout, NOP-In ping and Logout deadlines (RFC 7143 §11.19, §11.9.1), NVMe keep-alive (Base §5.24), fault rule
 * delays, throttles and {@code after} triggers, trace arrival times and latencies, per-peer log windows. The server
 * creates one {@link SystemClock} and hands it to everything it builds; tests hand a manual clock instead and advance
 * it, so no test waits on real time.
 */
public interface Clock {

    /** Monotonic now, in nanoseconds ({@link System#nanoTime} scale); cheap enough for every PDU and command. */
    long nanoTime();

    /** Runs {@code task} once on {@code loop} (a connection's event loop) after {@code delayNanos}. */
    Timer schedule(EventExecutor loop, long delayNanos, Runnable task);

    /**
     * Runs {@code task} once after {@code delayNanos}: on the caller's event loop when called on one (so a delayed
     * command continues on its connection's thread, as it would have without the delay), else on the clock's own
     * timer thread.
     */
    Timer schedule(long delayNanos, Runnable task);

    /** A scheduled task; {@link #cancel} before it ran means it never runs. */
    @FunctionalInterface
    interface Timer {
        void cancel();
    }
}
