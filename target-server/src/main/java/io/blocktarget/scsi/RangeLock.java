package io.blocktarget.scsi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Per-logical-unit LBA range lock that makes COMPARE AND WRITE atomic (SBC-4 §5.3: no other write
 * may change the blocks between the compare and the write). Writes take their range shared (they
 * may overlap each other, as SBC-4 leaves ordering of overlapping writes to the initiator);
 * COMPARE AND WRITE takes its range exclusive. Waiters are granted in arrival order, and a request
 * never overtakes an earlier conflicting waiter, so neither kind starves.
 *
 * <p>Asynchronous: a grant runs the continuation on the thread that released the conflicting range
 * (or inline when free), never while holding the monitor.
 */
final class RangeLock {

    /** A held range; release exactly once when the I/O completes. */
    interface Lease {
        void release();
    }

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
            RangeLock.this.release(this);
        }
    }

    private final List<Request> held = new ArrayList<>();
    private final Deque<Request> waiting = new ArrayDeque<>();

    /** Shared: a write of {@code [lba, lba + count)}. */
    void acquireShared(long lba, long count, Consumer<Lease> granted) {
        acquire(new Request(lba, count, false, granted));
    }

    /** Exclusive: COMPARE AND WRITE of {@code [lba, lba + count)}. */
    void acquireExclusive(long lba, long count, Consumer<Lease> granted) {
        acquire(new Request(lba, count, true, granted));
    }

    private void acquire(Request request) {
        synchronized (this) {
            if (blocked(request, waiting.iterator(), null)) {
                waiting.addLast(request);
                return;
            }
            held.add(request);
        }
        request.granted.accept(request);
    }

    private boolean blocked(Request request, Iterator<Request> earlierWaiters, Request stopAt) {
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

    private void release(Request request) {
        List<Request> granted = new ArrayList<>();
        synchronized (this) {
            if (!held.remove(request)) {
                throw new IllegalStateException("range released twice");
            }
            for (Iterator<Request> it = waiting.iterator(); it.hasNext(); ) {
                Request w = it.next();
                if (!blocked(w, waiting.iterator(), w)) {
                    it.remove();
                    held.add(w);
                    granted.add(w);
                }
            }
        }
        granted.forEach(r -> r.granted.accept(r));
    }

    /** Ranges held now, for tests. */
    synchronized int heldCount() {
        return held.size();
    }
}
