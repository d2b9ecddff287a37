package io.blocktarget.control;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.LunStats;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceStats;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.server.ControlPlane;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.HdrHistogram.Histogram;

/**
 * The trace aggregates in {@code /metrics}, for every LUN whose trace is on (read at scrape time, like
 * {@link ControlMetrics}' LUN families): {@code blocktarget_lun_trace_commands_total{lun,kind}},
 * {@code blocktarget_lun_trace_io_size_bytes{lun,kind}} (histogram, powers of two from 512 B to 64 MiB),
 * {@code blocktarget_lun_trace_aligned_total{lun,kind,unit}} (unit = lbs, pbs, optimal),
 * {@code blocktarget_lun_trace_queue_depth{lun}} (histogram, powers of two to 1024) and
 * {@code blocktarget_lun_trace_latency_seconds{lun}} (histogram, the buckets of {@code blocktarget_lun_latency_seconds};
 * command latency as the initiator sees it from the device, not the backend's).
 */
final class TraceMetrics {
    static final int SIZE_FIRST = 9;    // 512 B
    static final int SIZE_LAST = 26;    // 64 MiB
    static final int DEPTH_LAST = 10;   // 1024

    private TraceMetrics() {
    }

    static MetricSnapshots snapshots(ControlPlane plane) {
        CounterSnapshot.Builder commands = CounterSnapshot.builder().name("blocktarget_lun_trace_commands")
                .help("commands completed while the LUN's trace is on, by kind");
        HistogramSnapshot.Builder sizes = HistogramSnapshot.builder().name("blocktarget_lun_trace_io_size_bytes")
                .help("bytes addressed per command while the LUN's trace is on, by kind");
        CounterSnapshot.Builder aligned = CounterSnapshot.builder().name("blocktarget_lun_trace_aligned")
                .help("commands whose first byte and length are multiples of the unit (lbs, pbs, optimal transfer)");
        HistogramSnapshot.Builder depth = HistogramSnapshot.builder().name("blocktarget_lun_trace_queue_depth")
                .help("commands in flight on the LUN at each command's arrival, both protocols");
        HistogramSnapshot.Builder latency = HistogramSnapshot.builder().name("blocktarget_lun_trace_latency_seconds")
                .help("command latency, arrival to completion, while the LUN's trace is on");
        double[] sizeBounds = new double[SIZE_LAST - SIZE_FIRST + 2];
        for (int i = SIZE_FIRST; i <= SIZE_LAST; i++) {
            sizeBounds[i - SIZE_FIRST] = 1L << i;
        }
        sizeBounds[sizeBounds.length - 1] = Double.POSITIVE_INFINITY;
        double[] depthBounds = new double[DEPTH_LAST + 2];
        for (int i = 0; i <= DEPTH_LAST; i++) {
            depthBounds[i] = 1L << i;
        }
        depthBounds[depthBounds.length - 1] = Double.POSITIVE_INFINITY;
        double[] latencyBounds = new double[LunStats.BUCKETS + 1];
        for (int i = 0; i < LunStats.BUCKETS; i++) {
            latencyBounds[i] = LunStats.bucketBoundSeconds(i);
        }
        latencyBounds[LunStats.BUCKETS] = Double.POSITIVE_INFINITY;
        for (ControlPlane.LunStatus status : plane.luns()) {
            String lun = status.config().name();
            Tracer tracer = plane.lunState(lun).map(LunState::tracer).orElse(null);
            if (tracer == null) {
                continue;
            }
            TraceStats stats = tracer.stats();
            for (IoKind kind : IoKind.values()) {
                long n = stats.commands(kind);
                if (n == 0) {
                    continue;
                }
                Labels labels = Labels.of("lun", lun, "kind", kind.configName());
                commands.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(n).build());
                long[] buckets = stats.sizeBuckets(kind);
                long[] counts = new long[sizeBounds.length];
                for (int i = 0; i < buckets.length; i++) {
                    counts[Math.clamp(i - SIZE_FIRST, 0, counts.length - 1)] += buckets[i];
                }
                sizes.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(sizeBounds, counts))
                        .sum(stats.bytes(kind)).build());
                for (TraceStats.Unit unit : TraceStats.Unit.values()) {
                    aligned.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(Labels.of("lun", lun, "kind", kind.configName(), "unit", unit.label()))
                            .value(stats.aligned(kind, unit)).build());
                }
            }
            Labels labels = Labels.of("lun", lun);
            Histogram qd = stats.queueDepth();
            depth.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(depthBounds, bucketize(qd, depthBounds, 1)))
                    .sum(qd.getMean() * qd.getTotalCount()).build());
            Histogram lat = stats.latency();
            latency.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(latencyBounds,
                            bucketize(lat, latencyBounds, 1e9)))
                    .sum(lat.getMean() * lat.getTotalCount() / 1e9).build());
        }
        return new MetricSnapshots(commands.build(), sizes.build(), aligned.build(), depth.build(), latency.build());
    }

    /** Per-bucket counts of {@code h} for upper bounds {@code bounds} (in units of {@code scale} of h's values). */
    static long[] bucketize(Histogram h, double[] bounds, double scale) {
        long[] counts = new long[bounds.length];
        long below = 0;
        for (int i = 0; i < bounds.length; i++) {
            long cumulative = Double.isInfinite(bounds[i]) ? h.getTotalCount()
                    : h.getCountBetweenValues(0, (long) Math.floor(bounds[i] * scale));
            counts[i] = Math.max(0, cumulative - below);
            below = Math.max(below, cumulative);
        }
        return counts;
    }
}
