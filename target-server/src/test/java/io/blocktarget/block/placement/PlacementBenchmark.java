package io.blocktarget.block.placement;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;

/**
 * What one write costs the media model: a plain main (no JMH), run by hand, never by the test suite —
 * <pre>
 * $MVN -B -ntp -q -o -pl target-server test-compile
 * $JAVA_HOME/bin/java -cp target-server/target/test-classes:target-server/target/classes \
 *     io.blocktarget.block.placement.PlacementBenchmark
 * </pre>
 * Each case is timed in rounds after a warm-up, on a 1 GiB LUN with the default {@code placement:} (so reclaim runs
 * all the time under random writes); it prints the best and the median round in ns per write, with the load average
 * (the machine may be shared: the best round is the cost, the median shows the noise). A LUN without placement pays a
 * null check of a final field instead — nothing to measure here.
 */
public final class PlacementBenchmark {
    private static final int LBS = 4096;
    private static final long BLOCKS = (1L << 30) / LBS;
    private static final int ROUNDS = 7;
    private static final int PER_ROUND = 2_000_000;

    private PlacementBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("load average before: " + loadAverage());
        Placement p = Placement.create(PlacementSpec.DEFAULTS, LBS, BLOCKS, System::currentTimeMillis);
        System.out.printf("geometry: %s%n  tables %.1f MiB (%.2f MiB per GiB of LUN)%n", p.geometry(),
                p.geometry().tableBytes() / 1048576.0, p.geometry().tableBytes() / 1048576.0 / (BLOCKS * LBS >> 30));
        fill(p);
        report("4 KiB random write, 1 thread", time(p, 1, 1, 1));
        report("4 KiB random write, 2 threads on one LUN", time(p, 1, 2, 1));
        report("128 KiB random write (32 blocks), 1 thread", time(p, 32, 1, 32));
        report("4 KiB sequential write, 1 thread", timeSequential(p));
        latencies(p);
        PlacementStats s = p.stats();
        System.out.printf("after: write amplification %.3f, %d units reclaimed%n", s.total().writeAmplification(),
                s.unitsReclaimed());
        System.out.println("load average after: " + loadAverage());
    }

    private static void fill(Placement p) {
        for (long lba = 0; lba < BLOCKS; lba += 256) {
            p.writeHandle(0, lba, 256);
        }
    }

    /** ns per write per round, with {@code threads} threads each writing {@code blocks}-block writes to its own handle. */
    private static double[] time(Placement p, int blocks, int threads, int align) throws Exception {
        long[][] lbas = new long[threads][];
        for (int t = 0; t < threads; t++) {
            SplittableRandom random = new SplittableRandom(t);
            lbas[t] = new long[1 << 20];
            for (int i = 0; i < lbas[t].length; i++) {
                lbas[t][i] = random.nextLong(BLOCKS / align) * align;
            }
        }
        double[] perRound = new double[ROUNDS];
        for (int round = -2; round < ROUNDS; round++) {   // two warm-up rounds
            CyclicBarrier start = new CyclicBarrier(threads + 1);
            CyclicBarrier end = new CyclicBarrier(threads + 1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long[] mine = lbas[t];
                int handle = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < PER_ROUND; i++) {
                            p.writeHandle(handle, mine[i & (mine.length - 1)], blocks);
                        }
                        end.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            start.await();
            long t0 = System.nanoTime();
            end.await();
            long elapsed = System.nanoTime() - t0;
            for (Thread w : workers) {
                w.join();
            }
            if (round >= 0) {
                perRound[round] = (double) elapsed / ((long) PER_ROUND * threads);
            }
        }
        return perRound;
    }

    private static double[] timeSequential(Placement p) {
        double[] perRound = new double[ROUNDS];
        long lba = 0;
        for (int round = -2; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                p.writeHandle(1, lba, 1);
                lba = lba + 1 == BLOCKS ? 0 : lba + 1;
            }
            long elapsed = System.nanoTime() - t0;
            if (round >= 0) {
                perRound[round] = (double) elapsed / PER_ROUND;
            }
        }
        return perRound;
    }

    /**
     * The time single calls take (each timed on its own, so ~20-30 ns of it is nanoTime): a call that triggers a
     * reclaim holds the LUN's monitor while it copies up to a unit's valid data — the tail an event loop can see.
     */
    private static void latencies(Placement p) {
        SplittableRandom random = new SplittableRandom(99);
        long[] ns = new long[PER_ROUND];
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < ns.length; i++) {
                long lba = random.nextLong(BLOCKS);
                long t0 = System.nanoTime();
                p.writeHandle(2, lba, 1);
                ns[i] = System.nanoTime() - t0;
            }
        }
        long slow = 0;
        long slowSum = 0;
        for (long n : ns) {
            if (n > 10_000) {
                slow++;
                slowSum += n;
            }
        }
        Arrays.sort(ns);
        System.out.printf("%-45s %d of %d calls over 10 us, mean %d us (reclaims, and preemption on a busy machine)%n",
                "4 KiB random write, slow calls", slow, ns.length, slow == 0 ? 0 : slowSum / slow / 1000);
        System.out.printf("%-45s p50 %d ns, p99 %d ns, p99.9 %d ns, p99.99 %d ns, max %d ns%n",
                "4 KiB random write, single-call latency", ns[ns.length / 2], ns[(int) (ns.length * 0.99)],
                ns[(int) (ns.length * 0.999)], ns[(int) (ns.length * 0.9999)], ns[ns.length - 1]);
    }

    private static void report(String what, double[] nsPerWrite) {
        double[] sorted = nsPerWrite.clone();
        Arrays.sort(sorted);
        System.out.printf("%-45s best %6.1f ns/write, median %6.1f ns/write%n", what, sorted[0],
                sorted[sorted.length / 2]);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
