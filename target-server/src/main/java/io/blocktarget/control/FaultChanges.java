package io.blocktarget.control;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.FaultRuleConfig;
import io.blocktarget.config.FaultWriter;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.FaultRules;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * {@code /v1/luns/{name}/faults}: a LUN's fault rules at runtime (issue 11). Rules added here act at once on both
 * protocols and live in memory only — they are not written to luns.d (a reload or restart brings back the file's);
 * the body is one entry of a LUN file's {@code faults:} list, checked by the same reader.
 */
final class FaultChanges {
    private static final Logger LOG = System.getLogger("blocktarget.control");

    private final ControlPlane plane;

    FaultChanges(ControlPlane plane) {
        this.plane = plane;
    }

    JsonObject list(String name) throws Problem.Failure {
        LunFaults faults = faults(name);
        JsonArray rules = new JsonArray();
        faults.rules().forEach(r -> rules.add(json(name, r)));
        return new JsonObject().put("lun", name).put("faults", rules).put("held", faults.holds().size());
    }

    JsonObject add(String name, JsonObject body) throws Problem.Failure {
        LunFaults faults = faults(name);
        FaultRuleConfig config;
        try {
            config = ConfigLoader.readFaultRule(body.encode(), faults.nextId());
        } catch (ConfigException e) {
            throw Problem.invalid("Invalid fault rule", e.problems(), false).failure();
        }
        List<String> portals = plane.portals().stream().map(io.blocktarget.server.ExportPlan.PortalSpec::name).toList();
        if (config.portal().isPresent() && !portals.contains(config.portal().get())) {
            throw Problem.of(400, "invalid", "Invalid fault rule", "portal: " + config.portal().get() + " is not a"
                    + " portal of blocktarget.yaml; allowed: " + String.join(", ", portals), "portal").failure();
        }
        ActiveRule rule;
        try {
            rule = faults.add(FaultRules.of(config, portals), config);
        } catch (IllegalArgumentException e) {
            throw Problem.of(409, "conflict", "Fault rule exists", "id: " + e.getMessage()
                    + "; allowed: an id not in use, or no id", "id").failure();
        }
        LOG.log(Level.INFO, "LUN {0}: fault rule {1} added: {2}", name, config.id(), FaultWriter.document(config));
        return json(name, rule);
    }

    void remove(String name, String id) throws Problem.Failure {
        if (!faults(name).remove(id)) {
            throw Problem.of(404, "not-found", "No such fault rule", "LUN " + name + " has no fault rule " + id, null)
                    .failure();
        }
        LOG.log(Level.INFO, "LUN {0}: fault rule {1} removed", name, id);
    }

    private LunFaults faults(String name) throws Problem.Failure {
        return plane.faults(name).orElseThrow(() -> LunChanges.notFound(name).failure());
    }

    static JsonObject json(String lun, ActiveRule r) {
        JsonObject rule = r.origin() instanceof FaultRuleConfig c ? new JsonObject(FaultWriter.document(c))
                : new JsonObject().put("id", r.rule().id()).put("rule", r.rule().toString());
        return rule.put("lun", lun).put("hits", r.hits()).put("matched", r.matched())
                .put("notApplicable", r.notApplicable());
    }
}
