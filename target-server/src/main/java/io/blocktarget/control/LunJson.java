package io.blocktarget.control;

import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunWriter;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ControlPlane.ApplyResult;
import io.blocktarget.server.ControlPlane.SessionInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API's JSON shapes. A LUN is {@code name} plus the keys of its {@code luns.d/NAME.yaml} document (what POST
 * takes and PATCH patches) plus a read-only {@code status} member: the effective exports (with derived names
 * filled in), capacity in bytes, allocated bytes, commands in flight and the file it lives in.
 */
final class LunJson {
    private LunJson() {
    }

    static JsonObject lun(ControlPlane plane, ControlPlane.LunStatus status) {
        ServerConfig server = plane.serverConfig();
        LunConfig lun = status.config();
        JsonObject json = new JsonObject().put("name", lun.name());
        LunWriter.document(lun, server).forEach(json::put);
        JsonObject state = new JsonObject()
                .put("size-bytes", lun.size())
                .put("block-count", lun.blockCount())
                .put("allocated-bytes", status.allocatedBytes())
                .put("in-flight", status.inFlight())
                .put("state", status.state().label())
                .put("last-error", status.lastError().orElse(null))
                .put("source", Optional.ofNullable(lun.source()).map(Path::toString).orElse(null));
        state.put("iscsi", lun.iscsi().map(e -> new JsonObject().put("target", e.target()).put("lun", e.lun()))
                .orElse(null));
        state.put("nvme", lun.nvme().map(e -> {
            JsonObject nvme = new JsonObject().put("subsystem", e.subsystem()).put("nsid", e.nsid());
            e.uuid().ifPresent(u -> nvme.put("uuid", u.toString()));
            return nvme;
        }).orElse(null));
        state.put("session", session(lun));
        // what hosts of one protocol see differently from the keys, and why (e.g. NVMe's physical block on a file)
        JsonObject caveats = new JsonObject();
        plane.lunState(lun.name()).ifPresent(s -> s.caveats().forEach(caveats::put));
        state.put("caveats", caveats);
        // issue 32: what the LUN's data placement did to the modelled medium (absent without placement:)
        plane.lunState(lun.name()).map(io.blocktarget.block.lun.LunState::placement)
                .ifPresent(p -> state.put("placement", PlacementReport.json(p)));
        return json.put("status", state);
    }

    /** What applies to every session / controller of one target / subsystem, and when a change takes effect. */
    static final String SESSION_APPLIES = "new iSCSI sessions and NVMe controllers; existing ones keep what they"
            + " negotiated (log out and in / reconnect to see a change)";

    /**
     * The effective {@code session:} values (given, else the default) of the LUN's target / subsystem, the protocol
     * each belongs to left out when the LUN is not exported over it, and {@link #SESSION_APPLIES}.
     */
    static JsonObject session(LunConfig lun) {
        JsonObject values = new JsonObject();
        for (io.blocktarget.config.DeviceKnobs.Session k : io.blocktarget.config.DeviceKnobs.Session.values()) {
            if (k.isNvme() ? lun.nvme().isPresent() : lun.iscsi().isPresent()) {
                values.put(k.key(), lun.features().knobs().sessionValue(k));
            }
        }
        return values.put("applies-to", SESSION_APPLIES);
    }

    /** GET /v1/luns: every LUN, and where changes go (the config dir, or memory only). */
    static JsonObject luns(ControlPlane plane) {
        JsonArray luns = new JsonArray();
        ServerConfig server = plane.serverConfig();
        for (ControlPlane.LunStatus status : plane.luns()) {
            luns.add(lun(plane, status));
        }
        Optional<Path> dir = plane.configDir();
        return new JsonObject()
                .put("config-dir", dir.map(Path::toString).orElse(null))
                .put("persistence", dir.isPresent() ? "config-dir" : "memory")
                .put("memory-budget-bytes", plane.memoryBudgetBytes())
                .put("memory-used-bytes", plane.memoryUsedBytes())
                .put("luns", luns);
    }

    static JsonObject session(SessionInfo s) {
        JsonObject parameters = new JsonObject();
        s.parameters().forEach(parameters::put);
        return new JsonObject().put("id", s.id()).put("protocol", s.protocol()).put("initiator", s.initiator())
                .put("target", s.target()).put("connections", new JsonArray(List.copyOf(s.connections())))
                .put("parameters", parameters).put("commands", commands(s.commands()));
    }

    /** Issue 27: {@code {"EXECUTING": 3, "DONE": 1200, ...}}, the transport's command states in their order. */
    static JsonObject commands(Map<String, Long> commands) {
        JsonObject json = new JsonObject();
        commands.forEach(json::put);
        return json;
    }

    static JsonObject sessions(List<SessionInfo> sessions) {
        JsonArray array = new JsonArray();
        sessions.forEach(s -> array.add(session(s)));
        return new JsonObject().put("sessions", array);
    }

    /**
     * What an apply did (or, {@code dry-run}, would do): the LUNs by what happened to them, each changed LUN's keys
     * with their rules ({@code changes}), the steps in order and the warnings.
     */
    static JsonObject applied(ApplyResult r) {
        JsonArray changes = new JsonArray();
        for (io.blocktarget.server.PlanDiff.LunChange c : r.changes()) {
            JsonArray keys = new JsonArray();
            for (io.blocktarget.config.KeyChange k : c.keys()) {
                keys.add(new JsonObject().put("key", k.key()).put("rule", k.rule().label()).put("before", k.before())
                        .put("after", k.after()));
            }
            changes.add(new JsonObject().put("lun", c.lun()).put("action", c.action().label())
                    .put("rule", c.rule().map(io.blocktarget.config.ChangeRule::label).orElse(null)).put("keys", keys));
        }
        return new JsonObject()
                .put("added", new JsonArray(List.copyOf(r.added())))
                .put("removed", new JsonArray(List.copyOf(r.removed())))
                .put("resized", new JsonArray(List.copyOf(r.resized())))
                .put("replaced", new JsonArray(List.copyOf(r.replaced())))
                .put("retuned", new JsonArray(List.copyOf(r.retuned())))
                .put("reexported", new JsonArray(List.copyOf(r.reexported())))
                .put("changed", !r.changedNothing())
                .put("dry-run", r.dryRun())
                .put("changes", changes)
                .put("steps", new JsonArray(List.copyOf(r.steps())))
                .put("warnings", new JsonArray(List.copyOf(r.warnings())));
    }
}
