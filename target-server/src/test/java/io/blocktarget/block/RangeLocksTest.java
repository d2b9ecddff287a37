package io.blocktarget.block;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shared LBA range lock: its fast path, the switch to tracked mode, fairness (SBC-4 §5.3 atomicity). */
class RangeLocksTest {
    private final RangeLocks lock = new RangeLocks();
    private final List<String> granted = new ArrayList<>();
    private final List<RangeLocks.Lease> leases = new ArrayList<>();

    private void shared(String name, long lba, long count) {
        lock.acquireShared(lba, count, l -> {
            granted.add(name);
            leases.add(l);
        });
    }

    private void exclusive(String name, long lba, long count) {
        lock.acquireExclusive(lba, count, l -> {
            granted.add(name);
            leases.add(l);
        });
    }

    @Test
    void writesUseTheFastPathWhileNoExclusiveRequestExists() {
        shared("w1", 0, 10);
        shared("w2", 0, 10);
        assertThat(lock.fastMode()).isTrue();
        assertThat(leases.get(0)).isSameAs(leases.get(1));              // one shared lease object: no allocation
        assertThat(lock.heldCount()).isEqualTo(2);
        assertThat(lock.tryAcquireFast()).isTrue();
        lock.releaseFast();
        leases.get(0).release();
        leases.get(1).release();
        assertThat(lock.heldCount()).isZero();
        assertThatThrownBy(lock::releaseFast).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anExclusiveRequestWaitsForEveryFastHolderThenTheLockReturnsToTheFastPath() {
        shared("w1", 100, 1);                                          // disjoint, but its range is unknown
        exclusive("caw", 0, 1);
        assertThat(granted).containsExactly("w1");
        assertThat(lock.fastMode()).isFalse();
        assertThat(lock.tryAcquireFast()).isFalse();                   // tracked now
        shared("w2", 0, 1);                                            // overlaps the waiting CAW: behind it
        shared("w3", 50, 1);                                           // disjoint and tracked: at once
        assertThat(granted).containsExactly("w1", "w3");
        leases.get(0).release();                                       // the last fast holder leaves
        assertThat(granted).containsExactly("w1", "w3", "caw");
        leases.get(2).release();
        assertThat(granted).containsExactly("w1", "w3", "caw", "w2");
        assertThat(lock.fastMode()).isTrue();
        leases.get(1).release();
        leases.get(3).release();
        assertThat(lock.heldCount()).isZero();
        assertThatThrownBy(() -> leases.get(3).release()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void exclusiveRangesExcludeEachOtherOnlyWhereTheyOverlap() {
        exclusive("a", 0, 8);
        exclusive("b", 7, 2);
        exclusive("c", 8, 8);                                          // overlaps the earlier waiter b: behind it
        exclusive("d", 20, 1);
        assertThat(granted).containsExactly("a", "d");
        leases.get(0).release();
        assertThat(granted).containsExactly("a", "d", "b");
        leases.get(2).release();
        assertThat(granted).containsExactly("a", "d", "b", "c");
        leases.get(1).release();
        leases.get(3).release();
        assertThat(lock.fastMode()).isTrue();
    }

    /**
     * Threads hammer overlapping ranges with shared and exclusive requests; an exclusive holder must never see a
     * shared holder of an overlapping range (counted per block). Fails when the fast path ignores the mode switch.
     */
    @Test
    @Tag("stress")
    void concurrentWritersNeverOverlapAnExclusiveHolder() throws Exception {
        int blocks = 8;
        AtomicInteger[] shared = new AtomicInteger[blocks];
        AtomicInteger[] exclusive = new AtomicInteger[blocks];
        for (int i = 0; i < blocks; i++) {
            shared[i] = new AtomicInteger();
            exclusive[i] = new AtomicInteger();
        }
        AtomicReference<String> violation = new AtomicReference<>();
        ConcurrentLinkedQueue<Runnable> pending = new ConcurrentLinkedQueue<>();
        int threads = 4;
        int rounds = 3_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                java.util.Random random = new java.util.Random(seed);
                for (int r = 0; r < rounds; r++) {
                    int lba = random.nextInt(blocks);
                    boolean ex = random.nextInt(8) == 0;
                    if (ex) {
                        lock.acquireExclusive(lba, 1, lease -> {
                            if (exclusive[lba].incrementAndGet() != 1 || shared[lba].get() != 0) {
                                violation.compareAndSet(null, "exclusive overlap at " + lba);
                            }
                            pending.add(() -> {
                                exclusive[lba].decrementAndGet();
                                lease.release();
                            });
                        });
                    } else {
                        lock.acquireShared(lba, 1, lease -> {
                            shared[lba].incrementAndGet();
                            if (exclusive[lba].get() != 0) {
                                violation.compareAndSet(null, "shared inside exclusive at " + lba);
                            }
                            pending.add(() -> {
                                shared[lba].decrementAndGet();
                                lease.release();
                            });
                        });
                    }
                    // complete some I/O, possibly another thread's (releases cross threads as completions do)
                    for (int i = 0; i < 2; i++) {
                        Runnable done = pending.poll();
                        if (done != null) {
                            done.run();
                        }
                    }
                }
            });
            workers.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : workers) {
            th.join();
        }
        for (Runnable done; (done = pending.poll()) != null; ) {
            done.run();
        }
        assertThat(violation.get()).isNull();
        assertThat(lock.heldCount()).isZero();
        assertThat(lock.fastMode()).isTrue();
    }
}
