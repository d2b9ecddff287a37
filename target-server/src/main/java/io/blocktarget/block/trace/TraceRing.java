package io.blocktarget.block.trace;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded ring of {@link TraceRecord}s that writers never wait on (DESIGN §10): lock-free for any number of producer
 * threads, and readers only read. When the ring is full the oldest record is overwritten; a reader that falls behind
 * learns how many it lost ({@link Sink#dropped}) instead of holding anyone up.
 *
 * <p>How: a producer claims the next sequence number ({@link #claim}, one atomic increment), builds its record with it
 * and {@link #publish publishes} it into slot {@code seq & mask} by compare-and-set, only over an older record (so a
 * producer that was slow between claim and publish cannot overwrite a newer record of the same slot). A record carries
 * its own sequence number, so a reader can tell, for the slot of its cursor, whether it holds the record it wants, a
 * newer one (its record was overwritten: dropped) or an older one / nothing (claimed, not yet published: it stops
 * there and tries again later).
 */
public final class TraceRing {
    /** Smallest and largest ring sizes the API accepts (records; powers of two). */
    public static final int MIN_CAPACITY = 16;
    public static final int MAX_CAPACITY = 1 << 20;

    /** What a reader is handed, in sequence order. */
    public interface Sink {
        void record(TraceRecord record);

        /** {@code count} records after the previous one delivered were overwritten before this reader got them. */
        void dropped(long count);
    }

    private final AtomicReferenceArray<TraceRecord> slots;
    private final int mask;
    private final AtomicLong next = new AtomicLong();

    /** @param capacity a power of two, {@link #MIN_CAPACITY} … {@link #MAX_CAPACITY} */
    public TraceRing(int capacity) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring size " + capacity + " is not a power of two from "
                    + MIN_CAPACITY + " to " + MAX_CAPACITY);
        }
        this.slots = new AtomicReferenceArray<>(capacity);
        this.mask = capacity - 1;
    }

    public int capacity() {
        return mask + 1;
    }

    /** The sequence number of the next record; every call returns a new one. */
    public long claim() {
        return next.getAndIncrement();
    }

    /** Puts a record claimed with {@link #claim} into its slot, unless a newer record already holds it. */
    public void publish(TraceRecord record) {
        int index = (int) (record.seq() & mask);
        TraceRecord current = slots.get(index);
        while (current == null || current.seq() < record.seq()) {
            TraceRecord witness = slots.compareAndExchange(index, current, record);
            if (witness == current) {
                return;
            }
            current = witness;
        }
        // A newer record of this slot was published first: this one is overwritten before any reader saw it.
    }

    /** Records claimed so far (= the sequence number of the next one). */
    public long recorded() {
        return next.get();
    }

    /** Records no longer in the ring because newer ones took their slots. */
    public long overwritten() {
        return Math.max(0, next.get() - capacity());
    }

    /** A reader from the oldest record still in the ring. */
    public Reader reader() {
        return new Reader(Math.max(0, next.get() - capacity()));
    }

    /** A reader from the {@code last} newest records the ring holds (all of them when it holds fewer). */
    public Reader readerOfLast(long last) {
        if (last < 0) {
            throw new IllegalArgumentException("last " + last + " < 0");
        }
        long head = next.get();
        return new Reader(Math.max(Math.max(0, head - capacity()), head - last));
    }

    /** A reader of what comes from now on. */
    public Reader readerAtEnd() {
        return new Reader(next.get());
    }

    /** One consumer's position; not thread-safe (one reader, one thread at a time). */
    public final class Reader {
        private long cursor;
        private long droppedTotal;

        private Reader(long cursor) {
            this.cursor = cursor;
        }

        /** The sequence number of the next record this reader wants. */
        public long cursor() {
            return cursor;
        }

        /** Records this reader lost so far. */
        public long dropped() {
            return droppedTotal;
        }

        /**
         * Hands at most {@code max} records to {@code sink}, in sequence order, preceded by one
         * {@link Sink#dropped} for each gap; returns the number of records handed. Stops early at a record that is
         * claimed but not yet published, and at the end of the ring.
         */
        public int poll(int max, Sink sink) {
            int delivered = 0;
            long dropped = 0;
            while (delivered < max) {
                long head = next.get();
                if (cursor >= head) {
                    break;
                }
                long oldest = head - capacity();
                if (cursor < oldest) {
                    dropped += oldest - cursor;
                    cursor = oldest;
                }
                TraceRecord record = slots.get((int) (cursor & mask));
                if (record != null && record.seq() == cursor) {
                    if (dropped > 0) {
                        emitDropped(sink, dropped);
                        dropped = 0;
                    }
                    sink.record(record);
                    cursor++;
                    delivered++;
                } else if (record != null && record.seq() > cursor) {
                    dropped++;   // overwritten between the head read and the slot read
                    cursor++;
                } else {
                    break;       // claimed, not yet published
                }
            }
            if (dropped > 0) {
                emitDropped(sink, dropped);
            }
            return delivered;
        }

        private void emitDropped(Sink sink, long count) {
            droppedTotal += count;
            sink.dropped(count);
        }
    }
}
