package io.blocktarget.nvme;

/** Timers for the NVMe layer (keep-alive, AER); the server backs it with Vert.x timers. */
@FunctionalInterface
public interface NvmeScheduler {

    /** Runs {@code task} once after {@code delayMillis}, on any thread; the handle cancels it. */
    Cancellable schedule(long delayMillis, Runnable task);

    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }
}
