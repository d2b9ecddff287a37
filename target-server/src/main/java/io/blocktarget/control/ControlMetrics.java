package io.blocktarget.control;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.LunStats;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.FaultRuleConfig;
import io.blocktarget.server.ControlPlane;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code GET /metrics} in the Prometheus text format, written by Micrometer's Prometheus registry. Server-wide values
 * are Micrometer gauges; the per-LUN families are read at scrape time from {@link LunStats} (the I/O path only adds
 * to LongAdders) through a collector on the registry, because LUNs come and go at runtime and a histogram whose
 * buckets are counted elsewhere is not something Micrometer meters can express.
 *
 * <p>Families: {@code blocktarget_lun_ops_total{lun,op}}, {@code blocktarget_lun_bytes_total{lun,direction}},
 * {@code blocktarget_lun_errors_total{lun,kind}}, {@code blocktarget_lun_latency_seconds{lun,op}} (backend latency:
 * histogram, log2 buckets 1 µs .. ~8.4 s); end to end, from the command sets' {@link CommandStats}:
 * {@code blocktarget_lun_commands_total{lun,protocol,class}}, {@code blocktarget_lun_command_errors_total{..}},
 * {@code blocktarget_lun_command_bytes_total{lun,protocol,direction}} and
 * {@code blocktarget_lun_command_latency_seconds{lun,protocol}} (histogram, two buckets per power of two, 1 µs ..
 * ~11.9 s); {@code blocktarget_lun_size_bytes}, {@code blocktarget_lun_allocated_bytes},
 * {@code blocktarget_lun_in_flight}, {@code blocktarget_lun_fault_hits_total{lun,rule,action}} and
 * {@code blocktarget_lun_fault_matched_total{lun,rule,action}} (per fault rule, while it exists),
 * {@code blocktarget_sessions{protocol}}, {@code blocktarget_luns}, {@code blocktarget_memory_budget_bytes},
 * {@code blocktarget_memory_used_bytes}, {@code blocktarget_commands{protocol,state}}; the build, process and JVM families of {@link RuntimeMetrics}; the trace
 * families of {@link TraceMetrics}; the data placement families of {@link PlacementReport}.
 */
final class ControlMetrics implements AutoCloseable {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RuntimeMetrics runtime = new RuntimeMetrics(registry);

    ControlMetrics(ControlPlane plane) {
        for (String protocol : List.of("iscsi", "nvme")) {
            Gauge.builder("blocktarget.sessions", plane, p -> p.sessions().stream()
                            .filter(s -> s.protocol().equals(protocol)).count())
                    .description("iSCSI sessions / NVMe controllers connected, discovery ones included")
                    .tag("protocol", protocol).register(registry);
        }
        Gauge.builder("blocktarget.luns", plane, p -> p.luns().size()).description("LUNs served").register(registry);
        Gauge.builder("blocktarget.memory.budget", plane, ControlPlane::memoryBudgetBytes).baseUnit("bytes")
                .description("bytes all RAM disks may allocate together").register(registry);
        Gauge.builder("blocktarget.memory.used", plane, ControlPlane::memoryUsedBytes).baseUnit("bytes")
                .description("bytes the RAM disks hold now").register(registry);
        registry.getPrometheusRegistry().register((MultiCollector) () -> lunSnapshots(plane));
        registry.getPrometheusRegistry().register((MultiCollector) () -> TraceMetrics.snapshots(plane));
        registry.getPrometheusRegistry().register((MultiCollector) () -> commandSnapshots(plane));
        registry.getPrometheusRegistry().register((MultiCollector) () -> PlacementReport.snapshots(plane));
    }

    /**
     * {@code blocktarget_commands{protocol,state}} (issue 27): the commands of the sessions connected now, summed per
     * protocol and state of its transport's command machine. A final state (DONE, ABORTED) counts every command those
     * sessions ended, any other state the commands in it now; read from the per-connection counters at scrape time.
     */
    static MetricSnapshots commandSnapshots(ControlPlane plane) {
        java.util.Map<String, java.util.Map<String, Long>> byProtocol = new java.util.TreeMap<>();
        for (ControlPlane.SessionInfo s : plane.sessions()) {
            java.util.Map<String, Long> sum = byProtocol.computeIfAbsent(s.protocol(),
                    p -> new java.util.LinkedHashMap<>());
            s.commands().forEach((state, n) -> sum.merge(state, n, Long::sum));
        }
        GaugeSnapshot.Builder commands = GaugeSnapshot.builder().name("blocktarget_commands")
                .help("commands of the connected sessions by protocol and state (DONE / ABORTED: ended so far)");
        byProtocol.forEach((protocol, states) -> states.forEach((state, n) -> commands.dataPoint(
                GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("protocol", protocol, "state", state))
                        .value(n).build())));
        return MetricSnapshots.of(commands.build());
    }

    String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        runtime.close();
        registry.close();
    }

    private static MetricSnapshots lunSnapshots(ControlPlane plane) {
        CounterSnapshot.Builder ops = CounterSnapshot.builder().name("blocktarget_lun_ops")
                .help("block operations completed, by LUN and operation");
        CounterSnapshot.Builder bytes = CounterSnapshot.builder().name("blocktarget_lun_bytes")
                .help("bytes read and written successfully, by LUN");
        CounterSnapshot.Builder errors = CounterSnapshot.builder().name("blocktarget_lun_errors")
                .help("block operations failed, by LUN and kind (the block layer's error, before SCSI/NVMe mapping)");
        HistogramSnapshot.Builder latency = HistogramSnapshot.builder().name("blocktarget_lun_latency_seconds")
                .help("backend latency of block operations, by LUN and operation");
        GaugeSnapshot.Builder size = GaugeSnapshot.builder().name("blocktarget_lun_size_bytes").help("LUN capacity");
        GaugeSnapshot.Builder allocated = GaugeSnapshot.builder().name("blocktarget_lun_allocated_bytes")
                .help("backend memory or file space in use");
        GaugeSnapshot.Builder inFlight = GaugeSnapshot.builder().name("blocktarget_lun_in_flight")
                .help("commands executing now, both protocols");
        CounterSnapshot.Builder faultHits = CounterSnapshot.builder().name("blocktarget_lun_fault_hits")
                .help("commands a fault rule acted on, by LUN, rule and action (a rule's series ends when it is removed)");
        CounterSnapshot.Builder faultMatched = CounterSnapshot.builder().name("blocktarget_lun_fault_matched")
                .help("commands that matched a fault rule's selectors, whether or not its trigger fired");
        HistogramSnapshot.Builder commandLatency = HistogramSnapshot.builder()
                .name("blocktarget_lun_command_latency_seconds")
                .help("end-to-end command latency (arrival at the command set to completion), by LUN and protocol");
        CounterSnapshot.Builder commands = CounterSnapshot.builder().name("blocktarget_lun_commands")
                .help("commands completed, by LUN, protocol and opcode class");
        CounterSnapshot.Builder commandErrors = CounterSnapshot.builder().name("blocktarget_lun_command_errors")
                .help("commands completed with an error status, by LUN, protocol and opcode class");
        CounterSnapshot.Builder commandBytes = CounterSnapshot.builder().name("blocktarget_lun_command_bytes")
                .help("bytes moved by successful read and write commands, by LUN, protocol and direction");
        double[] commandBounds = new double[CommandStats.BOUNDS + 1];
        for (int k = 0; k < CommandStats.BOUNDS; k++) {
            commandBounds[k] = CommandStats.boundSeconds(k);
        }
        commandBounds[CommandStats.BOUNDS] = Double.POSITIVE_INFINITY;
        double[] bounds = new double[LunStats.BUCKETS + 1];
        for (int i = 0; i < LunStats.BUCKETS; i++) {
            bounds[i] = LunStats.bucketBoundSeconds(i);
        }
        bounds[LunStats.BUCKETS] = Double.POSITIVE_INFINITY;
        for (ControlPlane.LunStatus status : plane.luns()) {
            String lun = status.config().name();
            size.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("lun", lun))
                    .value(status.config().size()).build());
            allocated.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("lun", lun))
                    .value(status.allocatedBytes()).build());
            inFlight.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("lun", lun))
                    .value(status.inFlight()).build());
            plane.faults(lun).ifPresent(faults -> {
                for (ActiveRule rule : faults.rules()) {
                    Labels labels = Labels.of("lun", lun, "rule", rule.rule().id(), "action", actionName(rule));
                    faultHits.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                            .value(rule.hits()).build());
                    faultMatched.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                            .value(rule.matched()).build());
                }
            });
            plane.lunState(lun).map(LunState::commandStats).ifPresent(stats -> {
                for (CommandStats.Protocol protocol : CommandStats.Protocol.values()) {
                    String p = protocol.label();
                    commandLatency.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                            .labels(Labels.of("lun", lun, "protocol", p))
                            .classicHistogramBuckets(ClassicHistogramBuckets.of(commandBounds,
                                    stats.latencyBuckets(protocol)))
                            .sum(stats.latencyNanos(protocol) / 1e9).build());
                    for (CommandStats.OpClass opClass : CommandStats.OpClass.values()) {
                        Labels labels = Labels.of("class", opClass.label(), "lun", lun, "protocol", p);
                        commands.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                                .value(stats.commands(protocol, opClass)).build());
                        commandErrors.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                                .value(stats.errors(protocol, opClass)).build());
                    }
                    commandBytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(Labels.of("direction", "read", "lun", lun, "protocol", p))
                            .value(stats.bytesRead(protocol)).build());
                    commandBytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(Labels.of("direction", "write", "lun", lun, "protocol", p))
                            .value(stats.bytesWritten(protocol)).build());
                }
            });
            Optional<LunStats> found = LunStats.find(lun);
            if (found.isEmpty()) {
                continue;
            }
            LunStats stats = found.get();
            for (LunStats.Op op : LunStats.Op.values()) {
                Labels labels = Labels.of("lun", lun, "op", op.label());
                ops.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(stats.ops(op))
                        .build());
                latency.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, stats.latencyBuckets(op)))
                        .sum(stats.latencyNanos(op) / 1e9).build());
            }
            bytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(Labels.of("lun", lun, "direction", "read")).value(stats.bytesRead()).build());
            bytes.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(Labels.of("lun", lun, "direction", "write")).value(stats.bytesWritten()).build());
            for (BlockError error : BlockError.values()) {
                errors.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of("lun", lun, "kind", error.name().toLowerCase(Locale.ROOT).replace('_', '-')))
                        .value(stats.errors(error)).build());
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>(List.of(ops.build(), bytes.build(), errors.build(),
                latency.build(), size.build(), allocated.build(), inFlight.build(), faultHits.build(),
                faultMatched.build(), commands.build(), commandErrors.build(), commandBytes.build(),
                commandLatency.build()));
        return new MetricSnapshots(snapshots);
    }

    /** The rule's {@code action:} as a LUN file spells it. */
    static String actionName(ActiveRule rule) {
        if (rule.origin() instanceof FaultRuleConfig config) {
            return config.action().configName();
        }
        return rule.rule().action().getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1-$2")
                .toLowerCase(Locale.ROOT);
    }
}
