package io.blocktarget.scsi;

import java.util.concurrent.atomic.AtomicInteger;

/** Runs an action once {@code parties} arrivals have happened, on the thread of the last one. */
final class Countdown {
    private final AtomicInteger remaining;
    private final Runnable action;

    Countdown(int parties, Runnable action) {
        if (parties < 1) {
            throw new IllegalArgumentException("parties " + parties);
        }
        this.remaining = new AtomicInteger(parties);
        this.action = action;
    }

    void arrive() {
        int left = remaining.decrementAndGet();
        if (left == 0) {
            action.run();
        } else if (left < 0) {
            throw new IllegalStateException("more arrivals than parties");
        }
    }
}
