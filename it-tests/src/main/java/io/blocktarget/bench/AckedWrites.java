package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * With {@code --verify}: which I/O units of the range (the I/O-sized, I/O-aligned slots {@link IoPattern} picks
 * from) had a write acknowledged — completed with GOOD / success — in this run, one bit each, shared by every
 * connection of the process; and how read data is judged against it. A write acknowledged before a read was sent
 * must read back as the pattern. Anything else may legitimately read as the pattern (the same bytes from an earlier
 * run) or as zeros (never written, or the write still under way), so zeros there are counted apart, not as errors.
 */
final class AckedWrites {
    /** Units a run can track: 2^28 bits are 32 MiB, well inside the generator's 256 MiB heap (scripts/loadgen). */
    static final long MAX_UNITS = 1L << 28;

    /** What one piece of read data (a data PDU) turned out to be. */
    enum Verdict {
        /** The pattern of its address. */
        MATCH,
        /** Zeros where no write was acknowledged before the read was sent: not an error. */
        UNWRITTEN,
        /** Anything else: a verify error. */
        MISMATCH
    }

    private final AtomicLongArray bits;

    /** @param units I/O units in the range, 1..{@link #MAX_UNITS} (checked by {@link LoadGenOptions}) */
    AckedWrites(long units) {
        if (units < 1 || units > MAX_UNITS) {
            throw new IllegalArgumentException("units " + units);
        }
        bits = new AtomicLongArray((int) ((units + 63) >>> 6));
    }

    /** Records a successful write completion of {@code unit}; any event loop. */
    void acknowledged(long unit) {
        int word = (int) (unit >>> 6);
        long bit = 1L << unit;   // shifts by unit mod 64
        if ((bits.get(word) & bit) == 0) {
            bits.getAndAccumulate(word, bit, (a, b) -> a | b);
        }
    }

    /** Whether a write of {@code unit} was acknowledged so far: a read takes this when it is sent. */
    boolean isAcknowledged(long unit) {
        return (bits.get((int) (unit >>> 6)) & (1L << unit)) != 0;
    }

    /**
     * Judges the {@code length} readable bytes of {@code data} from its reader index, device bytes from
     * {@code byteOffset}, of a read sent when its unit's write was ({@code ackedBefore}) or was not yet acknowledged.
     * Without that acknowledgement each logical block of {@code lbs} bytes may be old or new on its own: a write of
     * several blocks need not land at once (the RAM disk swaps 64 KiB chunks one by one), so a read racing it sees
     * some blocks written and some still zero — but a block that is neither, or only partly zero, is an error.
     */
    static Verdict judge(ByteBuf data, long byteOffset, int length, int lbs, boolean ackedBefore) {
        int from = data.readerIndex();
        if (IoPattern.matches(data, from, byteOffset, length)) {
            return Verdict.MATCH;
        }
        if (ackedBefore) {
            return Verdict.MISMATCH;
        }
        for (int i = 0; i < length; ) {
            int n = (int) Math.min(length - i, lbs - (byteOffset + i) % lbs);
            if (data.forEachByte(from + i, n, ByteProcessor.FIND_NON_NUL) >= 0
                    && !IoPattern.matches(data, from + i, byteOffset + i, n)) {
                return Verdict.MISMATCH;
            }
            i += n;
        }
        return Verdict.UNWRITTEN;
    }
}
