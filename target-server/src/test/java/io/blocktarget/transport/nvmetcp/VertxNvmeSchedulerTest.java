package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeScheduler;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class VertxNvmeSchedulerTest {

    @Test
    void runsOnceAfterTheDelayUnlessCancelled() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            NvmeScheduler scheduler = new VertxNvmeScheduler(vertx);
            CountDownLatch fired = new CountDownLatch(1);
            AtomicInteger cancelledRuns = new AtomicInteger();
            long start = System.nanoTime();
            scheduler.schedule(50, fired::countDown);
            scheduler.schedule(20, cancelledRuns::incrementAndGet).cancel();
            scheduler.schedule(0, () -> { }).cancel();   // zero delay is legal
            assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            Thread.sleep(100);
            assertThat(cancelledRuns.get()).isZero();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
