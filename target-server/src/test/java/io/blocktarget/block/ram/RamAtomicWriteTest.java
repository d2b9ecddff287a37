package io.blocktarget.block.ram;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.RangeLocks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RamBlockDevice#writeAtomic}: all or nothing against concurrent readers (which hold zero-copy slices of chunk
 * memory), after a failure, within one chunk and across chunks; and the negative control: the plain write path does
 * tear under the same readers, so the torn-read check can fail.
 */
class RamAtomicWriteTest {
    private static final int CHUNK = 64 * 1024;

    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    private static void writeAtomic(BlockDevice device, long lba, byte[] bytes) throws Exception {
        ByteBuf buf = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        try {
            Io.<Void>await(cb -> device.writeAtomic(lba, buf, false, cb));
        } finally {
            buf.release();
        }
    }

    /** Every logical block size: the written blocks read back, the rest of the chunks is kept. */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void writesWithinAndAcrossChunksKeepTheRest(int lbs) throws Exception {
        BlockGeometry g = new BlockGeometry(lbs, lbs, 4L * CHUNK / lbs * 4);
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, budget)) {
            assertThat(device.atomicWriteGranule()).isEqualTo(CHUNK / lbs);
            byte[] before = Io.pattern(1, 3 * CHUNK);
            Io.write(device, 0, before);
            long lba = (CHUNK - lbs) / lbs;                   // the last block of chunk 0 and the first of chunk 1
            byte[] atomic = Io.pattern(2, 2 * lbs);
            writeAtomic(device, lba, atomic);
            byte[] expected = before.clone();
            System.arraycopy(atomic, 0, expected, CHUNK - lbs, 2 * lbs);
            assertThat(Io.read(device, 0, 3 * CHUNK / lbs)).isEqualTo(expected);
            // into a never-written chunk: the rest of it stays zeros
            writeAtomic(device, 3L * CHUNK / lbs, atomic);
            byte[] last = new byte[2 * CHUNK];
            System.arraycopy(atomic, 0, last, 0, 2 * lbs);
            assertThat(Io.read(device, 3L * CHUNK / lbs, 2 * CHUNK / lbs)).isEqualTo(last);
            long touched = (2L * lbs + CHUNK - 1) / CHUNK;              // 64 KiB blocks: two chunks
            assertThat(device.allocatedBytes()).isEqualTo((3 + touched) * CHUNK);  // the replaced ones were freed
        }
        assertThat(budget.used()).isZero();
    }

    /**
     * A read's slices keep the version they were taken from: the socket writes what the read saw — for atomic and
     * (RamSingleBlockAtomicityTest) plain writes alike.
     */
    @Test
    void aHeldReadKeepsTheOldVersionOfAtomicAndPlainWrites() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 64);
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, budget)) {
            byte[] old = Io.pattern(1, 8192);
            Io.write(device, 0, old);
            ByteBuf held = Io.await(cb -> device.read(0, 2, cb));
            writeAtomic(device, 0, Io.pattern(2, 8192));
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(held)).isEqualTo(old);
            held.release();
            ByteBuf plain = Io.await(cb -> device.read(0, 2, cb));
            Io.write(device, 0, Io.pattern(3, 8192));
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(plain)).isEqualTo(Io.pattern(2, 8192)); // a copy
            plain.release();
            assertThat(Io.read(device, 0, 2)).isEqualTo(Io.pattern(3, 8192));
        }
        assertThat(budget.used()).isZero();
    }

    /** Out of memory on the second chunk of two: nothing is applied and every prepared copy is given back. */
    @Test
    void aFailedAtomicWriteChangesNothing() throws Exception {
        MemoryBudget small = new MemoryBudget(3L * CHUNK);
        BlockGeometry g = new BlockGeometry(4096, 4096, 4L * CHUNK / 4096);
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, small)) {
            byte[] before = Io.pattern(1, 2 * CHUNK);
            Io.write(device, 0, before);
            assertThat(small.used()).isEqualTo(2L * CHUNK);
            byte[] atomic = Io.pattern(2, 8192);
            ByteBuf buf = Unpooled.directBuffer(8192).writeBytes(atomic);
            BlockError error = Io.<Void>failureOf(cb -> device.writeAtomic(CHUNK / 4096 - 1, buf, false, cb));
            buf.release();
            assertThat(error).isEqualTo(BlockError.INSUFFICIENT_RESOURCES);
            assertThat(Io.read(device, 0, 2 * CHUNK / 4096)).isEqualTo(before);
            assertThat(small.used()).isEqualTo(2L * CHUNK);
            // one chunk's copy fits: the same write within chunk 0 succeeds
            writeAtomic(device, 0, atomic);
            assertThat(Io.read(device, 0, 2)).isEqualTo(atomic);
        }
        assertThat(small.used()).isZero();
    }

    /** The range lock an atomic write takes is rounded out to whole chunks and given back after the write. */
    @Test
    void theLockCoversWholeChunksAndIsReleased() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 64);
        RangeLocks locks = new RangeLocks();
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, budget)) {
            // a shared write of block 0 (chunk 0) is held: an atomic write of block 15 (chunk 0) must wait for it
            List<io.blocktarget.block.RangeLocks.Lease> held = new ArrayList<>();
            locks.acquireExclusive(0, 1, held::add);
            ByteBuf buf = Unpooled.directBuffer(4096).writeBytes(Io.pattern(9, 4096));
            CompletableFuture<Throwable> done = new CompletableFuture<>();
            AtomicWrites.write(locks, device, 15, buf, false, (ok, failure) -> done.complete(failure));
            assertThat(done).isNotDone();
            held.getFirst().release();
            assertThat(done.get(10, TimeUnit.SECONDS)).isNull();
            buf.release();
            // block 16 is chunk 1: not held up by a lock on chunk 0
            locks.acquireExclusive(0, 1, held::add);
            ByteBuf other = Unpooled.directBuffer(4096).writeBytes(Io.pattern(8, 4096));
            CompletableFuture<Throwable> next = new CompletableFuture<>();
            AtomicWrites.write(locks, device, 16, other, false, (ok, failure) -> next.complete(failure));
            assertThat(next.get(10, TimeUnit.SECONDS)).isNull();
            other.release();
            held.get(1).release();
            assertThat(locks.heldCount()).isZero();
        }
    }

    @Test
    void boundaryAndCoverage() {
        AtomicWrites w = new AtomicWrites(16, 32, 1, 1);
        assertThat(w.covers(16, 16)).isTrue();       // at the limit, ending at the boundary
        assertThat(w.covers(0, 17)).isFalse();       // limit + 1
        assertThat(w.covers(31, 2)).isFalse();       // crosses LBA 32
        assertThat(w.covers(30, 2)).isTrue();
        assertThat(new AtomicWrites(16, 0, 1, 1).covers(31, 16)).isTrue(); // no boundary
    }

    // --- concurrency: readers on other threads against atomic writes, and the negative control ---

    /** One writer rewrites 8 blocks across a chunk boundary with one byte value per generation; readers check. */
    private static long tornReads(RamBlockDevice device, int blocks, boolean atomic, long maxWrites, long maxMillis,
                                  boolean stopAtFirstTear) throws Exception {
        int lbs = device.geometry().logicalBlockSize();
        long lba = CHUNK / lbs - Math.min(blocks / 2, CHUNK / lbs / 2); // straddles chunk 0 and the next one(s)
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong torn = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int span = r == 0 ? blocks : blocks / 2;         // the whole write, and its half in chunk 0
            Thread t = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    CompletableFuture<ByteBuf> got = new CompletableFuture<>();
                    IoCallback<ByteBuf> cb = (buf, failure) -> got.complete(buf);
                    device.read(lba, span, cb);
                    ByteBuf buf = got.join();
                    try {
                        byte first = buf.getByte(buf.readerIndex());
                        for (int i = 1; i < buf.readableBytes(); i++) {
                            if (buf.getByte(buf.readerIndex() + i) != first) {
                                torn.incrementAndGet();
                                break;
                            }
                        }
                    } finally {
                        buf.release();
                    }
                    reads.incrementAndGet();
                }
            });
            readers.add(t);
        }
        ByteBuf data = Unpooled.directBuffer(blocks * lbs, blocks * lbs);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        try {
            for (long gen = 1; gen <= maxWrites && System.nanoTime() < deadline; gen++) {
                if (stopAtFirstTear && torn.get() > 0) {
                    break;
                }
                data.clear();
                byte[] fill = new byte[blocks * lbs];
                Arrays.fill(fill, (byte) gen);
                data.writeBytes(fill);
                CompletableFuture<Throwable> done = new CompletableFuture<>();
                if (atomic) {
                    device.writeAtomic(lba, data, false, (ok, failure) -> done.complete(failure));
                } else {
                    device.write(lba, data, false, (ok, failure) -> done.complete(failure));
                }
                assertThat(done.join()).isNull();
            }
        } finally {
            stop.set(true);
            for (Thread t : readers) {
                t.join();
            }
            data.release();
        }
        assertThat(reads.get()).isPositive();
        return torn.get();
    }

    /**
     * 8 blocks over two chunks, and 1 MiB over 17 chunks: the wider the write, the longer the swap of its chunks and
     * the assembly of a read, so a read that took old and new chunks would be seen (it is, without the seqlock).
     */
    @ParameterizedTest
    @ValueSource(ints = {8, 256})
    @Tag("stress")
    void concurrentReadersNeverSeeATornAtomicWrite(int blocks) throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 512);
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, budget)) {
            assertThat(tornReads(device, blocks, true, 20_000, 8_000, false)).isZero();
        }
        assertThat(budget.used()).isZero();
    }

    /**
     * The negative control: the same readers do see plain writes of several chunks half applied (each chunk's part is
     * whole, the write as a whole is not), so the check above can fail.
     */
    @Test
    @Tag("stress")
    void concurrentReadersDoSeeTornPlainWrites() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 64);
        try (RamBlockDevice device = new RamBlockDevice("a", g, false, budget)) {
            assertThat(tornReads(device, 8, false, Long.MAX_VALUE, 30_000, true)).isPositive();
        }
    }
}
