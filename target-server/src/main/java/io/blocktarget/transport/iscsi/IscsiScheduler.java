package io.blocktarget.transport.iscsi;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The clock and timers of iSCSI connections — login timeout, NOP-In ping and its answer's deadline (RFC 7143 §11.19),
 * the Logout deadline after an Async Message (§11.9.1). The iSCSI twin of {@code nvme.NvmeScheduler} (the
 * transports share no package but {@code block}): injected through {@link IscsiTransport}, so tests drive virtual
 * time instead of sleeping. Production runs the timers on the connection's event loop and reads
 * {@link System#nanoTime()}.
 */
interface IscsiScheduler {

    /** Monotonic now, in nanoseconds; read on every received PDU (idle detection), so it must be cheap. */
    long nanoTime();

    /** Runs {@code task} once on {@code loop} (the connection's event loop) after {@code delayNanos}. */
    Cancellable schedule(EventExecutor loop, long delayNanos, Runnable task);

    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }

    /** Netty's timer wheel of the connection's own event loop. */
    IscsiScheduler EVENT_LOOP = new IscsiScheduler() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Cancellable schedule(EventExecutor loop, long delayNanos, Runnable task) {
            Objects.requireNonNull(task, "task");
            ScheduledFuture<?> f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        }
    };
}
