package io.blocktarget.block;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The LBA range lock of one device, shared by every command set that writes it (DESIGN §10). Writes of
 * either protocol (SCSI WRITE / WRITE SAME / UNMAP, NVMe Write / Write Zeroes / Dataset Management deallocate)
 * take their range <em>shared</em>: they may overlap each other, since SBC-4 and the NVM Command Set leave the
 * order of overlapping writes to the host. Commands that must be atomic against every other write of the same
 * blocks (SBC-4 §5.3 COMPARE AND WRITE; NVMe fused Compare and Write, NVM Command Set §3.2.1; atomic writes
 * later) take it <em>exclusive</em>.
 *
 * <p>Two modes, so that the hot path pays nothing for COMPARE AND WRITE while none runs:
 * <ul>
 * <li>{@link Mode#FAST}: no exclusive request is held or waiting. A shared acquire is one atomic increment of
 *     {@link #fastHolders} and one volatile read of {@link #mode}; the lease is one shared object (no allocation,
 *     no monitor), and its release one atomic decrement.</li>
 * <li>{@link Mode#TRACKED}: an exclusive request exists. Shared requests are then kept with their ranges under
 *     the monitor, granted in arrival order, and never overtake an earlier conflicting waiter, so neither kind
 *     starves. An exclusive request is granted only when the untracked fast-path holders have drained to zero
 *     (their ranges are unknown) and no tracked range conflicts.</li>
 * </ul>
 * The switch is a Dekker handshake: a fast acquirer increments then reads the mode, an exclusive acquirer sets
 * the mode then reads the count (both sequentially consistent), so at least one of them sees the other; a fast
 * acquirer that sees TRACKED backs out and queues as a tracked request.
 *
 * <p>Asynchronous: a grant runs the continuation on the thread that released the conflicting range (or inline
 * when free), never while holding the monitor. Nothing blocks a thread.
 */
public final class RangeLocks {

    /** A held range; release exactly once when the I/O completes. */
    public interface Lease {
        void release();
    }

    private enum Mode { FAST, TRACKED }

    private final class Request implements Lease {
        final long first;
        final long end;
        final boolean exclusive;
        final Consumer<Lease> granted;

        Request(long first, long count, boolean exclusive, Consumer<Lease> granted) {
            this.first = first;
            this.end = first + Math.max(count, 1);
            this.exclusive = exclusive;
            this.granted = granted;
        }

        boolean conflicts(Request other) {
            return (exclusive || other.exclusive) && first < other.end && other.first < end;
        }

        @Override
        public void release() {
            releaseTracked(this);
        }
    }

    /** The lease of every fast-path holder: they are only counted. */
    private final Lease fastLease = this::releaseFast;
    private final AtomicLong fastHolders = new AtomicLong();
    private volatile Mode mode = Mode.FAST;
    private final List<Request> held = new ArrayList<>();
    private final Deque<Request> waiting = new ArrayDeque<>();
    private int exclusiveRequests;

    /**
     * Shared without waiting, on the fast path: true when taken (no exclusive request exists; release it with
     * {@link #releaseFast}), false when nothing is held — call {@link #acquireShared} then. For callers that
     * keep one lease object of their own so that a write allocates nothing.
     */
    public boolean tryAcquireFast() {
        if (mode == Mode.FAST) {
            fastHolders.incrementAndGet();
            if (mode == Mode.FAST) {
                return true;
            }
            releaseFast();
        }
        return false;
    }

    /** Shared: a write of {@code [lba, lba + count)} (count 0 counts as one block). */
    public void acquireShared(long lba, long count, Consumer<Lease> granted) {
        if (tryAcquireFast()) {
            granted.accept(fastLease);
            return;
        }
        acquireTracked(new Request(lba, count, false, granted));
    }

    /** Exclusive: COMPARE AND WRITE (or a fused compare and write) of {@code [lba, lba + count)}. */
    public void acquireExclusive(long lba, long count, Consumer<Lease> granted) {
        acquireTracked(new Request(lba, count, true, granted));
    }

    private void acquireTracked(Request request) {
        synchronized (this) {
            if (request.exclusive) {
                exclusiveRequests++;
                mode = Mode.TRACKED;
            }
            if (blocked(request, waiting.iterator(), null)) {
                waiting.addLast(request);
                return;
            }
            held.add(request);
        }
        request.granted.accept(request);
    }

    private boolean blocked(Request request, Iterator<Request> earlierWaiters, Request stopAt) {
        if (request.exclusive && fastHolders.get() > 0) {
            return true;
        }
        for (Request h : held) {
            if (h.conflicts(request)) {
                return true;
            }
        }
        while (earlierWaiters.hasNext()) {
            Request w = earlierWaiters.next();
            if (w == stopAt) {
                break;
            }
            if (w.conflicts(request)) {
                return true;
            }
        }
        return false;
    }

    /** Releases one {@link #tryAcquireFast} grant. */
    public void releaseFast() {
        long left = fastHolders.decrementAndGet();
        if (left < 0) {
            throw new IllegalStateException("shared range released more often than acquired");
        }
        if (left == 0 && mode == Mode.TRACKED) {
            grantWaiters(null);
        }
    }

    private void releaseTracked(Request request) {
        grantWaiters(request);
    }

    private void grantWaiters(Request released) {
        List<Request> granted = new ArrayList<>();
        synchronized (this) {
            if (released != null) {
                if (!held.remove(released)) {
                    throw new IllegalStateException("range released twice");
                }
                if (released.exclusive) {
                    exclusiveRequests--;
                }
            }
            for (Iterator<Request> it = waiting.iterator(); it.hasNext(); ) {
                Request w = it.next();
                if (!blocked(w, waiting.iterator(), w)) {
                    it.remove();
                    held.add(w);
                    granted.add(w);
                }
            }
            if (exclusiveRequests == 0) {
                mode = Mode.FAST; // tracked shared holders still release through their own Request
            }
        }
        granted.forEach(r -> r.granted.accept(r));
    }

    /** Ranges held now (fast-path holders plus tracked ones), for tests and drain checks. */
    public synchronized long heldCount() {
        return fastHolders.get() + held.size();
    }

    /** Whether the last acquire would have been served by the fast path: for tests. */
    boolean fastMode() {
        return mode == Mode.FAST;
    }
}
