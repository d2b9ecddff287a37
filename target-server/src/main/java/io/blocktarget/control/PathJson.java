package io.blocktarget.control;

import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ExportPlan;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The JSON of the path routes (issue 29): the server's portals and the state of every LUN on each, as
 * {@code blocktarget path list --json} prints them.
 */
final class PathJson {
    private PathJson() {
    }

    /** {@code GET /v1/paths}: every portal and every path; with {@code lun}, that LUN's paths only. */
    static JsonObject paths(ControlPlane plane, String lun) {
        JsonArray portals = new JsonArray();
        for (ExportPlan.PortalSpec p : plane.portals()) {
            portals.add(new JsonObject().put("name", p.name()).put("id", p.id()).put("address", p.address())
                    .put("iscsi-port", p.iscsiPort()).put("nvme-port", p.nvmePort()));
        }
        JsonArray paths = new JsonArray();
        plane.paths().stream().filter(p -> lun == null || p.lun().equals(lun)).forEach(p -> paths.add(path(p)));
        JsonObject json = new JsonObject();
        if (lun != null) {
            json.put("lun", lun);
        }
        return json.put("portals", portals).put("paths", paths);
    }

    static JsonObject path(ControlPlane.PathStatus p) {
        return new JsonObject().put("lun", p.lun()).put("portal", p.portal()).put("portal-id", p.portalId())
                .put("state", p.state()).put("configured", p.configured()).put("origin", p.origin());
    }

    /** The names of the server's portals, as a refusal lists them. */
    static String portalNames(ControlPlane plane) {
        List<String> names = plane.portals().stream().map(ExportPlan.PortalSpec::name).toList();
        return String.join(", ", names);
    }
}
