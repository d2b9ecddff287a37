package io.blocktarget.block.lun;

import io.blocktarget.block.lun.CommandStats.OpClass;
import io.blocktarget.block.lun.CommandStats.Protocol;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The end-to-end counters: bucket edges (inclusive, two per power of two), quantiles, and what each record adds. */
class CommandStatsTest {

    @Test
    void boundsAreTwoPerPowerOfTwoFromOneMicrosecondToAboutTwelveSeconds() {
        assertThat(CommandStats.BOUNDS).isEqualTo(48);
        assertThat(CommandStats.boundNanos(0)).isEqualTo(1_000);
        assertThat(CommandStats.boundNanos(1)).isEqualTo(1_414);          // 1000·√2, rounded
        assertThat(CommandStats.boundNanos(2)).isEqualTo(2_000);
        assertThat(CommandStats.boundNanos(20)).isEqualTo(1_024_000);     // 2^10 µs
        assertThat(CommandStats.boundNanos(46)).isEqualTo(1000L << 23);   // 8.388608 s
        assertThat(CommandStats.boundNanos(47)).isEqualTo(11_863_283_203L);
        assertThat(CommandStats.boundSeconds(2)).isEqualTo(2e-6);
        for (int k = 1; k < CommandStats.BOUNDS; k++) {
            assertThat(CommandStats.boundNanos(k)).isGreaterThan(CommandStats.boundNanos(k - 1));
        }
    }

    @Test
    void everyBoundIsInclusiveAndOneNanosecondMoreIsTheNextBucket() {
        assertThat(CommandStats.bucket(0)).isZero();
        assertThat(CommandStats.bucket(1)).isZero();
        assertThat(CommandStats.bucket(-5)).isZero();
        for (int k = 0; k < CommandStats.BOUNDS; k++) {
            long bound = CommandStats.boundNanos(k);
            assertThat(CommandStats.bucket(bound)).as("bound %d", k).isEqualTo(k);
            assertThat(CommandStats.bucket(bound + 1)).as("bound %d + 1", k).isEqualTo(k + 1);
            if (k > 0) {
                assertThat(CommandStats.bucket(bound - 1)).as("bound %d - 1", k).isEqualTo(k);
                assertThat(CommandStats.bucket(CommandStats.boundNanos(k - 1) + 1)).isEqualTo(k);
            }
        }
        // the overflow bucket: past the last bound, up to the largest latency a long holds
        assertThat(CommandStats.bucket(CommandStats.boundNanos(47) + 1)).isEqualTo(CommandStats.BOUNDS);
        assertThat(CommandStats.bucket(Long.MAX_VALUE)).isEqualTo(CommandStats.BOUNDS);
    }

    @Test
    void theFastBucketEqualsALinearScanForEveryMagnitude() {
        for (int shift = 0; shift < 63; shift++) {
            for (long n : new long[] {1L << shift, (1L << shift) - 1, (1L << shift) + 1, (3L << shift) / 2}) {
                if (n <= 0) {
                    continue;
                }
                int expected = 0;
                while (expected < CommandStats.BOUNDS && n > CommandStats.boundNanos(expected)) {
                    expected++;
                }
                assertThat(CommandStats.bucket(n)).as("%d ns", n).isEqualTo(expected);
            }
        }
    }

    @Test
    void quantilesOfAKnownDistribution() {
        long[] buckets = new long[CommandStats.BOUNDS + 1];
        // 100 commands: 90 at ≤ 2 µs (bucket 2: 1.414 .. 2 µs), 9 in bucket 20 (724 µs .. 1.024 ms), 1 in the overflow
        buckets[2] = 90;
        buckets[20] = 9;
        buckets[CommandStats.BOUNDS] = 1;
        // rank 50 of 90 in bucket 2: 1414 + (2000 - 1414) * 50/90
        assertThat(CommandStats.quantileNanos(buckets, 0.5)).isEqualTo(Math.round(1414 + 586 * 50 / 90.0));
        assertThat(CommandStats.quantileNanos(buckets, 0.9)).isEqualTo(2_000);   // the bucket's bound exactly
        // rank 99: the last of bucket 20, its upper bound
        assertThat(CommandStats.quantileNanos(buckets, 0.99)).isEqualTo(1_024_000);
        // rank 99.5 is in the overflow: at least the last bound
        assertThat(CommandStats.quantileNanos(buckets, 0.995)).isEqualTo(CommandStats.boundNanos(47));
        assertThat(CommandStats.quantileNanos(buckets, 0)).isEqualTo(1_414);   // the lowest bucket's lower edge
    }

    @Test
    void aSingleBucketInterpolatesFromZeroAtTheBottom() {
        long[] buckets = new long[CommandStats.BOUNDS + 1];
        buckets[0] = 4;
        assertThat(CommandStats.quantileNanos(buckets, 0.5)).isEqualTo(500);
        assertThat(CommandStats.quantileNanos(buckets, 1.0)).isEqualTo(1_000);
    }

    @Test
    void quantileOfNothingIsMinusOneAndBadArgumentsAreRefused() {
        assertThat(CommandStats.quantileNanos(new long[CommandStats.BOUNDS + 1], 0.5)).isEqualTo(-1);
        assertThatThrownBy(() -> CommandStats.quantileNanos(new long[CommandStats.BOUNDS], 0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("49 buckets");
        assertThatThrownBy(() -> CommandStats.quantileNanos(new long[CommandStats.BOUNDS + 1], 1.01))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CommandStats.quantileNanos(new long[CommandStats.BOUNDS + 1], Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordCountsByProtocolAndClassBytesOnlyOnSuccess() {
        CommandStats stats = new CommandStats();
        stats.record(Protocol.ISCSI, OpClass.READ, 1_500, 4096, true);
        stats.record(Protocol.ISCSI, OpClass.READ, 3_000, 4096, false);
        stats.record(Protocol.ISCSI, OpClass.WRITE, 10_000, 8192, true);
        stats.record(Protocol.NVME, OpClass.WRITE, 20_000, 512, true);
        stats.record(Protocol.NVME, OpClass.FLUSH, -7, 0, true);   // a clock that stepped back: counted as 0

        assertThat(stats.commands(Protocol.ISCSI, OpClass.READ)).isEqualTo(2);
        assertThat(stats.errors(Protocol.ISCSI, OpClass.READ)).isEqualTo(1);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.WRITE)).isEqualTo(1);
        assertThat(stats.commands(Protocol.NVME, OpClass.READ)).isZero();
        assertThat(stats.commands(Protocol.NVME, OpClass.FLUSH)).isEqualTo(1);
        assertThat(stats.bytesRead(Protocol.ISCSI)).isEqualTo(4096);
        assertThat(stats.bytesWritten(Protocol.ISCSI)).isEqualTo(8192);
        assertThat(stats.bytesWritten(Protocol.NVME)).isEqualTo(512);
        assertThat(stats.latencyNanos(Protocol.ISCSI)).isEqualTo(14_500);
        assertThat(stats.latencyNanos(Protocol.NVME)).isEqualTo(20_000);

        long[] iscsi = stats.latencyBuckets(Protocol.ISCSI);
        assertThat(iscsi).hasSize(CommandStats.BOUNDS + 1);
        assertThat(iscsi[CommandStats.bucket(1_500)]).isEqualTo(1);
        assertThat(iscsi[CommandStats.bucket(3_000)]).isEqualTo(1);
        assertThat(iscsi[CommandStats.bucket(10_000)]).isEqualTo(1);
        assertThat(stats.latencyBuckets(Protocol.NVME)[0]).isEqualTo(1);
    }

    /**
     * Per-thread shards: threads record concurrently while a reader sums; each read is never above what was
     * recorded by then in total, and once the writers ended (their shards folded in by the reads) every count is exact
     * — none lost to a thread that ended, none counted twice.
     */
    @Test
    void shardsOfManyThreadsSumExactlyAfterTheyEnd() throws Exception {
        CommandStats stats = new CommandStats();
        int threads = 6;
        int each = 50_000;
        Thread[] writers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            boolean nvme = t % 2 == 0;
            writers[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    stats.record(nvme ? CommandStats.Protocol.NVME : CommandStats.Protocol.ISCSI,
                            CommandStats.OpClass.READ, 1500, 4096, i % 10 != 0);
                }
            });
        }
        long last = 0;
        boolean running = true;
        while (running) {
            running = false;
            for (Thread w : writers) {
                running |= w.isAlive();
            }
            long now = stats.commands(CommandStats.Protocol.NVME, CommandStats.OpClass.READ);
            assertThat(now).isBetween(last, (long) threads / 2 * each);
            last = now;
        }
        for (Thread w : writers) {
            w.join();
        }
        for (CommandStats.Protocol p : CommandStats.Protocol.values()) {
            long n = (long) threads / 2 * each;
            assertThat(stats.commands(p, CommandStats.OpClass.READ)).isEqualTo(n);
            assertThat(stats.errors(p, CommandStats.OpClass.READ)).isEqualTo(n / 10);
            assertThat(stats.bytesRead(p)).isEqualTo((n - n / 10) * 4096);
            assertThat(stats.latencyNanos(p)).isEqualTo(n * 1500);
            assertThat(java.util.Arrays.stream(stats.latencyBuckets(p)).sum()).isEqualTo(n);
            assertThat(stats.latencyBuckets(p)[CommandStats.bucket(1500)]).isEqualTo(n);
        }
        // read again: the ended threads' shards were folded once, not again
        assertThat(stats.commands(CommandStats.Protocol.NVME, CommandStats.OpClass.READ)).isEqualTo(
                (long) threads / 2 * each);
    }
}
