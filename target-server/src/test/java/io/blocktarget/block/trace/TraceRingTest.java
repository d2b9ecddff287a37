package io.blocktarget.block.trace;

import io.blocktarget.block.IoKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceRingTest {
    /** What a reader got: records as their tags, a drop as {@code -count}. */
    static final class Collect implements TraceRing.Sink {
        final List<Long> events = new ArrayList<>();
        final List<TraceRecord> records = new ArrayList<>();
        long dropped;

        @Override
        public void record(TraceRecord record) {
            events.add(record.tag());
            records.add(record);
        }

        @Override
        public void dropped(long count) {
            events.add(-count);
            dropped += count;
        }
    }

    static TraceRecord record(long seq, long tag) {
        return new TraceRecord(seq, 0, TraceRecord.Protocol.ISCSI, "i", "c", -1, tag, 0x2A, "WRITE(10)",
                IoKind.WRITE, tag, 1, 512, 0, 1, 10, "GOOD", true, -1, -1, -1, -1, -1, false);
    }

    static void produce(TraceRing ring, long tag) {
        ring.publish(record(ring.claim(), tag));
    }

    @Test
    void readsInOrderAndStopsAtTheEnd() {
        TraceRing ring = new TraceRing(16);
        for (long t = 100; t < 105; t++) {
            produce(ring, t);
        }
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        assertEquals(5, reader.poll(100, sink));
        assertEquals(List.of(100L, 101L, 102L, 103L, 104L), sink.events);
        assertEquals(0, reader.poll(100, sink), "nothing new");
        produce(ring, 105);
        assertEquals(1, reader.poll(100, sink));
        assertEquals(105L, sink.events.getLast());
        assertEquals(0, reader.dropped());
    }

    @Test
    void aReaderOfTheLastNStartsAtTheNthNewestRecordTheRingHolds() {
        TraceRing ring = new TraceRing(16);
        for (long t = 0; t < 40; t++) {
            produce(ring, t);
        }
        Collect last5 = new Collect();
        assertEquals(5, ring.readerOfLast(5).poll(100, last5));
        assertEquals(List.of(35L, 36L, 37L, 38L, 39L), last5.events);
        Collect last16 = new Collect();
        assertEquals(16, ring.readerOfLast(16).poll(100, last16), "the ring's capacity: all it holds");
        assertEquals(24L, last16.events.getFirst());
        Collect last17 = new Collect();
        assertEquals(16, ring.readerOfLast(17).poll(100, last17), "capacity + 1: still what it holds, no gap");
        assertEquals(0, last17.dropped);
        assertEquals(0, ring.readerOfLast(0).poll(100, new Collect()), "last 0: only what comes next");
        assertThrows(IllegalArgumentException.class, () -> ring.readerOfLast(-1));
        Collect fresh = new Collect();
        assertEquals(0, new TraceRing(16).readerOfLast(5).poll(100, fresh), "an empty ring");
    }

    @Test
    void pollHandsAtMostMax() {
        TraceRing ring = new TraceRing(16);
        for (long t = 0; t < 10; t++) {
            produce(ring, t);
        }
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        assertEquals(3, reader.poll(3, sink));
        assertEquals(7, reader.poll(100, sink));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), sink.events);
    }

    @Test
    void wrapAroundKeepsTheNewestAndAReaderFromTheStartSeesOneDropMarker() {
        TraceRing ring = new TraceRing(16);
        TraceRing.Reader early = ring.reader();   // at seq 0 before anything was recorded
        for (long t = 0; t < 40; t++) {
            produce(ring, t);
        }
        assertEquals(40, ring.recorded());
        assertEquals(24, ring.overwritten());
        Collect sink = new Collect();
        assertEquals(16, early.poll(1000, sink));
        List<Long> expected = new ArrayList<>(List.of(-24L));
        for (long t = 24; t < 40; t++) {
            expected.add(t);
        }
        assertEquals(expected, sink.events, "dropped 24, then the 16 newest in order");
        assertEquals(24, early.dropped());

        Collect fresh = new Collect();
        assertEquals(16, ring.reader().poll(1000, fresh), "a new reader starts at the oldest kept");
        assertEquals(0, fresh.dropped);
        assertEquals(24L, fresh.events.getFirst());
    }

    @Test
    void aReaderLappedBetweenPollsCountsEachGapOnce() {
        TraceRing ring = new TraceRing(16);
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        for (long t = 0; t < 4; t++) {
            produce(ring, t);
        }
        reader.poll(1000, sink);
        for (long t = 4; t < 4 + 16 + 5; t++) {   // 21 more: 5 of them lost to this reader
            produce(ring, t);
        }
        reader.poll(1000, sink);
        assertEquals(5, reader.dropped());
        assertEquals(List.of(0L, 1L, 2L, 3L, -5L), sink.events.subList(0, 5));
        assertEquals(9L, sink.events.get(5));
        assertEquals(24L, sink.events.getLast());
        assertEquals(4 + 16 + 1, sink.events.size());
    }

    @Test
    void aClaimedRecordNotYetPublishedStopsTheReaderUntilItIs() {
        TraceRing ring = new TraceRing(16);
        produce(ring, 0);
        long slow = ring.claim();   // claimed, its producer has not published yet
        produce(ring, 2);
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        assertEquals(1, reader.poll(100, sink));
        assertEquals(List.of(0L), sink.events);
        ring.publish(record(slow, 1));
        assertEquals(2, reader.poll(100, sink));
        assertEquals(List.of(0L, 1L, 2L), sink.events);
    }

    @Test
    void aLatePublishDoesNotOverwriteANewerRecordOfItsSlot() {
        TraceRing ring = new TraceRing(16);
        long late = ring.claim();            // seq 0, slot 0
        for (long t = 1; t <= 16; t++) {     // seq 16 takes slot 0 first
            produce(ring, t);
        }
        ring.publish(record(late, 0));       // too late: must not replace seq 16
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        assertEquals(16, reader.poll(100, sink));
        assertEquals(1L, sink.events.getFirst());
        assertEquals(16L, sink.events.getLast());
        assertEquals(0, sink.dropped);
    }

    @Test
    void sizesArePowersOfTwoWithinLimits() {
        assertEquals(TraceRing.MIN_CAPACITY, new TraceRing(TraceRing.MIN_CAPACITY).capacity());
        assertEquals(TraceRing.MAX_CAPACITY, new TraceRing(TraceRing.MAX_CAPACITY).capacity());
        assertThrows(IllegalArgumentException.class, () -> new TraceRing(TraceRing.MIN_CAPACITY / 2));
        assertThrows(IllegalArgumentException.class, () -> new TraceRing(TraceRing.MAX_CAPACITY * 2));
        assertThrows(IllegalArgumentException.class, () -> new TraceRing(24));
    }

    /** Several producers at once, a ring large enough: every record arrives once, in sequence order. */
    @Test
    void concurrentProducersLoseNothingWhenTheRingHoldsThemAll() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        TraceRing ring = new TraceRing(1 << 17);
        runProducers(ring, threads, perThread, new AtomicBoolean());
        TraceRing.Reader reader = ring.reader();
        Collect sink = new Collect();
        while (reader.poll(10_000, sink) > 0) {
            // drain
        }
        assertEquals((long) threads * perThread, sink.records.size());
        assertEquals(0, sink.dropped);
        long[] lastPerThread = new long[threads];
        java.util.Arrays.fill(lastPerThread, -1);
        for (int i = 0; i < sink.records.size(); i++) {
            TraceRecord r = sink.records.get(i);
            assertEquals(i, r.seq(), "sequence order without gaps");
            int thread = (int) (r.tag() / perThread);
            assertTrue(r.tag() > lastPerThread[thread], "each producer's records in its own order");
            lastPerThread[thread] = r.tag();
        }
    }

    /**
     * Producers outrun a reader on a small ring: the reader never blocks them, sees strictly increasing sequence
     * numbers, and what it got plus what it was told it lost is exactly what was recorded.
     */
    @Test
    void aReaderRacingProducersAccountsForEveryRecord() throws Exception {
        int threads = 3;
        int perThread = 30_000;
        TraceRing ring = new TraceRing(64);
        TraceRing.Reader reader = ring.reader();
        AtomicBoolean done = new AtomicBoolean();
        long[] got = {0};
        long[] last = {-1};
        TraceRing.Sink sink = new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                if (record.seq() <= last[0]) {
                    throw new AssertionError("out of order: " + record.seq() + " after " + last[0]);
                }
                last[0] = record.seq();
                got[0]++;
            }

            @Override
            public void dropped(long count) {
                last[0] += 0;   // the gap is accounted for by reader.dropped()
            }
        };
        Thread producers = Thread.ofPlatform().start(() -> {
            try {
                runProducers(ring, threads, perThread, done);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        while (!done.get()) {
            reader.poll(7, sink);
        }
        producers.join();
        while (reader.poll(1000, sink) > 0) {
            // the rest
        }
        long total = (long) threads * perThread;
        assertEquals(total, ring.recorded());
        assertEquals(total, got[0] + reader.dropped(), "delivered + dropped = recorded");
        assertEquals(total - 1, last[0], "the newest record is always read");
    }

    private static void runProducers(TraceRing ring, int threads, int perThread, AtomicBoolean done)
            throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int base = t * perThread;
            all.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    produce(ring, base + i);
                }
            }));
        }
        start.countDown();
        for (Thread thread : all) {
            thread.join();
        }
        done.set(true);
    }
}
