package io.blocktarget.cli;

import io.blocktarget.block.lun.CommandStats;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code blocktarget top} shows, computed from two {@code GET /v1/stats} snapshots: per LUN the rates of the
 * interval between them (the differences of the counters over the difference of the server's monotonic clock), the
 * latency quantiles of the commands completed in the interval (from the difference of the latency histograms), the
 * average queue depth (the rate of the latency sum, Little's law — {@code iostat}'s aqu-sz), and the errors and
 * fault-rule hits of the interval. Pure: no I/O, so the arithmetic and the table are tested on their own.
 *
 * <p>A counter smaller in the second snapshot than in the first belongs to a LUN replaced in between (its device's
 * counters started again from zero): the second value is then the interval's.
 */
final class TopView {
    private static final double MIB = 1024.0 * 1024.0;
    private static final String[] CLASSES = {"read", "write", "flush", "unmap", "other"};

    private TopView() {
    }

    /**
     * One LUN over one interval.
     *
     * @param latencyP50Micros p50 of the interval's commands in µs; negative when none completed
     * @param queueDepth       average commands in flight over the interval (both protocols)
     * @param inFlight         commands in flight at the second snapshot
     * @param commands         commands completed in the interval by opcode class (both protocols)
     */
    record Row(String name, double readsPerSecond, double writesPerSecond, double readBytesPerSecond,
               double writeBytesPerSecond, double latencyP50Micros, double latencyP99Micros, double queueDepth,
               long inFlight, long errors, long faultHits, long sessions, Map<String, Long> commands) {
    }

    /** The interval between two snapshots in seconds (the server's clock). */
    static double intervalSeconds(JsonObject before, JsonObject after) {
        return (after.getLong("monotonic-nanos") - before.getLong("monotonic-nanos")) / 1e9;
    }

    /** The rows of the LUNs of {@code after}, in its order; a LUN only in {@code after} counts from zero. */
    static List<Row> rows(JsonObject before, JsonObject after) {
        double seconds = intervalSeconds(before, after);
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("the second snapshot is not later than the first");
        }
        Map<String, JsonObject> earlier = new HashMap<>();
        JsonArray beforeLuns = before.getJsonArray("luns");
        for (int i = 0; i < beforeLuns.size(); i++) {
            earlier.put(beforeLuns.getJsonObject(i).getString("name"), beforeLuns.getJsonObject(i));
        }
        List<Row> rows = new ArrayList<>();
        JsonArray luns = after.getJsonArray("luns");
        for (int i = 0; i < luns.size(); i++) {
            JsonObject now = luns.getJsonObject(i);
            JsonObject then = earlier.getOrDefault(now.getString("name"), new JsonObject());
            rows.add(row(then, now, seconds));
        }
        return rows;
    }

    private static Row row(JsonObject then, JsonObject now, double seconds) {
        Map<String, Long> commands = new java.util.LinkedHashMap<>();
        for (String c : CLASSES) {
            commands.put(c, 0L);
        }
        long errors = 0;
        long bytesRead = 0;
        long bytesWritten = 0;
        long latencySum = 0;
        long[] buckets = new long[CommandStats.BOUNDS + 1];
        JsonObject protocolsNow = now.getJsonObject("protocols");
        JsonObject protocolsThen = then.getJsonObject("protocols", new JsonObject());
        for (String protocol : protocolsNow.fieldNames()) {
            JsonObject p = protocolsNow.getJsonObject(protocol);
            JsonObject q = protocolsThen.getJsonObject(protocol, new JsonObject());
            for (String c : CLASSES) {
                commands.merge(c, delta(q.getJsonObject("commands", new JsonObject()).getLong(c, 0L),
                        p.getJsonObject("commands").getLong(c, 0L)), Long::sum);
                errors += delta(q.getJsonObject("errors", new JsonObject()).getLong(c, 0L),
                        p.getJsonObject("errors").getLong(c, 0L));
            }
            bytesRead += delta(q.getLong("bytes-read", 0L), p.getLong("bytes-read"));
            bytesWritten += delta(q.getLong("bytes-written", 0L), p.getLong("bytes-written"));
            latencySum += delta(q.getLong("latency-sum-ns", 0L), p.getLong("latency-sum-ns"));
            JsonArray b = p.getJsonArray("latency-buckets");
            JsonArray a = q.getJsonArray("latency-buckets", new JsonArray());
            if (b.size() != buckets.length) {
                throw new IllegalArgumentException("the server sent " + b.size() + " latency buckets, this client"
                        + " knows " + buckets.length + ": use the blocktarget of the server's version");
            }
            for (int k = 0; k < buckets.length; k++) {
                buckets[k] += delta(a.size() == buckets.length ? a.getLong(k) : 0L, b.getLong(k));
            }
        }
        long p50 = CommandStats.quantileNanos(buckets, 0.50);
        long p99 = CommandStats.quantileNanos(buckets, 0.99);
        return new Row(now.getString("name"), commands.get("read") / seconds, commands.get("write") / seconds,
                bytesRead / seconds, bytesWritten / seconds, p50 < 0 ? -1 : p50 / 1e3, p99 < 0 ? -1 : p99 / 1e3,
                latencySum / 1e9 / seconds, now.getLong("in-flight", 0L),
                errors, delta(then.getLong("fault-hits", 0L), now.getLong("fault-hits", 0L)),
                now.getLong("sessions", 0L), commands);
    }

    /** The increase of a counter; a counter that went back started again from zero (a replaced LUN). */
    static long delta(long before, long after) {
        return after >= before ? after - before : after;
    }

    /** The table, {@code iostat -x} style: a header line and one line per LUN, columns right-aligned. */
    static List<String> table(List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"LUN", "r/s", "w/s", "rMiB/s", "wMiB/s", "p50us", "p99us", "qd", "err", "fhit",
            "sess"});
        for (Row r : rows) {
            cells.add(new String[] {r.name(), fixed(r.readsPerSecond(), 1), fixed(r.writesPerSecond(), 1),
                fixed(r.readBytesPerSecond() / MIB, 2), fixed(r.writeBytesPerSecond() / MIB, 2),
                micros(r.latencyP50Micros()), micros(r.latencyP99Micros()), fixed(r.queueDepth(), 2),
                Long.toString(r.errors()), Long.toString(r.faultHits()), Long.toString(r.sessions())});
        }
        int[] widths = new int[cells.getFirst().length];
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : cells) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                if (i == 0) {
                    line.append(row[i]).append(" ".repeat(widths[i] - row[i].length()));
                } else {
                    line.append("  ").append(" ".repeat(widths[i] - row[i].length())).append(row[i]);
                }
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** The rows as {@code top --json} prints them: rates per second, latencies in µs (null: no command). */
    static JsonObject json(List<Row> rows, double intervalSeconds) {
        JsonArray luns = new JsonArray();
        for (Row r : rows) {
            JsonObject commands = new JsonObject();
            r.commands().forEach(commands::put);
            luns.add(new JsonObject().put("name", r.name())
                    .put("reads-per-second", r.readsPerSecond()).put("writes-per-second", r.writesPerSecond())
                    .put("read-bytes-per-second", r.readBytesPerSecond())
                    .put("write-bytes-per-second", r.writeBytesPerSecond())
                    .put("latency-p50-us", r.latencyP50Micros() < 0 ? null : r.latencyP50Micros())
                    .put("latency-p99-us", r.latencyP99Micros() < 0 ? null : r.latencyP99Micros())
                    .put("queue-depth", r.queueDepth()).put("in-flight", r.inFlight())
                    .put("errors", r.errors()).put("fault-hits", r.faultHits()).put("sessions", r.sessions())
                    .put("commands", commands));
        }
        return new JsonObject().put("interval-seconds", intervalSeconds).put("luns", luns);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** A latency in µs: one decimal below 100 µs, whole µs above; "-" when no command completed. */
    private static String micros(double value) {
        if (value < 0) {
            return "-";
        }
        return value < 100 ? fixed(value, 1) : fixed(value, 0);
    }
}
