package io.blocktarget.block.ram;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** What is particular to the RAM disk: sparseness, the budget, chunk lifetime. */
class RamBlockDeviceTest {
    private static final long GIB = 1L << 30;
    private static final int CHUNK = 64 * 1024;

    private final MemoryBudget budget = new MemoryBudget(GIB);

    @Test
    @Tag("stress")
    void untouched64GiBDiskCostsNoMemoryEvenWhenReadEverywhere() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 64 * GIB / 4096);
        try (RamBlockDevice device = new RamBlockDevice("sparse64", g, false, budget)) {
            for (long lba = 0; lba < g.blockCount(); lba += 16 * 256) {   // every 16 MiB, 1 MiB reads
                assertThat(Io.read(device, lba, 256)).isEqualTo(new byte[1 << 20]);
            }
            assertThat(device.allocatedBytes()).isZero();
            assertThat(budget.used()).isZero();
        }
    }

    /** RSS is only meaningful in a JVM doing nothing else: the probe runs in a child with a fixed heap. */
    @Test
    @Tag("stress")
    void untouched64GiBDiskMeasuredInAFreshJvm() throws Exception {
        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-Xms64m", "-Xmx64m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), SparseMemoryProbe.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(child.waitFor()).as(out).isZero();
        java.util.Map<String, Long> values = new java.util.HashMap<>();
        out.lines().filter(l -> l.matches("\\w+=-?\\d+"))
                .forEach(l -> values.put(l.substring(0, l.indexOf('=')), Long.parseLong(l.substring(l.indexOf('=') + 1))));
        long delta = values.get("rssAfterKiB") - values.get("rssBeforeKiB");
        System.out.printf("untouched 64 GiB RAM disk, all of it read in 1 MiB reads, fresh JVM: allocatedBytes=%d "
                + "budget.used=%d RSS %d KiB -> %d KiB (delta %d KiB)%n", values.get("allocatedBytes"),
                values.get("budgetUsed"), values.get("rssBeforeKiB"), values.get("rssAfterKiB"), delta);
        assertThat(values.get("allocatedBytes")).isZero();
        assertThat(values.get("budgetUsed")).isZero();
        assertThat(values.get("nonZeroBytes")).isZero();
        assertThat(delta).as("RSS growth in KiB; 64 GiB of chunks would be 2^26 KiB").isLessThan(8 * 1024);
    }

    @Test
    void oneTebibyteDiskConstructsInstantlyAndWorksAtBothEnds() throws Exception {
        long start = System.nanoTime();
        BlockGeometry g = new BlockGeometry(512, 4096, (1L << 40) / 512);
        try (RamBlockDevice device = new RamBlockDevice("tib", g, false, budget)) {
            long micros = (System.nanoTime() - start) / 1000;
            System.out.printf("1 TiB RAM disk constructed in %d us%n", micros);
            assertThat(micros).isLessThan(100_000);
            long last = g.blockCount() - 1;
            Io.write(device, last, Io.pattern(last, 512));
            Io.write(device, 0, Io.pattern(0, 512));
            assertThat(Io.read(device, last, 1)).isEqualTo(Io.pattern(last, 512));
            assertThat(Io.read(device, 0, 1)).isEqualTo(Io.pattern(0, 512));
            assertThat(device.allocatedBytes()).isEqualTo(2 * CHUNK);
        }
        assertThat(budget.used()).isZero();
    }

    @Test
    void aWriteAllocatesOnlyTheChunksItTouches() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(512, 512, 1 << 16), false, budget)) {
            assertThat(device.chunkSize()).isEqualTo(CHUNK);
            Io.write(device, 5, Io.pattern(1, 512));
            assertThat(device.allocatedBytes()).isEqualTo(CHUNK);
            assertThat(budget.used()).isEqualTo(CHUNK);
            Io.write(device, 100, Io.pattern(2, 4096));   // same chunk
            assertThat(budget.used()).isEqualTo(CHUNK);
            Io.write(device, 127, Io.pattern(3, 1024));   // last block of chunk 0 and first of chunk 1
            assertThat(budget.used()).isEqualTo(2 * CHUNK);
        }
        assertThat(budget.used()).isZero();
    }

    @Test
    void chunksFollowALargePhysicalBlockSize() throws Exception {
        int pbs = BlockGeometry.MAX_PHYSICAL_BLOCK_SIZE;
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, pbs, 3L * pbs / 4096), false, budget)) {
            assertThat(device.chunkSize()).isEqualTo(pbs);
            long lba = pbs / 4096 - 1;                     // last block of the first physical block
            Io.write(device, lba, Io.pattern(lba, 8192));
            assertThat(budget.used()).isEqualTo(2L * pbs);
            assertThat(Io.read(device, lba, 2)).isEqualTo(Io.pattern(lba, 8192));
        }
    }

    @Test
    void chunksOfAHugePageOrMoreAreAlignedToOneAndReadAsZerosWhereNotWritten() throws Exception {
        int pbs = RamBlockDevice.HUGE_PAGE;
        int blocks = pbs / 4096;
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, pbs, 4L * blocks), false, budget)) {
            for (int round = 0; round < 3; round++) {   // freed and allocated again (the allocator may reuse the memory)
                Io.write(device, 0, Io.pattern(round, pbs));          // chunk 0, whole: not zeroed
                Io.write(device, blocks + 1, Io.pattern(round, 4096)); // chunk 1, one block: the rest must read as zeros
                long[] address = new long[2];
                for (int c = 0; c < 2; c++) {
                    int chunk = c;
                    device.read((long) c * blocks, 1, (data, failure) -> {
                        address[chunk] = data.memoryAddress();
                        data.release();
                    });
                }
                assertThat(address[0] % pbs).as("chunk 0 address").isZero();
                assertThat(address[1] % pbs).as("chunk 1 address").isZero();
                byte[] expected = new byte[pbs];
                System.arraycopy(Io.pattern(round, 4096), 0, expected, 4096, 4096);
                assertThat(Io.read(device, blocks, blocks)).isEqualTo(expected);
                assertThat(Io.read(device, 0, blocks)).isEqualTo(Io.pattern(round, pbs));
                Io.unmap(device, 0, 2L * blocks);
                assertThat(budget.used()).isZero();
            }
        }
    }

    /** The address of the chunk that block {@code lba} is in, as a read's slice has it (minus the offset). */
    private static long chunkAddress(RamBlockDevice device, long lba) {
        long[] address = new long[1];
        device.read(lba, 1, (data, failure) -> {
            address[0] = data.memoryAddress() - (lba * 4096 % CHUNK);
            data.release();
        });
        return address[0];
    }

    /**
     * Chunks below a huge page sit at their slot of a 2 MiB-aligned slab per region, so that a region written whole
     * can be one huge page; a slot given back (unmap) and taken again reads as zeros where not written.
     */
    @Test
    void smallChunksSitAtTheirSlotOfAHugePageAlignedSlabPerRegion() throws Exception {
        int perRegion = RamBlockDevice.HUGE_PAGE / CHUNK;   // 32 chunks of 16 blocks
        long regionBlocks = RamBlockDevice.HUGE_PAGE / 4096;
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 2 * regionBlocks), false,
                budget)) {
            Io.write(device, 0, Io.pattern(3, RamBlockDevice.HUGE_PAGE));            // region 0, whole
            Io.write(device, regionBlocks + 16 * 5 + 3, Io.pattern(4, 4096));         // region 1, chunk 5, one block
            long base = chunkAddress(device, 0);
            assertThat(base % RamBlockDevice.HUGE_PAGE).as("slab alignment").isZero();
            for (int c = 0; c < perRegion; c++) {
                assertThat(chunkAddress(device, 16L * c)).as("chunk %d", c).isEqualTo(base + (long) c * CHUNK);
            }
            long other = chunkAddress(device, regionBlocks + 16 * 5) - 5L * CHUNK;
            assertThat(other % RamBlockDevice.HUGE_PAGE).as("region 1's slab alignment").isZero();
            assertThat(other).isNotEqualTo(base);
            byte[] expected = new byte[16 * 4096];
            System.arraycopy(Io.pattern(4, 4096), 0, expected, 3 * 4096, 4096);
            assertThat(Io.read(device, regionBlocks + 16 * 5, 16)).isEqualTo(expected);

            for (int round = 0; round < 3; round++) {   // slot 7 given back and taken again: zeros around new data
                Io.unmap(device, 16 * 7, 16);
                assertThat(budget.used()).isEqualTo((perRegion - 1 + 1) * (long) CHUNK);
                Io.write(device, 16 * 7 + round, Io.pattern(10 + round, 4096));
                assertThat(chunkAddress(device, 16 * 7)).isEqualTo(base + 7L * CHUNK);
                expected = new byte[16 * 4096];
                System.arraycopy(Io.pattern(10 + round, 4096), 0, expected, round * 4096, 4096);
                assertThat(Io.read(device, 16 * 7, 16)).as("round %d", round).isEqualTo(expected);
            }
            byte[] region0 = Io.pattern(3, RamBlockDevice.HUGE_PAGE);
            System.arraycopy(expected, 0, region0, 7 * CHUNK, CHUNK);
            assertThat(Io.read(device, 0, (int) regionBlocks)).isEqualTo(region0);
            Io.unmap(device, 0, 2 * regionBlocks);
            assertThat(budget.used()).isZero();
            assertThat(Io.read(device, 0, (int) regionBlocks)).isEqualTo(new byte[RamBlockDevice.HUGE_PAGE]);
        }
    }

    /**
     * A write to a chunk a read still holds goes to a copy, which cannot have the slot (the old version holds it): it
     * is malloc'd, and the reader keeps the old data. Once the reader lets go, the slot is free for the next version.
     */
    @Test
    void aCopyWhoseSlotAReadHoldsIsMallocdAndTheSlotComesBackAfterwards() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 512), false, budget)) {
            Io.write(device, 0, Io.pattern(1, CHUNK));
            long slot = chunkAddress(device, 0);
            ByteBuf held = Io.await(cb -> device.read(0, 16, cb));
            try {
                Io.write(device, 4, Io.pattern(2, 4096));   // copy-on-write: the read holds chunk 0
                long copy = chunkAddress(device, 0);
                assertThat(copy).isNotEqualTo(slot);
                assertThat(ByteBufUtil.getBytes(held)).isEqualTo(Io.pattern(1, CHUNK));
                byte[] now = Io.pattern(1, CHUNK);
                System.arraycopy(Io.pattern(2, 4096), 0, now, 4 * 4096, 4096);
                assertThat(Io.read(device, 0, 16)).isEqualTo(now);
                assertThat(budget.used()).isEqualTo(2L * CHUNK);
            } finally {
                held.release();
            }
            assertThat(budget.used()).isEqualTo(CHUNK);
            Io.unmap(device, 0, 16);                       // the malloc'd copy goes
            Io.write(device, 1, Io.pattern(5, 4096));
            assertThat(chunkAddress(device, 0)).isEqualTo(slot);
            byte[] expected = new byte[CHUNK];
            System.arraycopy(Io.pattern(5, 4096), 0, expected, 4096, 4096);
            assertThat(Io.read(device, 0, 16)).isEqualTo(expected);
        }
    }

    /**
     * The process maps at most {@link Slab#MAX_SLABS} slabs (each may be a VMA of its own, and vm.max_map_count is
     * shared with the JVM): at the limit the next one is refused, and a device's new chunks are malloc'd and work; one
     * unmapped, one more may be mapped.
     */
    @Test
    void slabsStopAtTheirLimitAndChunksPastItAreMallocd() throws Exception {
        List<Slab> mapped = new ArrayList<>();
        try {
            Slab slab;
            while ((slab = Slab.map(CHUNK)) != null) {
                mapped.add(slab);
                assertThat(mapped).hasSizeLessThanOrEqualTo(Slab.MAX_SLABS);
            }
            assertThat(Slab.live()).as("the limit, whatever else held slabs").isEqualTo(Slab.MAX_SLABS);
            assertThat(Slab.map(CHUNK)).as("limit + 1").isNull();
            try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 512), false, budget)) {
                Io.write(device, 0, Io.pattern(8, 2 * CHUNK));
                assertThat(Io.read(device, 0, 32)).isEqualTo(Io.pattern(8, 2 * CHUNK));
                assertThat(chunkAddress(device, 16)).as("malloc'd, not slot 1 of a slab")
                        .isNotEqualTo(chunkAddress(device, 0) + CHUNK);
                assertThat(Slab.live()).isEqualTo(Slab.MAX_SLABS);
            }
            mapped.remove(mapped.size() - 1).close();   // no slot used: unmapped at once
            assertThat(Slab.live()).isEqualTo(Slab.MAX_SLABS - 1);
            Slab again = Slab.map(CHUNK);
            assertThat(again).isNotNull();
            mapped.add(again);
        } finally {
            mapped.forEach(Slab::close);
        }
    }

    /** Closing the device while a read holds a slab's chunk: the memory stays readable until the read lets go. */
    @Test
    void aSlabOutlivesItsClosedDeviceWhileAReadHoldsAChunk() throws Exception {
        RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 512), false, budget);
        Io.write(device, 0, Io.pattern(6, 2 * CHUNK));
        ByteBuf held = Io.await(cb -> device.read(16, 16, cb));
        device.close();
        try {
            assertThat(ByteBufUtil.getBytes(held)).isEqualTo(java.util.Arrays.copyOfRange(Io.pattern(6, 2 * CHUNK),
                    CHUNK, 2 * CHUNK));
            assertThat(budget.used()).isEqualTo(CHUNK);
        } finally {
            held.release();
        }
        assertThat(budget.used()).isZero();
        assertThat(device.allocatedBytes()).isZero();
    }

    /**
     * An unmap's copy-on-write (a read holds the chunk) racing close(): close empties the chunk and slab tables just
     * as the copy is allocated. The copy's region then has no slab, so a fresh one is mapped; it must not stay mapped
     * in the closed device's table (it did: nothing would ever unmap it). The hook runs close() at that instant.
     */
    @Test
    void aCopyOnWriteThatRacesCloseLeavesNoSlabMapped() throws Exception {
        int before = Slab.live();
        RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 512), false, budget);
        Io.write(device, 0, Io.pattern(7, CHUNK));
        ByteBuf held = Io.await(cb -> device.read(0, 1, cb));
        device.beforeAllocate = () -> {
            device.beforeAllocate = null;
            device.close();
        };
        try {
            // zeroing one block of the held chunk needs a copy: the reader keeps the old version
            Io.writeZeroes(device, 1, 1);
            assertThat(device.beforeAllocate).as("the copy was allocated").isNull();
            assertThat(ByteBufUtil.getBytes(held)).isEqualTo(java.util.Arrays.copyOf(Io.pattern(7, CHUNK), 4096));
        } finally {
            held.release();
        }
        assertThat(Slab.live()).as("slabs mapped, against before the device").isEqualTo(before);
        assertThat(budget.used()).isZero();
    }

    @Test
    void unmapFreesWholeChunksAndZerosPartialOnes() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 64), false, budget)) {
            Io.write(device, 0, Io.pattern(7, 64 * 4096));   // 4 chunks of 16 blocks
            assertThat(budget.used()).isEqualTo(4 * CHUNK);
            Io.unmap(device, 8, 32);                          // half of chunk 0, all of 1, half of 2
            assertThat(budget.used()).isEqualTo(3 * CHUNK);
            assertThat(device.allocatedBytes()).isEqualTo(3 * CHUNK);
            byte[] expected = Io.pattern(7, 64 * 4096);
            java.util.Arrays.fill(expected, 8 * 4096, 40 * 4096, (byte) 0);
            assertThat(Io.read(device, 0, 64)).isEqualTo(expected);
            Io.writeZeroes(device, 48, 16);                   // all of chunk 3
            assertThat(budget.used()).isEqualTo(2 * CHUNK);
            Io.unmap(device, 0, 64);
            assertThat(budget.used()).isZero();
            assertThat(Io.read(device, 0, 64)).isEqualTo(new byte[64 * 4096]);
        }
    }

    @Test
    void unmappingAllOfAHugeSparseDiskIsQuickAndExact() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, (1L << 40) / 4096);   // 1 TiB: 2^24 chunks
        try (RamBlockDevice device = new RamBlockDevice("tib", g, false, budget)) {
            long last = g.blockCount() - 1;
            long middle = g.blockCount() / 2 + 5;
            for (long lba : new long[] {16, 17, middle, last}) {
                Io.write(device, lba, Io.pattern(lba, 4096));
            }
            assertThat(budget.used()).isEqualTo(3 * CHUNK);                // chunk 1, a middle one, the last
            long start = System.nanoTime();
            Io.unmap(device, 17, last - 17);                                 // [17, last): ends inside chunks
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("unmap of a 1 TiB range on a sparse RAM disk: %d ms%n", millis);
            assertThat(budget.used()).isEqualTo(2 * CHUNK);                // the middle chunk freed
            assertThat(Io.read(device, 16, 1)).isEqualTo(Io.pattern(16, 4096));
            assertThat(Io.read(device, 17, 1)).isEqualTo(new byte[4096]);   // zeroed in the kept chunk
            assertThat(Io.read(device, middle, 1)).isEqualTo(new byte[4096]);
            assertThat(Io.read(device, last, 1)).isEqualTo(Io.pattern(last, 4096));
            assertThat(millis).isLessThan(1000);
        }
    }

    @Test
    void exhaustedBudgetFailsNewChunksButNotAllocatedOnes() throws Exception {
        MemoryBudget small = new MemoryBudget(2 * CHUNK + CHUNK / 2);
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 1024), false, small)) {
            Io.write(device, 0, Io.pattern(1, 4096));
            Io.write(device, 16, Io.pattern(2, 4096));
            ByteBuf block = Unpooled.directBuffer(4096).writeZero(4096);
            try {
                assertThat(Io.<Void>failureOf(cb -> device.write(32, block, false, cb)))
                        .isEqualTo(BlockError.INSUFFICIENT_RESOURCES);
            } finally {
                block.release();
            }
            assertThat(small.used()).isEqualTo(2 * CHUNK);
            Io.write(device, 1, Io.pattern(3, 4096));        // chunk 0 is there: still writable
            Io.write(device, 31, Io.pattern(4, 4096));       // chunk 1 too
            assertThat(Io.read(device, 1, 1)).isEqualTo(Io.pattern(3, 4096));
            assertThat(Io.read(device, 32, 1)).isEqualTo(new byte[4096]);
            Io.unmap(device, 0, 16);                          // freeing makes room again
            Io.write(device, 32, Io.pattern(5, 4096));
            assertThat(Io.read(device, 32, 1)).isEqualTo(Io.pattern(5, 4096));
        }
        assertThat(small.used()).isZero();
    }

    @Test
    void aReadSliceInFlightSurvivesUnmapAndIsFreedOnRelease() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 64), false, budget)) {
            Io.write(device, 0, Io.pattern(1, 16 * 4096));
            ByteBuf inFlight = Io.await(cb -> device.read(2, 4, cb));
            try {
                Io.unmap(device, 0, 16);
                assertThat(Io.read(device, 2, 4)).isEqualTo(new byte[4 * 4096]);
                Io.write(device, 2, Io.pattern(2, 4 * 4096));   // a new chunk; the slice keeps the old one
                assertThat(budget.used()).isEqualTo(2 * CHUNK);
                byte[] old = java.util.Arrays.copyOfRange(Io.pattern(1, 16 * 4096), 2 * 4096, 6 * 4096);
                assertThat(ByteBufUtil.getBytes(inFlight)).isEqualTo(old);
            } finally {
                inFlight.release();
            }
            assertThat(budget.used()).isEqualTo(CHUNK);
            assertThat(device.allocatedBytes()).isEqualTo(CHUNK);
        }
    }

    @Test
    void aReadAcrossChunksIsACompositeOfSlicesWithoutCopy() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 64), false, budget)) {
            Io.write(device, 0, Io.pattern(1, 16 * 4096));
            Io.write(device, 48, Io.pattern(2, 16 * 4096));
            ByteBuf buf = Io.await(cb -> device.read(8, 48, cb));   // chunk 0 half, 1 and 2 zero, chunk 3 whole
            try {
                assertThat(buf).isInstanceOf(CompositeByteBuf.class);
                CompositeByteBuf composite = (CompositeByteBuf) buf;
                assertThat(composite.numComponents()).isEqualTo(3);         // data, merged zeros, data
                assertThat(composite.component(1).readableBytes()).isEqualTo(2 * CHUNK);
                assertThat(buf.readableBytes()).isEqualTo(48 * 4096);
                assertThat(budget.used()).isEqualTo(2 * CHUNK);             // reading allocated nothing
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void racingFirstWritesToOneChunkAllocateItOnce() throws Exception {
        int threads = 4;
        for (int round = 0; round < 20; round++) {
            try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(512, 512, 128), false, budget)) {
                CyclicBarrier start = new CyclicBarrier(threads);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<?>> futures = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        long lba = t * 32L;
                        futures.add(pool.submit(() -> {
                            start.await();
                            Io.write(device, lba, Io.pattern(lba, 32 * 512));
                            return null;
                        }));
                    }
                    for (Future<?> f : futures) {
                        f.get();
                    }
                } finally {
                    pool.shutdown();
                }
                assertThat(budget.used()).isEqualTo(CHUNK);
                for (long lba = 0; lba < 128; lba += 32) {
                    assertThat(Io.read(device, lba, 32)).isEqualTo(Io.pattern(lba, 32 * 512));
                }
            }
            assertThat(budget.used()).isZero();
        }
    }

    @Test
    void concurrentUnmapAndReadsNeverSeeFreedMemory() throws Exception {
        try (RamBlockDevice device = new RamBlockDevice("r", new BlockGeometry(4096, 4096, 64), false, budget)) {
            byte[] data = new byte[16 * 4096];
            java.util.Arrays.fill(data, (byte) 0x5a);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<?> churn = pool.submit(() -> {
                    for (int i = 0; i < 2000; i++) {
                        Io.write(device, 0, data);
                        Io.unmap(device, 0, 16);
                    }
                    return null;
                });
                Future<?> reader = pool.submit(() -> {
                    while (!churn.isDone()) {
                        byte[] seen = Io.read(device, 0, 16);
                        // Either the data or zeros, block by block (4 KiB is written by one copy per chunk).
                        for (byte b : seen) {
                            assertThat(b == 0 || b == 0x5a).isTrue();
                        }
                    }
                    return null;
                });
                churn.get();
                reader.get();
            } finally {
                pool.shutdown();
            }
        }
        assertThat(budget.used()).isZero();
    }
}
