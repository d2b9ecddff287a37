package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Single-block atomicity under concurrency (NVM Command Set §2.1.4.1: a write of one logical block is atomic with
 * respect to other reads and writes; AWUN is 0's based): writer threads rewrite the same range with one value per
 * generation in its first half and another in its second ("patterned halves"), while reader threads read it and
 * check every returned block holds one generation throughout. A read's buffer is checked when the read completed and
 * once more after a later write completed, as a transport writes it to a socket later (a RAM read hands out slices of
 * backend memory): what a completed read returned must not change.
 */
public final class TornReads {
    private TornReads() {
    }

    /** What one run saw. */
    public record Outcome(long writes, long reads, long tornBlocks, String firstTear) {
    }

    /** Generation {@code g}'s bytes for one block: the first half {@code 2g}, the second {@code 2g + 1} (mod 256). */
    private static void fill(ByteBuf buf, int blocks, int lbs, long generation) {
        byte[] block = new byte[lbs];
        java.util.Arrays.fill(block, 0, lbs / 2, (byte) (2 * generation));
        java.util.Arrays.fill(block, lbs / 2, lbs, (byte) (2 * generation + 1));
        buf.clear();
        for (int b = 0; b < blocks; b++) {
            buf.writeBytes(block);   // one call per block: a leak-tracked buffer records every access
        }
    }

    /**
     * Runs {@code writers} writer threads and two reader threads on {@code [lba, lba + blocks)} of {@code device} until
     * {@code maxWrites} writes are done, {@code maxMillis} passed, or (with {@code stopAtFirstTear}) a torn block was
     * read. A block is torn when its halves are not one generation's, or a half is not uniform.
     */
    public static Outcome run(BlockDevice device, long lba, int blocks, int writers, long maxWrites, long maxMillis,
                              boolean stopAtFirstTear) throws InterruptedException {
        return run(device, lba, blocks, writers, maxWrites, maxMillis, stopAtFirstTear, false);
    }

    /**
     * As above; with {@code wholeRange} a read is also torn when its blocks are not all of one generation (the range
     * is one atomic unit, e.g. a physical block).
     */
    public static Outcome run(BlockDevice device, long lba, int blocks, int writers, long maxWrites, long maxMillis,
                              boolean stopAtFirstTear, boolean wholeRange) throws InterruptedException {
        int lbs = device.geometry().logicalBlockSize();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong torn = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicLong written = new AtomicLong();
        AtomicReference<String> firstTear = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        for (int r = 0; r < 2; r++) {
            threads.add(Thread.ofPlatform().name("torn-reader-" + r).start(() -> {
                try {
                    while (!stop.get()) {
                        CompletableFuture<ByteBuf> got = new CompletableFuture<>();
                        device.read(lba, blocks, (buf, f) -> {
                            if (f != null) {
                                got.completeExceptionally(f);
                            } else {
                                got.complete(buf);
                            }
                        });
                        ByteBuf buf = got.get(30, TimeUnit.SECONDS);
                        long completedBefore = written.get();
                        try {
                            byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(buf); // one access: see fill
                            while (written.get() == completedBefore && !stop.get()) {
                                Thread.onSpinWait(); // until a write issued after this read completed is done
                            }
                            byte[] later = io.netty.buffer.ByteBufUtil.getBytes(buf);
                            if (!java.util.Arrays.equals(bytes, later)) {
                                torn.incrementAndGet();
                                firstTear.compareAndSet(null, "a completed read's data changed from generation "
                                        + bytes[0] / 2 + " to " + later[0] / 2);
                            }
                            for (int b = 0; b < blocks; b++) {
                                String tear = tear(bytes, b * lbs, lbs);
                                if (tear == null && wholeRange && bytes[b * lbs] != bytes[0]) {
                                    tear = "generation differs from block " + lba;
                                }
                                if (tear != null) {
                                    torn.incrementAndGet();
                                    firstTear.compareAndSet(null, "block " + (lba + b) + ": " + tear);
                                }
                            }
                        } finally {
                            buf.release();
                        }
                        reads.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    stop.set(true);
                }
            }));
        }
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().name("torn-writer-" + w).start(() -> {
                ByteBuf data = Unpooled.directBuffer(blocks * lbs, blocks * lbs);
                try {
                    for (long g = writer + 1; !stop.get(); g += writers) {
                        if (writes.incrementAndGet() > maxWrites || System.nanoTime() > deadline
                                || stopAtFirstTear && torn.get() > 0) {
                            break;
                        }
                        fill(data, blocks, lbs, g);
                        CompletableFuture<Void> done = new CompletableFuture<>();
                        device.write(lba, data, false, (ok, f) -> {
                            if (f != null) {
                                done.completeExceptionally(f);
                            } else {
                                done.complete(null);
                            }
                        });
                        done.get(30, TimeUnit.SECONDS);
                        written.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    data.release();
                    stop.set(true);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("an I/O of the torn-read run failed", failure.get());
        }
        return new Outcome(Math.min(writes.get(), maxWrites), reads.get(), torn.get(), firstTear.get());
    }

    /** Null when the block at {@code at} is one generation's (or never written: zeros), else what is wrong. */
    private static String tear(byte[] buf, int at, int lbs) {
        int half = lbs / 2;
        byte first = buf[at];
        byte second = buf[at + half];
        boolean unwritten = first == 0 && second == 0;
        if (!unwritten && (first & 1) != 0 || !unwritten && second != (byte) (first + 1)) {
            return "halves " + first + " / " + second;
        }
        for (int i = 1; i < lbs; i++) {
            byte expected = i < half ? first : second;
            if (buf[at + i] != expected) {
                return "byte " + i + " is " + buf[at + i] + ", expected " + expected;
            }
        }
        return null;
    }
}
