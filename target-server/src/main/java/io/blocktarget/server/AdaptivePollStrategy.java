package io.blocktarget.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

import java.util.function.LongSupplier;

/**
 * Adaptive polling for one event loop, the default ({@code poll-window: auto}). Like {@link WindowedPollStrategy}
 * the loop keeps asking epoll without blocking for a while after its last work — but only while work has lately
 * been arriving less than {@link #THRESHOLD_NANOS} apart, and only for about twice the usual gap (at least
 * {@link #MIN_WINDOW_NANOS}, at most the threshold). A QD1 stream (a host sending its next command some tens of µs
 * after our response) then finds the loop running and does not pay the wake-up of an idle vCPU (~40 µs on the
 * benchmark machine); a loop whose connections are idle, or see a command now and then (keep-alives, NOP-In),
 * sleeps at once as with {@code poll-window: 0}, so an idle server costs no CPU. The same trade as the network
 * stack's busy polling and the block layer's hybrid polling, decided per loop from what it saw.
 *
 * <p>What it saw: the gap before each new arrival of work — from the last work to a turn that finds events again
 * after at least one empty poll, or to the turn after a blocking wait (a sleep ends only for an event, a task or a
 * timer) — averaged with weight 1/4 (EWMA). A loop starts sleeping-only (the average high), so a few short gaps in
 * a row are needed before it polls, and one long idle period sends it back to sleeping at once. Queued tasks count
 * as work but are no arrival (they are often this loop's own completions).
 *
 * <p>Each event loop has its own instance (Netty asks the factory once per loop); no field is shared between threads.
 */
final class AdaptivePollStrategy implements SelectStrategy {
    /** The shortest poll after work: below it a wake-up is cheaper than guessing. */
    static final long MIN_WINDOW_NANOS = 20_000;
    /** Arrivals closer than this on average (5,000 per second and more) make a loop poll. */
    static final long THRESHOLD_NANOS = 200_000;
    /** The starting average: a fresh loop needs about ten short gaps before it polls. */
    static final long INITIAL_AVERAGE_NANOS = 16 * THRESHOLD_NANOS;
    /** Gaps are clipped here: the average stays far from overflow and recovers within ~15 short gaps. */
    private static final long MAX_GAP_NANOS = 64 * THRESHOLD_NANOS;

    private enum Phase { WOKEN, POLLING }

    private final LongSupplier clock;
    private Phase phase = Phase.WOKEN;
    private long lastWork;
    /** True once a poll found nothing since the last work: the next events are a new arrival. */
    private boolean idleSinceWork;
    private long averageGap = INITIAL_AVERAGE_NANOS;

    AdaptivePollStrategy(LongSupplier clock) {
        this.clock = clock;
        this.lastWork = clock.getAsLong();
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        long now = clock.getAsLong();
        if (phase == Phase.WOKEN) {
            phase = Phase.POLLING;
            arrival(now);
            return selectSupplier.get();
        }
        if (hasTasks) {
            lastWork = now;
            idleSinceWork = false;
            return selectSupplier.get();
        }
        if (averageGap < THRESHOLD_NANOS && now - lastWork < windowNanos()) {
            int ready = selectSupplier.get();
            if (ready > 0) {
                if (idleSinceWork) {
                    arrival(now);
                } else {
                    lastWork = now;
                }
            } else {
                idleSinceWork = true;
            }
            return ready;
        }
        phase = Phase.WOKEN;   // the blocking wait returns only with work to do
        return SelectStrategy.SELECT;
    }

    private void arrival(long now) {
        long gap = Math.min(Math.max(now - lastWork, 0), MAX_GAP_NANOS);
        averageGap += (gap - averageGap) / 4;
        lastWork = now;
        idleSinceWork = false;
    }

    /** How long the loop polls after work now: twice the average gap, within [MIN_WINDOW, THRESHOLD]. */
    long windowNanos() {
        return Math.min(Math.max(2 * averageGap, MIN_WINDOW_NANOS), THRESHOLD_NANOS);
    }

    /** The current average gap between arrivals, for tests. */
    long averageGapNanos() {
        return averageGap;
    }

    /** Whether this loop polls after its next work, for tests. */
    boolean polling() {
        return averageGap < THRESHOLD_NANOS;
    }
}
