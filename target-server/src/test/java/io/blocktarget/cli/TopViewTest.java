package io.blocktarget.cli;

import io.blocktarget.block.lun.CommandStats;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code top}'s arithmetic (rates from two snapshots, quantiles of the interval, resets) and its table. */
class TopViewTest {

    /** A snapshot of one LUN as GET /v1/stats answers it, the nvme side idle. */
    private static JsonObject snapshot(long nanos, String name, long reads, long writes, long bytesRead,
                                       long bytesWritten, long latencySum, long[] buckets, long errors,
                                       long faultHits) {
        JsonArray b = new JsonArray();
        for (long count : buckets) {
            b.add(count);
        }
        JsonArray zero = new JsonArray();
        for (int k = 0; k <= CommandStats.BOUNDS; k++) {
            zero.add(0L);
        }
        JsonObject iscsi = new JsonObject()
                .put("commands", classes(reads, writes, 1))
                .put("errors", classes(errors, 0, 0))
                .put("bytes-read", bytesRead).put("bytes-written", bytesWritten).put("latency-sum-ns", latencySum)
                .put("latency-buckets", b);
        JsonObject nvme = new JsonObject().put("commands", classes(0, 0, 0)).put("errors", classes(0, 0, 0))
                .put("bytes-read", 0L).put("bytes-written", 0L).put("latency-sum-ns", 0L).put("latency-buckets", zero);
        JsonObject lun = new JsonObject().put("name", name).put("in-flight", 3L).put("sessions", 2L)
                .put("fault-hits", faultHits).put("protocols", new JsonObject().put("iscsi", iscsi).put("nvme", nvme));
        return new JsonObject().put("monotonic-nanos", nanos).put("luns", new JsonArray().add(lun));
    }

    private static JsonObject classes(long read, long write, long other) {
        return new JsonObject().put("read", read).put("write", write).put("flush", 0L).put("unmap", 0L)
                .put("other", other);
    }

    private static long[] buckets(int bucket, long count) {
        long[] b = new long[CommandStats.BOUNDS + 1];
        b[bucket] = count;
        return b;
    }

    @Test
    void ratesAreDifferencesOverTheServersInterval() {
        long[] before = buckets(20, 1000);
        long[] after = buckets(20, 1000);
        after[10] = 3000;    // 3000 commands in bucket 10 (22.6 .. 32 µs) during the interval
        after[30] = 100;     // and 100 slower ones (23.2 .. 32.8 ms)
        JsonObject a = snapshot(5_000_000_000L, "ram-4k", 1000, 0, 4096L * 1000, 0, 1_000_000, before, 1, 4);
        JsonObject b = snapshot(7_000_000_000L, "ram-4k", 3000, 1100, 4096L * 3000, 8192L * 1100,
                1_000_000 + 4_000_000_000L, after, 3, 10);
        List<TopView.Row> rows = TopView.rows(a, b);
        assertThat(rows).hasSize(1);
        TopView.Row r = rows.getFirst();
        assertThat(TopView.intervalSeconds(a, b)).isEqualTo(2.0);
        assertThat(r.readsPerSecond()).isEqualTo(1000.0);
        assertThat(r.writesPerSecond()).isEqualTo(550.0);
        assertThat(r.readBytesPerSecond()).isEqualTo(4096.0 * 1000);
        assertThat(r.writeBytesPerSecond()).isEqualTo(8192.0 * 550);
        assertThat(r.queueDepth()).isEqualTo(2.0);    // 4 s of latency in 2 s: two commands in flight on average
        assertThat(r.errors()).isEqualTo(2);
        assertThat(r.faultHits()).isEqualTo(6);
        assertThat(r.inFlight()).isEqualTo(3);
        assertThat(r.sessions()).isEqualTo(2);
        assertThat(r.commands()).containsEntry("read", 2000L).containsEntry("write", 1100L)
                .containsEntry("other", 0L);
        // the interval's histogram: 3000 in bucket 10, 100 in bucket 30 (the 1000 of before are not in it)
        long[] interval = new long[CommandStats.BOUNDS + 1];
        interval[10] = 3000;
        interval[30] = 100;
        assertThat(r.latencyP50Micros()).isEqualTo(CommandStats.quantileNanos(interval, 0.5) / 1e3);
        assertThat(r.latencyP50Micros()).isBetween(CommandStats.boundNanos(9) / 1e3, CommandStats.boundNanos(10) / 1e3);
        assertThat(r.latencyP99Micros()).isBetween(CommandStats.boundNanos(29) / 1e3, CommandStats.boundNanos(30) / 1e3);
    }

    @Test
    void anIdleIntervalHasNoLatencyAndZeroRates() {
        JsonObject a = snapshot(1_000_000_000L, "idle", 5, 5, 0, 0, 100, buckets(3, 10), 0, 0);
        JsonObject b = snapshot(2_000_000_000L, "idle", 5, 5, 0, 0, 100, buckets(3, 10), 0, 0);
        TopView.Row r = TopView.rows(a, b).getFirst();
        assertThat(r.readsPerSecond()).isZero();
        assertThat(r.latencyP50Micros()).isNegative();
        assertThat(r.queueDepth()).isZero();
        JsonObject json = TopView.json(List.of(r), 1.0).getJsonArray("luns").getJsonObject(0);
        assertThat(json.getValue("latency-p50-us")).isNull();
        assertThat(json.containsKey("latency-p99-us")).isTrue();
        assertThat(TopView.table(List.of(r)).get(1)).contains(" - ");
    }

    @Test
    void aCounterThatWentBackIsAReplacedLunCountingFromZero() {
        assertThat(TopView.delta(10, 15)).isEqualTo(5);
        assertThat(TopView.delta(10, 10)).isZero();
        assertThat(TopView.delta(1000, 7)).isEqualTo(7);
        JsonObject a = snapshot(0, "r", 1000, 0, 0, 0, 0, buckets(2, 1000), 0, 9);
        JsonObject b = snapshot(1_000_000_000L, "r", 40, 0, 0, 0, 0, buckets(2, 40), 0, 1);
        TopView.Row r = TopView.rows(a, b).getFirst();
        assertThat(r.readsPerSecond()).isEqualTo(40.0);
        assertThat(r.faultHits()).isEqualTo(1);
    }

    @Test
    void aLunOnlyInTheSecondSnapshotCountsFromZero() {
        JsonObject a = new JsonObject().put("monotonic-nanos", 0L).put("luns", new JsonArray());
        JsonObject b = snapshot(500_000_000L, "new", 50, 0, 0, 0, 0, buckets(4, 50), 0, 0);
        assertThat(TopView.rows(a, b).getFirst().readsPerSecond()).isEqualTo(100.0);
    }

    @Test
    void snapshotsOutOfOrderOrOfAnotherBucketLayoutAreRefused() {
        JsonObject a = snapshot(5, "x", 0, 0, 0, 0, 0, buckets(0, 0), 0, 0);
        assertThatThrownBy(() -> TopView.rows(a, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not later");
        JsonObject b = snapshot(6, "x", 0, 0, 0, 0, 0, buckets(0, 0), 0, 0);
        b.getJsonArray("luns").getJsonObject(0).getJsonObject("protocols").getJsonObject("iscsi")
                .put("latency-buckets", new JsonArray().add(1L));
        assertThatThrownBy(() -> TopView.rows(a, b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 latency buckets");
    }

    @Test
    void theTableIsAHeaderAndOneRightAlignedLinePerLun() {
        TopView.Row busy = new TopView.Row("ram-4k", 123456.75, 0.04, 1024 * 1024 * 482.5, 0, 21.94, 1234.4, 31.5, 32,
                0, 7, 1, java.util.Map.of());
        TopView.Row idle = new TopView.Row("ram-16k-long-name", 0, 0, 0, 0, -1, -1, 0, 0, 2, 0, 0,
                java.util.Map.of());
        List<String> lines = TopView.table(List.of(busy, idle));
        assertThat(lines).containsExactly(
                "LUN                     r/s  w/s  rMiB/s  wMiB/s  p50us  p99us     qd  err  fhit  sess",
                "ram-4k             123456.8  0.0  482.50    0.00   21.9   1234  31.50    0     7     1",
                "ram-16k-long-name       0.0  0.0    0.00    0.00      -      -   0.00    2     0     0");
    }
}
