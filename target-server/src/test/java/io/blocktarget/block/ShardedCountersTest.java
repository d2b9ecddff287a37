package io.blocktarget.block;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Per-thread shards: exact sums across threads that end, and ids reused without stale counts or growing tables. */
class ShardedCountersTest {

    @Test
    void sumsEveryThreadsAddsExactlyOnceTheyEndedAndFoldedOnlyOnce() throws Exception {
        ShardedCounters counters = new ShardedCounters(3);
        int threads = 5;
        int each = 20_000;
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            writers.add(Thread.ofPlatform().start(() -> {
                long[] local = counters.local();
                for (int i = 0; i < each; i++) {
                    ShardedCounters.add(local, 0, 1);
                    ShardedCounters.add(local, 2, 3);
                }
            }));
        }
        long last = 0;
        for (Thread w : writers) {
            while (w.isAlive()) {
                long now = counters.sum(0);
                assertThat(now).isBetween(last, (long) threads * each);   // never torn, never going back
                last = now;
            }
            w.join();
        }
        ShardedCounters.add(counters.local(), 1, 7);   // this thread's own shard, still alive
        for (int read = 0; read < 2; read++) {   // the second read must not fold the ended shards again
            assertThat(counters.sum(0)).isEqualTo((long) threads * each);
            assertThat(counters.sum(1)).isEqualTo(7);
            assertThat(counters.sum(2)).isEqualTo(3L * threads * each);
        }
    }

    @Test
    void anIdIsReusedOnceItsSetIsUnreachableAndTheNewSetStartsFromZeroOnAThreadThatUsedTheOld() {
        int id = recordAndDrop();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (ShardedCounters.idInUse(id)) {   // freed once the set is collected (and the next look notices)
            assertThat(System.nanoTime()).as("set collected and its id freed").isLessThan(deadline);
            System.gc();
            Thread.onSpinWait();
        }
        // other tests may hold or free lower ids meanwhile: take sets until one gets the freed id
        List<ShardedCounters> taken = new ArrayList<>();
        ShardedCounters reuser = null;
        for (int i = 0; i < 100_000 && reuser == null; i++) {
            ShardedCounters next = new ShardedCounters(2);
            taken.add(next);
            if (next.id() == id) {
                reuser = next;
            }
        }
        assertThat(reuser).as("a new set reused id %d", id).isNotNull();
        // this thread's table still holds the old set's shard at that id: it must not count for the new one
        assertThat(reuser.sum(0)).isZero();
        ShardedCounters.add(reuser.local(), 0, 1);
        assertThat(reuser.sum(0)).isEqualTo(1);
        assertThat(reuser.sum(1)).isZero();
        assertThat(taken).isNotEmpty();
    }

    private static int recordAndDrop() {
        ShardedCounters old = new ShardedCounters(2);
        ShardedCounters.add(old.local(), 0, 41);
        ShardedCounters.add(old.local(), 1, 5);
        assertThat(old.sum(0)).isEqualTo(41);
        return old.id();
    }

    @Test
    void aSetHasAtLeastOneCounter() {
        assertThatThrownBy(() -> new ShardedCounters(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new ShardedCounters(1).length()).isEqualTo(1);
    }
}
