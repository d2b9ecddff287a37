package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Where the next I/O of one connection goes and whether it writes: offsets aligned to the I/O size within the
 * range, uniformly random (one {@link SplittableRandom} per connection, no sharing) or sequential from a per-job
 * start, wrapping. Not thread-safe: one instance per connection, used on its event loop only.
 * <p>
 * Verify pattern: the 8-byte big-endian word at device byte offset {@code p} (a multiple of 8) is
 * {@code p * GOLDEN + SALT} — derived from the address alone, so concurrent writes of the same block write the same
 * bytes and a read can be checked without remembering what was written.
 */
final class IoPattern {
    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;
    private static final long SALT = 0x6C6F_6164_6765_6E21L; // "loadgen!"

    private final SplittableRandom random;
    private final Workload workload;
    private final int readMix;
    private final long positions;
    private final int blocksPerIo;
    private long cursor;

    /**
     * @param positions   number of I/O-sized slots in the range (range / bs), at least 1
     * @param blocksPerIo logical blocks per I/O
     * @param job         job number: seeds the random generator and spreads sequential starts over the range
     * @param jobs        number of jobs
     */
    IoPattern(Workload workload, int readMix, long positions, int blocksPerIo, int job, int jobs) {
        this.workload = workload;
        this.readMix = readMix;
        this.positions = positions;
        this.blocksPerIo = blocksPerIo;
        this.random = new SplittableRandom(0x5EED_0000L + job);
        this.cursor = positions / jobs * job;
    }

    /** Decides the direction of the next I/O. */
    boolean nextIsWrite() {
        return switch (workload) {
            case RANDREAD, READ -> false;
            case RANDWRITE, WRITE -> true;
            case RANDRW -> random.nextInt(100) >= readMix;
        };
    }

    /** First LBA of the next I/O. */
    long nextLba() {
        long position;
        if (workload.random) {
            position = random.nextLong(positions);
        } else {
            position = cursor;
            cursor = cursor + 1 == positions ? 0 : cursor + 1;
        }
        return position * blocksPerIo;
    }

    private static long word(long byteOffset) {
        return byteOffset * GOLDEN + SALT;
    }

    /**
     * Writes the pattern of device bytes {@code [byteOffset, byteOffset + length)} into {@code buf} at 0 (through
     * an NIO view: one bounds check per word, and no per-access leak-tracking records in paranoid tests).
     */
    static void fill(ByteBuf buf, long byteOffset, int length) {
        ByteBuffer view = buf.nioBuffer(0, length);
        for (int i = 0; i + 8 <= length; i += 8) {
            view.putLong(i, word(byteOffset + i));
        }
    }

    /**
     * True when the {@code length} readable bytes of {@code data} from its reader index are the pattern of device
     * bytes starting at {@code byteOffset} (any alignment: data PDUs need not split on 8-byte boundaries).
     */
    static boolean matches(ByteBuf data, long byteOffset, int length) {
        return matches(data, data.readerIndex(), byteOffset, length);
    }

    /** {@link #matches(ByteBuf, long, int)} for the bytes of {@code data} from {@code index}. */
    static boolean matches(ByteBuf data, int index, long byteOffset, int length) {
        ByteBuffer view = data.nioBufferCount() == 1 ? data.nioBuffer(index, length)
                : ByteBuffer.wrap(ByteBufUtil.getBytes(data, index, length));
        int i = 0;
        for (; i < length && ((byteOffset + i) & 7) != 0; i++) {
            if (view.get(i) != expectedByte(byteOffset + i)) {
                return false;
            }
        }
        for (; i + 8 <= length; i += 8) {
            if (view.getLong(i) != word(byteOffset + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (view.get(i) != expectedByte(byteOffset + i)) {
                return false;
            }
        }
        return true;
    }

    private static byte expectedByte(long p) {
        return (byte) (word(p & ~7L) >>> (56 - 8 * (int) (p & 7)));
    }
}
