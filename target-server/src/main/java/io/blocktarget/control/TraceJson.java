package io.blocktarget.control;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceStats;
import io.blocktarget.block.trace.Tracer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.time.Instant;

/**
 * The JSON of the trace routes: one NDJSON line per record ({@link #record}), {@code {"dropped": N}} for a gap, the
 * trace's state ({@link #status}) and its aggregates ({@link #stats}).
 */
final class TraceJson {
    /** SPC-5 §4.4.2 Table 49, by sense key value. */
    private static final String[] SENSE_KEYS = {"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
        "HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
        "COPY ABORTED", "ABORTED COMMAND", "RESERVED", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED"};

    private TraceJson() {
    }

    static String senseKeyName(int key) {
        return key >= 0 && key < SENSE_KEYS.length ? SENSE_KEYS[key] : "0x" + Integer.toHexString(key);
    }

    static JsonObject record(TraceRecord r) {
        JsonObject json = new JsonObject()
                .put("seq", r.seq())
                .put("time", Instant.ofEpochSecond(0, r.timeNanos()).toString())
                .put("time-ns", r.timeNanos())
                .put("protocol", r.protocol().label())
                .put("initiator", r.initiator())
                .put("connection", r.connection());
        if (r.queue() >= 0) {
            json.put("queue", r.queue());
        }
        json.put("tag", r.tag())
                .put("opcode", String.format("0x%02x", r.opcode()))
                .put("op", r.op())
                .put("kind", r.kind().configName());
        if (r.lba() >= 0) {
            json.put("lba", r.lba());
        }
        json.put("blocks", r.blocks())
                .put("bytes", r.bytes())
                .put("flags", new JsonArray(r.flagNames()))
                .put("qd", r.queueDepth())
                .put("latency-ns", r.latencyNanos())
                .put("status", r.status())
                .put("ok", r.ok());
        if (r.senseKey() >= 0) {
            json.put("sense", new JsonObject().put("key", r.senseKey()).put("key-name", senseKeyName(r.senseKey()))
                    .put("asc", r.asc()).put("ascq", r.ascq()));
        }
        if (r.sct() >= 0) {
            json.put("sct", r.sct()).put("sc", r.sc()).put("dnr", r.dnr());
        }
        if (r.placement() >= 0) {
            json.put("placement", r.placement());
        }
        return json;
    }

    static JsonObject dropped(long count) {
        return new JsonObject().put("dropped", count);
    }

    /** Whether tracing is on, the ring, and how much was recorded ({@code tracer} may be null: never on). */
    static JsonObject status(String lun, Tracer current, Tracer last) {
        JsonObject json = new JsonObject().put("lun", lun).put("enabled", current != null);
        Tracer shown = current != null ? current : last;
        if (shown != null) {
            json.put("ring", shown.ring().capacity())
                    .put("started", shown.started().toString())
                    .put("recorded", shown.ring().recorded())
                    .put("overwritten", shown.ring().overwritten());
        }
        return json;
    }

    static JsonObject stats(String lun, Tracer current, Tracer shown) {
        JsonObject json = status(lun, current, shown);
        TraceStats stats = shown.stats();
        JsonObject units = new JsonObject();
        for (TraceStats.Unit unit : TraceStats.Unit.values()) {
            units.put(unit.label(), stats.unitBytes(unit));
        }
        json.put("alignment-units", units);
        JsonObject kinds = new JsonObject();
        for (IoKind kind : IoKind.values()) {
            long commands = stats.commands(kind);
            if (commands == 0) {
                continue;
            }
            JsonObject k = new JsonObject().put("commands", commands).put("failures", stats.failures(kind))
                    .put("addressing-blocks", stats.sized(kind)).put("bytes", stats.bytes(kind));
            JsonObject sizes = new JsonObject();
            long[] buckets = stats.sizeBuckets(kind);
            for (int i = 0; i < buckets.length; i++) {
                if (buckets[i] > 0) {
                    sizes.put(Long.toString(1L << i), buckets[i]);
                }
            }
            k.put("sizes", sizes);
            JsonObject aligned = new JsonObject();
            for (TraceStats.Unit unit : TraceStats.Unit.values()) {
                aligned.put(unit.label(), stats.aligned(kind, unit));
            }
            k.put("aligned", aligned);
            kinds.put(kind.configName(), k);
        }
        json.put("kinds", kinds);
        Histogram depth = stats.queueDepth();
        JsonObject depthJson = summary(depth);
        JsonObject values = new JsonObject();
        for (HistogramIterationValue v : depth.recordedValues()) {
            values.put(Long.toString(v.getValueIteratedTo()), v.getCountAtValueIteratedTo());
        }
        depthJson.put("values", values);
        json.put("queue-depth", depthJson);
        json.put("latency-ns", summary(stats.latency()).put("p99.9", stats.latency().getValueAtPercentile(99.9)));
        return json;
    }

    private static JsonObject summary(Histogram h) {
        JsonObject json = new JsonObject().put("count", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            json.put("min", h.getMinValue()).put("max", h.getMaxValue()).put("mean", h.getMean())
                    .put("p50", h.getValueAtPercentile(50)).put("p90", h.getValueAtPercentile(90))
                    .put("p99", h.getValueAtPercentile(99));
        }
        return json;
    }
}
