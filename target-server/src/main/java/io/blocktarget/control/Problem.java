package io.blocktarget.control;

import io.blocktarget.config.ConfigProblem;
import io.blocktarget.server.ControlPlane.ControlException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * An RFC 9457 problem detail: {@code type}, {@code title}, {@code status}, {@code detail}, and the extension members
 * {@code field} (the request member at fault, dotted for nested LUN keys such as {@code export.nvme.nsid}; absent
 * when the body as a whole is wrong) and {@code invalid-params} (every problem, RFC 9457 §3's example extension).
 *
 * @param type   a URI naming the kind of problem ({@code urn:blocktarget:problem:...})
 * @param params one entry per problem: the field and why
 */
record Problem(int status, String type, String title, String detail, String field, List<Param> params) {
    static final String CONTENT_TYPE = "application/problem+json";

    /** One invalid parameter: the field (null: the body) and the reason. */
    record Param(String name, String reason) {
    }

    static Problem of(int status, String kind, String title, String detail, String field) {
        return new Problem(status, "urn:blocktarget:problem:" + kind, title, detail, field,
                field == null ? List.of() : List.of(new Param(field, detail)));
    }

    /**
     * Every problem of a LUN definition (or, {@code withFiles}, of a config directory): 400, {@code field} = the
     * first problem's key.
     *
     * @param withFiles reasons name file and line ({@code file:line: key: ...}), as for a reload of the directory
     */
    static Problem invalid(String title, List<ConfigProblem> problems, boolean withFiles) {
        List<Param> params = problems.stream()
                .map(p -> new Param(field(p.key()), withFiles ? p.toString() : reason(p))).toList();
        String detail = problems.size() == 1 ? params.getFirst().reason()
                : problems.size() + " problems; the first: " + params.getFirst().reason();
        return new Problem(400, "urn:blocktarget:problem:invalid", title, detail, params.getFirst().name(), params);
    }

    /** A problem as a reason: the key is the field; the file (a LUN file or the request) is left out. */
    private static String reason(ConfigProblem p) {
        String key = p.key() == null || p.key().isEmpty() ? "" : p.key() + ": ";
        return key + p.message();
    }

    /** A config key as a request field: {@code file name} is the JSON body's {@code name}; "" is the whole body. */
    static String field(String key) {
        if (key == null || key.isEmpty()) {
            return null;
        }
        return key.equals("file name") ? "name" : key;
    }

    static Problem of(ControlException e) {
        int status = switch (e.kind()) {
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case INVALID -> 400;
            case UNAVAILABLE -> 503;
            case NEEDS_FORCE -> 409;
        };
        String title = switch (e.kind()) {
            case NOT_FOUND -> "No such LUN";
            case CONFLICT -> "Conflict";
            case INVALID -> "Refused by the server";
            case UNAVAILABLE -> "Not possible now";
            case NEEDS_FORCE -> "Loses data: needs force";
        };
        // a refusal to lose data names its LUNs itself ("replaces LUN t16: ...")
        String detail = e.lun() == null || e.kind() == ControlException.Kind.NEEDS_FORCE ? e.getMessage()
                : "LUN " + e.lun() + ": " + e.getMessage();
        return of(status, e.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), title, detail,
                e.key());
    }

    JsonObject toJson() {
        JsonObject json = new JsonObject().put("type", type).put("title", title).put("status", status)
                .put("detail", detail);
        if (field != null) {
            json.put("field", field);
        }
        if (!params.isEmpty()) {
            JsonArray array = new JsonArray();
            for (Param p : params) {
                JsonObject entry = new JsonObject();
                if (p.name() != null) {
                    entry.put("name", p.name());
                }
                array.add(entry.put("reason", p.reason()));
            }
            json.put("invalid-params", array);
        }
        return json;
    }

    /** Thrown inside the control layer to answer with this problem. */
    static final class Failure extends Exception {
        private final Problem problem;

        Failure(Problem problem) {
            super(problem.detail(), null, false, false);
            this.problem = problem;
        }

        Problem problem() {
            return problem;
        }
    }

    Failure failure() {
        return new Failure(this);
    }
}
