package io.blocktarget.block.ram;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A jcstress-style stress test of the RAM disk's sparse chunk table (SparseArray + RamBlockDevice's
 * fill-then-publish by CAS): in each round, writer threads race to make the first write into the same
 * never-written chunk (each writes its own block of it) while a reader reads the whole chunk, and a grower
 * resizes the disk. Invariants, checked every round: no write is lost (each block reads back as its writer's
 * pattern — a second chunk published over the first would lose the other writers' blocks), a concurrent read
 * sees in each block only zeros or that block's pattern (never another chunk's stale memory), and the budget holds
 * exactly one chunk per written chunk (a losing writer's chunk is freed). Bounded: a fixed number of rounds.
 */
@Tag("stress")
class RamChunkTableStressTest {
    private static final int LBS = 4096;
    private static final int CHUNK = 64 * 1024;
    private static final int BLOCKS_PER_CHUNK = CHUNK / LBS;
    private static final int WRITERS = 3;
    private static final int ROUNDS = 1500;

    private static byte[] pattern(long block) {
        byte[] b = new byte[LBS];
        for (int i = 0; i < LBS; i++) {
            b[i] = (byte) (block * 131 + i * 7 + 1 | 1); // never 0: zeros are unwritten
        }
        return b;
    }

    @Test
    void racingFirstWritesToOneChunkLoseNothingAndLeakNothing() throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 30);
        long initialBlocks = (long) ROUNDS * BLOCKS_PER_CHUNK;
        RamBlockDevice disk = new RamBlockDevice("stress", new BlockGeometry(LBS, LBS, initialBlocks), false, budget);
        assertThat(disk.chunkSize()).isEqualTo(CHUNK);
        AtomicReference<String> violation = new AtomicReference<>();
        int parties = WRITERS + 2;
        CyclicBarrier start = new CyclicBarrier(parties);
        CyclicBarrier end = new CyclicBarrier(parties);
        ExecutorService pool = Executors.newFixedThreadPool(parties);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                tasks.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        start.await(30, TimeUnit.SECONDS);
                        // writer w writes blocks w, w + WRITERS, ... of the round's chunk: all race for its slot
                        for (int b = writer; b < BLOCKS_PER_CHUNK; b += WRITERS) {
                            long lba = (long) round * BLOCKS_PER_CHUNK + b;
                            ByteBuf data = Unpooled.wrappedBuffer(pattern(lba));
                            try {
                                Io.<Void>await(cb -> disk.write(lba, data, false, cb));
                            } finally {
                                data.release();
                            }
                        }
                        end.await(30, TimeUnit.SECONDS);
                    }
                    return null;
                }));
            }
            tasks.add(pool.submit(() -> {          // reader: the chunk while it is being written
                for (int round = 0; round < ROUNDS; round++) {
                    start.await(30, TimeUnit.SECONDS);
                    long first = (long) round * BLOCKS_PER_CHUNK;
                    byte[] seen = Io.read(disk, first, BLOCKS_PER_CHUNK);
                    for (int b = 0; b < BLOCKS_PER_CHUNK && violation.get() == null; b++) {
                        byte[] expected = pattern(first + b);
                        for (int i = 0; i < LBS; i++) {
                            byte v = seen[b * LBS + i];
                            if (v != 0 && v != expected[i]) {
                                violation.compareAndSet(null, "round " + round + " block " + b + " byte " + i
                                        + ": read " + v + ", neither zero nor the pattern " + expected[i]);
                                break;
                            }
                        }
                    }
                    end.await(30, TimeUnit.SECONDS);
                }
                return null;
            }));
            tasks.add(pool.submit(() -> {          // grower: the table gains levels and capacity meanwhile
                for (int round = 0; round < ROUNDS; round++) {
                    start.await(30, TimeUnit.SECONDS);
                    if (round % 50 == 0) {
                        long blocks = disk.geometry().blockCount() + 64L * BLOCKS_PER_CHUNK * 1024;
                        Io.<Void>await(cb -> disk.resize(blocks, cb));
                    }
                    end.await(30, TimeUnit.SECONDS);
                }
                return null;
            }));
            for (Future<?> t : tasks) {
                t.get(300, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violation.get()).isNull();
        for (int round = 0; round < ROUNDS; round++) {
            long first = (long) round * BLOCKS_PER_CHUNK;
            ByteBuf all = Io.await(cb -> disk.read(first, BLOCKS_PER_CHUNK, cb));
            try {
                for (int b = 0; b < BLOCKS_PER_CHUNK; b++) {
                    if (!ByteBufUtil.equals(all, b * LBS, Unpooled.wrappedBuffer(pattern(first + b)), 0, LBS)) {
                        throw new AssertionError("round " + round + ": block " + b + " lost its write");
                    }
                }
            } finally {
                all.release();
            }
        }
        assertThat(disk.allocatedBytes()).as("one chunk per written chunk").isEqualTo((long) ROUNDS * CHUNK);
        assertThat(budget.used()).as("the losers' chunks were given back").isEqualTo((long) ROUNDS * CHUNK);
        disk.close();
        assertThat(budget.used()).isZero();
    }
}
