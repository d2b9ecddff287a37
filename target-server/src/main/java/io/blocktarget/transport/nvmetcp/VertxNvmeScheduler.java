package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeScheduler;
import io.vertx.core.Vertx;

import java.util.Objects;

/** {@link NvmeScheduler} on Vert.x timers (keep-alive, AER): the task runs on a Vert.x event loop. */
public final class VertxNvmeScheduler implements NvmeScheduler {
    private final Vertx vertx;

    public VertxNvmeScheduler(Vertx vertx) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
    }

    @Override
    public Cancellable schedule(long delayMillis, Runnable task) {
        Objects.requireNonNull(task, "task");
        // Vert.x timers need a delay of at least 1 ms
        long id = vertx.setTimer(Math.max(1, delayMillis), t -> task.run());
        return () -> vertx.cancelTimer(id);
    }
}
