package io.blocktarget.block;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The commands executing on one device, both protocols together, and whether new ones may start (DESIGN §10): what
 * removal (and later TMF and resize) waits on. The hot path is one atomic increment, one volatile read and one atomic
 * decrement per command; nothing is allocated.
 *
 * <p>Ordering: {@link #enter} counts first and then reads the state; {@link #drain} sets the state first and then
 * reads the count. Whichever of a command and a drain comes second sees the other, so a command either is refused or
 * is counted before the drain can find the count at zero.
 */
public final class InFlight {
    /** Whether commands may start. */
    public enum State {
        /** Commands start. */
        OPEN,
        /** New commands are refused; the drain completes when the last one in flight finishes. */
        DRAINING
    }

    private final AtomicLong count = new AtomicLong();
    private volatile State state = State.OPEN;
    /** Replaced by each drain that starts from OPEN. */
    private volatile CompletableFuture<Void> drained = CompletableFuture.completedFuture(null);

    /** Counts a command in; false (and nothing counted) when the device is draining: refuse the command. */
    public boolean enter() {
        count.incrementAndGet();
        if (state != State.OPEN) {
            exit();
            return false;
        }
        return true;
    }

    /** Counts a command out; exactly once for every {@link #enter} that returned true. */
    public void exit() {
        long left = count.decrementAndGet();
        if (left == 0 && state == State.DRAINING) {
            CompletableFuture<Void> waiting = drained;
            if (count.get() == 0) {
                waiting.complete(null);
            }
        } else if (left < 0) {
            throw new IllegalStateException("in-flight count below zero: exit without enter");
        }
    }

    /** Commands in flight now. */
    public long count() {
        return count.get();
    }

    public State state() {
        return state;
    }

    /**
     * Refuses new commands from now on and completes (on the thread of the last command to finish, or at once) when
     * none is in flight. Idempotent: a second call returns the same future.
     */
    public synchronized CompletableFuture<Void> drain() {
        if (state == State.OPEN) {
            drained = new CompletableFuture<>();
            state = State.DRAINING;
        }
        if (count.get() == 0) {
            drained.complete(null);
        }
        return drained;
    }

    /** Lets commands start again after a drain (an aborted removal, the end of a reset). */
    public synchronized void resume() {
        state = State.OPEN;
    }

    @Override
    public String toString() {
        return "InFlight[" + state + ", " + count.get() + "]";
    }
}
