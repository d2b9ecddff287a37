package io.blocktarget.block.ram;

import io.blocktarget.block.BlockGeometry;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Child JVM of {@link RamBlockDeviceTest#untouched64GiBDiskMeasuredInAFreshJvm}: measures the RSS an
 * untouched 64 GiB RAM disk costs in a JVM doing nothing else (a warmed-up, fixed-size heap so GC
 * noise stays out), after reading all of it. Prints {@code key=value} lines.
 */
public final class SparseMemoryProbe {
    private SparseMemoryProbe() {
    }

    static long rssKiB() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
                .findFirst().orElseThrow();
    }

    public static void main(String[] args) throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 30);
        BlockGeometry geometry = new BlockGeometry(4096, 4096, (64L << 30) / 4096);
        // Warm up the read path on a small disk so class loading and JIT are not counted.
        try (RamBlockDevice warm = new RamBlockDevice("warm", new BlockGeometry(4096, 4096, 1 << 16), false, budget)) {
            readAll(warm);
        }
        System.gc();
        long before = rssKiB();
        long sum;
        try (RamBlockDevice device = new RamBlockDevice("sparse64", geometry, false, budget)) {
            sum = readAll(device);
            System.gc();
            long after = rssKiB();
            System.out.println("allocatedBytes=" + device.allocatedBytes());
            System.out.println("budgetUsed=" + budget.used());
            System.out.println("rssBeforeKiB=" + before);
            System.out.println("rssAfterKiB=" + after);
        }
        System.out.println("nonZeroBytes=" + sum);
    }

    /** Reads the whole device in 1 MiB reads; returns how many non-zero bytes were seen in sampled reads. */
    private static long readAll(RamBlockDevice device) {
        long[] nonZero = {0};
        long blocks = device.geometry().blockCount();
        for (long lba = 0; lba < blocks; lba += 256) {
            boolean sample = (lba & ((1 << 18) - 1)) == 0;   // check the content once per GiB
            device.read(lba, 256, (ByteBuf buf, io.blocktarget.block.BlockIoException failure) -> {
                if (failure != null) {
                    throw new IllegalStateException(failure);
                }
                if (sample) {
                    for (int i = 0; i < buf.readableBytes(); i++) {
                        nonZero[0] += buf.getByte(i) == 0 ? 0 : 1;
                    }
                }
                buf.release();
            });
        }
        return nonZero[0];
    }
}
