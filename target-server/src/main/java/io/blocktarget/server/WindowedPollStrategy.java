package io.blocktarget.server;

import io.netty.channel.SelectStrategy;

import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Hybrid polling for one event loop ({@code poll-window} in blocktarget.yaml): after the loop last had work it keeps
 * asking epoll without blocking for up to the window, and only then sleeps in {@code epoll_wait}. While I/O flows —
 * a QD1 host sends its next command a few tens of µs after our response — the loop is running when the command
 * arrives and the wake-up of an idle vCPU (~40 µs on the benchmark machine, more than the rest of a 4 KiB round
 * trip) is not paid; an idle server sleeps as before. The same idea as the block layer's hybrid polling and the
 * network stack's busy polling, bounded so that it costs a core only while there is traffic.
 *
 * <p>Netty calls {@link #calculateStrategy} at the top of every loop turn: {@code hasTasks} when tasks are queued,
 * and {@code selectSupplier} is a non-blocking {@code epoll_wait} returning the ready count. Returning that count
 * (0 included) makes the loop process it, run due tasks and ask again — a poll loop; {@link SelectStrategy#SELECT}
 * makes it block. A blocking wait ends only for an event, a task or a timer, so the turn after it counts as work.
 * Each event loop has its own instance (Netty asks the factory once per loop); no field is shared between threads.
 */
final class WindowedPollStrategy implements SelectStrategy {
    /** Where the loop is: just back from a blocking wait, or polling with the time of its last work. */
    private enum Phase { WOKEN, POLLING }

    private final long windowNanos;
    private final LongSupplier clock;
    private Phase phase = Phase.WOKEN;
    private long lastWork;

    WindowedPollStrategy(long windowNanos, LongSupplier clock) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos <= 0");
        }
        this.windowNanos = windowNanos;
        this.clock = clock;
    }

    WindowedPollStrategy(long windowNanos) {
        this(windowNanos, System::nanoTime);
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        long now = clock.getAsLong();
        if (hasTasks || phase == Phase.WOKEN) {
            phase = Phase.POLLING;
            lastWork = now;
            return selectSupplier.get();
        }
        if (now - lastWork < windowNanos) {
            int ready = selectSupplier.get();
            if (ready > 0) {
                lastWork = now;
            }
            return ready;
        }
        phase = Phase.WOKEN;   // the blocking wait returns only with work to do
        return SelectStrategy.SELECT;
    }
}
