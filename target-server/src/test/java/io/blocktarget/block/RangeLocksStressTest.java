package io.blocktarget.block;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stress test in the manner of jcstress for {@link RangeLocks}: threads take shared (write) and exclusive
 * (COMPARE AND WRITE) ranges over a small LBA space at once, through the fast path, the tracked path and the
 * switch between them. Each holder marks its blocks in a per-block occupancy table while it holds them, so the
 * invariant is checked on every grant: an exclusive range is never held together with any other range over the
 * same block (shared holders add 1, an exclusive one needs 0 and sets -1). Every request must be granted within
 * the bound (a lost wake-up fails it), and at the end nothing is held. Bounded: a fixed number of operations per
 * thread, not a time.
 */
@Tag("stress")
class RangeLocksStressTest {
    private static final int BLOCKS = 64;
    private static final int THREADS = 4;
    private static final int OPERATIONS = 20_000;

    @Test
    void exclusiveRangesNeverOverlapAnyOtherHolderAndEveryRequestIsGranted() throws Exception {
        RangeLocks locks = new RangeLocks();
        AtomicIntegerArray occupancy = new AtomicIntegerArray(BLOCKS);
        AtomicReference<String> violation = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = 0xBEEF + t;
                workers.add(pool.submit(() -> {
                    start.await();
                    Random random = new Random(seed);
                    for (int i = 0; i < OPERATIONS && violation.get() == null; i++) {
                        int lba = random.nextInt(BLOCKS);
                        int count = 1 + random.nextInt(Math.min(8, BLOCKS - lba));
                        boolean exclusive = random.nextInt(8) == 0;
                        CompletableFuture<RangeLocks.Lease> granted = new CompletableFuture<>();
                        if (exclusive) {
                            locks.acquireExclusive(lba, count, granted::complete);
                        } else {
                            locks.acquireShared(lba, count, granted::complete);
                        }
                        RangeLocks.Lease lease = granted.get(20, TimeUnit.SECONDS);
                        occupy(occupancy, lba, count, exclusive, violation);
                        if (random.nextInt(4) == 0) {
                            Thread.onSpinWait(); // hold a little longer now and then
                        }
                        vacate(occupancy, lba, count, exclusive);
                        lease.release();
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violation.get()).as("an exclusive range overlapped another holder").isNull();
        assertThat(locks.heldCount()).isZero();
        for (int b = 0; b < BLOCKS; b++) {
            assertThat(occupancy.get(b)).isZero();
        }
        assertThat(locks.fastMode()).as("back on the fast path once no exclusive request exists").isTrue();
    }

    private static void occupy(AtomicIntegerArray occupancy, int lba, int count, boolean exclusive,
                               AtomicReference<String> violation) {
        for (int b = lba; b < lba + count; b++) {
            if (exclusive) {
                int was = occupancy.getAndSet(b, -1);
                if (was != 0) {
                    violation.compareAndSet(null, "exclusive [" + lba + "+" + count + ") found block " + b
                            + " held (" + was + ")");
                }
            } else {
                int was = occupancy.getAndIncrement(b);
                if (was < 0) {
                    violation.compareAndSet(null, "shared [" + lba + "+" + count + ") found block " + b
                            + " held exclusively");
                }
            }
        }
    }

    private static void vacate(AtomicIntegerArray occupancy, int lba, int count, boolean exclusive) {
        for (int b = lba; b < lba + count; b++) {
            if (exclusive) {
                occupancy.set(b, 0);
            } else {
                occupancy.decrementAndGet(b);
            }
        }
    }
}
