package io.blocktarget.control;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.config.LunConfig;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ControlPlane.SessionInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Objects;

/**
 * {@code GET /v1/stats}: the end-to-end counters of every LUN ({@link CommandStats}) as they are now, with what
 * {@code blocktarget top} shows beside them (commands in flight, fault-rule hits, sessions that reach the LUN). All
 * counters only grow while the LUN's device lives; a client takes two snapshots and divides the differences by the
 * difference of {@code monotonic-nanos}, which comes from the same clock family as the latencies
 * ({@link System#nanoTime}), so the HTTP round trip does not skew the rates.
 */
final class StatsJson {
    private StatsJson() {
    }

    static JsonObject stats(ControlPlane plane, long monotonicNanos) {
        JsonArray bounds = new JsonArray();
        for (int k = 0; k < CommandStats.BOUNDS; k++) {
            bounds.add(CommandStats.boundNanos(k));
        }
        List<SessionInfo> sessions = plane.sessions();
        JsonArray luns = new JsonArray();
        for (ControlPlane.LunStatus status : plane.luns()) {
            LunConfig config = status.config();
            String name = config.name();
            JsonObject lun = new JsonObject().put("name", name).put("in-flight", status.inFlight())
                    .put("sessions", sessionsOf(config, sessions))
                    .put("fault-hits", plane.faults(name).map(f -> f.rules().stream().mapToLong(ActiveRule::hits)
                            .sum()).orElse(0L));
            JsonObject protocols = new JsonObject();
            CommandStats stats = plane.lunState(name).map(s -> s.commandStats()).orElse(null);
            for (CommandStats.Protocol protocol : CommandStats.Protocol.values()) {
                protocols.put(protocol.label(), protocol(stats, protocol));
            }
            luns.add(lun.put("protocols", protocols));
        }
        return new JsonObject().put("monotonic-nanos", monotonicNanos).put("latency-bounds-ns", bounds)
                .put("luns", luns);
    }

    /** One protocol's counters of a LUN; all zero for a LUN without device state (being opened). */
    private static JsonObject protocol(CommandStats stats, CommandStats.Protocol protocol) {
        JsonObject commands = new JsonObject();
        JsonObject errors = new JsonObject();
        for (CommandStats.OpClass opClass : CommandStats.OpClass.values()) {
            commands.put(opClass.label(), stats == null ? 0L : stats.commands(protocol, opClass));
            errors.put(opClass.label(), stats == null ? 0L : stats.errors(protocol, opClass));
        }
        JsonArray buckets = new JsonArray();
        long[] counts = stats == null ? new long[CommandStats.BOUNDS + 1] : stats.latencyBuckets(protocol);
        for (long count : counts) {
            buckets.add(count);
        }
        return new JsonObject().put("commands", commands).put("errors", errors)
                .put("bytes-read", stats == null ? 0L : stats.bytesRead(protocol))
                .put("bytes-written", stats == null ? 0L : stats.bytesWritten(protocol))
                .put("latency-sum-ns", stats == null ? 0L : stats.latencyNanos(protocol))
                .put("latency-buckets", buckets);
    }

    /**
     * Sessions that reach the LUN: iSCSI sessions logged in to its target, NVMe controllers of its subsystem
     * (discovery sessions reach none).
     */
    static long sessionsOf(LunConfig config, List<SessionInfo> sessions) {
        String target = config.iscsi().map(e -> e.target()).orElse(null);
        String subsystem = config.nvme().map(e -> e.subsystem()).orElse(null);
        return sessions.stream().filter(s -> s.protocol().equals("iscsi") ? Objects.equals(s.target(), target)
                : s.protocol().equals("nvme") && Objects.equals(s.target(), subsystem)).count();
    }
}
