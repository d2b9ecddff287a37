package io.blocktarget.control;

import io.blocktarget.config.ConfigSchema;
import io.blocktarget.server.ControlPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The routes of the control API (documented in {@code openapi.json} beside this class; a test keeps the two equal).
 * Reads answer on the event loop from the control plane's current snapshot; changes run on one worker thread, in
 * arrival order (see {@link LunChanges}).
 */
final class ControlApi implements AutoCloseable {
    private static final Logger LOG = System.getLogger("blocktarget.control");
    static final String OPENAPI_RESOURCE = "openapi.json";
    /** A LUN definition is a few hundred bytes; anything near this is not one. */
    static final int MAX_BODY_BYTES = 64 * 1024;
    /** The header a client sends with a change so that sending it again cannot apply it twice. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final int MAX_REMEMBERED_CHANGES = 256;

    private final Vertx vertx;
    private final ControlPlane plane;
    private final LunChanges changes;
    private final WorkerExecutor worker;
    private final ControlMetrics metrics;
    private final Buffer openapi;

    ControlApi(Vertx vertx, ControlPlane plane, WorkerExecutor worker) {
        this.vertx = vertx;
        this.plane = plane;
        this.changes = new LunChanges(plane);
        this.worker = worker;
        this.metrics = new ControlMetrics(plane);
        this.openapi = Buffer.buffer(openapiText());
        // an initiator's SET TARGET PORT GROUPS: written back on the worker, in order with the API's changes
        plane.onExplicitPathChange(name -> worker.executeBlocking(() -> {
            try {
                changes.persistExplicitPaths(name);
            } catch (Problem.Failure e) {
                LOG.log(Level.WARNING, "control: the path states an initiator set on LUN " + name
                        + " could not be written back: " + e.problem().detail());
            }
            return null;
        }, true));
    }

    /** Releases what the metrics hold beyond the scrape (the GC notification listener). */
    @Override
    public void close() {
        plane.onExplicitPathChange(null);
        metrics.close();
    }

    /**
     * The served document: {@code openapi.json} with the LUN and fault-rule schemas generated from the key
     * declarations ({@link ConfigSchema}) — the same schema {@code blocktarget schema lun} prints — so a client
     * that validates its requests takes every key a LUN file takes.
     */
    static String openapiText() {
        JsonObject doc = new JsonObject(openapiResource());
        JsonObject schemas = doc.getJsonObject("components").getJsonObject("schemas");
        JsonObject definition = new JsonObject(ConfigSchema.apiLun());
        schemas.put("LunDefinition", definition);
        // what GET answers: the definition plus the read-only status (one object: additionalProperties stays false)
        JsonObject lun = definition.copy().put("title", "Lun")
                .put("description", "A LUN: its definition plus the read-only status");
        lun.getJsonObject("properties").put("status", new JsonObject().put("$ref", "#/components/schemas/LunStatus"));
        schemas.put("Lun", lun);
        JsonObject fault = new JsonObject(ConfigSchema.faultRule());
        JsonObject counts = schemas.getJsonObject("FaultRuleStatus").getJsonObject("properties");
        counts.forEach(e -> fault.getJsonObject("properties").put(e.getKey(), e.getValue()));
        schemas.put("FaultRule", fault);
        schemas.remove("FaultRuleStatus");
        return doc.encodePrettily();
    }

    /** openapi.json as written, before the generated schemas are put in. */
    static String openapiResource() {
        try (InputStream in = ControlApi.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(OPENAPI_RESOURCE + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The router; with {@code token}, every request must carry {@code Authorization: Bearer TOKEN} (the TCP
     * listener), compared in constant time.
     */
    Router router(Optional<String> token) {
        Router router = Router.router(vertx);
        // The body is read before the token check: a request answered 401 with its body unread would leave the
        // paused request holding the keep-alive connection, and the client's next request on it would hang.
        router.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
        token.ifPresent(t -> router.route().handler(bearer(t)));
        router.get("/openapi.json").handler(ctx -> ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(openapi));
        router.get("/v1/luns").handler(ctx -> json(ctx, 200, LunJson.luns(plane)));
        router.post("/v1/luns").handler(ctx -> change(ctx, 201, () -> changed(changes.create(body(ctx), options(ctx)))));
        router.get("/v1/luns/:name").handler(ctx -> {
            String name = ctx.pathParam("name");
            plane.lun(name).ifPresentOrElse(s -> json(ctx, 200, LunJson.lun(plane, s)),
                    () -> problem(ctx, LunChanges.notFound(name)));
        });
        router.patch("/v1/luns/:name").handler(ctx -> change(ctx, 200,
                () -> changed(changes.patch(ctx.pathParam("name"), body(ctx), options(ctx)))));
        router.delete("/v1/luns/:name").handler(ctx -> change(ctx, 204, () -> {
            LunChanges.Changed done = changes.delete(ctx.pathParam("name"), options(ctx));
            return done.result().dryRun() ? changed(done) : null;
        }));
        router.post("/v1/luns/:name/resize").handler(ctx -> change(ctx, 200,
                () -> changed(changes.resize(ctx.pathParam("name"), body(ctx), options(ctx)))));
        FaultChanges faults = new FaultChanges(plane);
        router.get("/v1/luns/:name/faults").handler(ctx -> change(ctx, 200, () -> faults.list(ctx.pathParam("name"))));
        router.post("/v1/luns/:name/faults").handler(ctx -> change(ctx, 201,
                () -> faults.add(ctx.pathParam("name"), body(ctx))));
        router.delete("/v1/luns/:name/faults/:id").handler(ctx -> change(ctx, 204, () -> {
            faults.remove(ctx.pathParam("name"), ctx.pathParam("id"));
            return null;
        }));
        // issue 29: path states per LUN and portal; a change is a LUN change (applied in place, written back)
        router.get("/v1/paths").handler(ctx -> json(ctx, 200, PathJson.paths(plane, null)));
        router.get("/v1/luns/:name/paths").handler(ctx -> {
            String name = ctx.pathParam("name");
            if (plane.lun(name).isEmpty()) {
                problem(ctx, LunChanges.notFound(name));
                return;
            }
            json(ctx, 200, PathJson.paths(plane, name));
        });
        router.put("/v1/luns/:name/paths/:portal").handler(ctx -> change(ctx, 200, () -> {
            String name = ctx.pathParam("name");
            LunChanges.Changed done = changes.setPath(name, ctx.pathParam("portal"), body(ctx), options(ctx));
            JsonObject applied = LunJson.applied(done.result());
            return done.result().dryRun() ? applied : PathJson.paths(plane, name).put("applied", applied);
        }));
        router.get("/v1/sessions").handler(ctx -> json(ctx, 200, LunJson.sessions(plane.sessions())));
        router.delete("/v1/sessions/:id").handler(ctx -> change(ctx, 204, () -> {
            String id = ctx.pathParam("id");
            if (!plane.dropSession(id)) {
                throw Problem.of(404, "not-found", "No such session", "no session or controller " + id, null)
                        .failure();
            }
            LOG.log(Level.INFO, "control: dropped session " + id);
            return null;
        }));
        router.get("/v1/stats").handler(ctx -> json(ctx, 200, StatsJson.stats(plane, System.nanoTime())));
        router.post("/v1/reload").handler(ctx -> change(ctx, 200, () -> LunJson.applied(changes.reload(options(ctx)))));
        new TraceApi(vertx, plane).register(router);
        router.post("/v1/luns/:name/placement/reset-stats").handler(ctx -> resetPlacementStats(ctx, plane));
        router.get("/metrics").handler(ctx -> ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, ControlMetrics.CONTENT_TYPE).end(metrics.scrape()));

        router.errorHandler(404, ctx -> problem(ctx, Problem.of(404, "no-route", "Not found",
                "no resource " + ctx.request().path() + "; the API is described at /openapi.json", null)));
        router.errorHandler(405, ctx -> problem(ctx, Problem.of(405, "method", "Method not allowed",
                ctx.request().method() + " is not allowed on " + ctx.request().path(), null)));
        router.errorHandler(413, ctx -> problem(ctx, Problem.of(413, "too-large", "Body too large",
                "the body exceeds " + MAX_BODY_BYTES + " bytes", null)));
        router.errorHandler(500, ctx -> {
            LOG.log(Level.WARNING, "control: " + ctx.request().method() + " " + ctx.request().path() + " failed",
                    ctx.failure());
            problem(ctx, Problem.of(500, "internal", "Internal error", String.valueOf(ctx.failure()), null));
        });
        return router;
    }

    /** Every route as {@code METHOD /path/{param}}, the way OpenAPI writes it. */
    static List<String> routes(Router router) {
        return router.getRoutes().stream().filter(r -> r.getPath() != null && r.methods() != null)
                .flatMap(r -> r.methods().stream().map(m -> m.name() + " " + openapiPath(r)))
                .sorted().toList();
    }

    private static String openapiPath(Route route) {
        return route.getPath().replaceAll(":([A-Za-z]+)", "{$1}");
    }

    /**
     * A change's answer: the LUN as it is now with an {@code applied} member (changed keys and their rules, steps,
     * warnings); a dry run's: the {@code applied} object alone ({@code dry-run: true}), status 200.
     */
    private JsonObject changed(LunChanges.Changed done) {
        JsonObject applied = LunJson.applied(done.result());
        if (done.result().dryRun() || done.lun().isEmpty()) {
            return applied;
        }
        return plane.lun(done.lun().get().name()).map(s -> LunJson.lun(plane, s))
                .orElseGet(JsonObject::new).put("applied", applied);
    }

    /** {@code ?force=true}: allow a change that loses data; {@code ?dry-run=true}: say what would be done, do nothing. */
    static ControlPlane.ApplyOptions options(RoutingContext ctx) throws Problem.Failure {
        return new ControlPlane.ApplyOptions(flag(ctx, "force"), flag(ctx, "dry-run"));
    }

    private static boolean flag(RoutingContext ctx, String name) throws Problem.Failure {
        List<String> values = ctx.queryParam(name);
        if (values.isEmpty()) {
            return false;
        }
        String value = values.getLast();
        return switch (value) {
            case "", "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw Problem.of(400, "invalid", "Invalid query parameter", name + ": " + value
                    + " is not a boolean; allowed: true or false", name).failure();
        };
    }

    @FunctionalInterface
    private interface Change {
        JsonObject run() throws Problem.Failure;
    }

    /** What a change answered; kept for a repeated request with the same Idempotency-Key. */
    private record Answer(int status, JsonObject body) {
    }

    /**
     * Recent changes by {@code Idempotency-Key} (with method and path): a client that got no answer sends the
     * request again with the same key and gets the first one's answer (waiting for it if it still runs) instead of
     * a second change.
     */
    private final Map<String, Future<Answer>> recent = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Future<Answer>> eldest) {
                    return size() > MAX_REMEMBERED_CHANGES;
                }
            });

    /** Runs a change on the worker (serialized) and answers with its JSON, or its problem. */
    private void change(RoutingContext ctx, int status, Change change) {
        String key = ctx.request().getHeader(IDEMPOTENCY_KEY);
        Future<Answer> done = key == null
                ? run(status, change)
                : recent.computeIfAbsent(ctx.request().method() + " " + ctx.request().path() + " " + key,
                        k -> run(status, change));
        done.onComplete(result -> {
            if (result.succeeded()) {
                Answer answer = result.result();
                if (answer.body() != null && answer.body().getBoolean("dry-run", false)) {
                    answer = new Answer(200, answer.body());   // nothing was created or removed
                }
                if (answer.status() == 201 && answer.body() != null && answer.body().containsKey("name")) {
                    ctx.response().putHeader(HttpHeaders.LOCATION, "/v1/luns/" + answer.body().getString("name"));
                }
                if (answer.status() == 204 || answer.body() == null) {
                    ctx.response().setStatusCode(answer.status()).end();
                } else {
                    json(ctx, answer.status(), answer.body());
                }
            } else if (result.cause() instanceof Problem.Failure failure) {
                problem(ctx, failure.problem());
            } else {
                ctx.fail(result.cause());
            }
        });
    }

    private Future<Answer> run(int status, Change change) {
        Callable<Answer> task = () -> new Answer(status, change.run());
        return worker.executeBlocking(task, true);
    }

    /** The request body as a JSON object; a body that is not one is the request's problem. */
    private static JsonObject body(RoutingContext ctx) throws Problem.Failure {
        Buffer buffer = ctx.body().buffer();
        if (buffer == null || buffer.length() == 0) {
            throw Problem.of(400, "body", "Body missing", "the request needs a JSON object body", null).failure();
        }
        Object value;
        try {
            value = io.vertx.core.json.Json.decodeValue(buffer);
        } catch (DecodeException e) {
            throw Problem.of(400, "body", "Body is not JSON", "the body is not JSON: " + e.getMessage(), null)
                    .failure();
        }
        if (!(value instanceof JsonObject object)) {
            throw Problem.of(400, "body", "Body is not a JSON object", "the body must be a JSON object", null)
                    .failure();
        }
        return object;
    }

    /**
     * Issue 32: the LUN's placement counters start again from zero (the mapping of the modelled medium stays); 200
     * with {@code status.placement} as it is now, 404 for an unknown LUN, 409 for a LUN without {@code placement:}.
     */
    private static void resetPlacementStats(RoutingContext ctx, ControlPlane plane) {
        String name = ctx.pathParam("name");
        java.util.Optional<io.blocktarget.block.lun.LunState> state = plane.lunState(name);
        if (state.isEmpty()) {
            problem(ctx, LunChanges.notFound(name));
            return;
        }
        io.blocktarget.block.placement.Placement placement = state.get().placement();
        if (placement == null) {
            problem(ctx, Problem.of(409, "no-placement", "The LUN has no data placement", "LUN " + name
                    + " has no placement: section; add one (placement: {}) to model and count its writes", null));
            return;
        }
        placement.resetStatistics();
        LOG.log(Level.INFO, "control: placement statistics of LUN " + name + " reset");
        json(ctx, 200, PlacementReport.json(placement));
    }

    static void json(RoutingContext ctx, int status, JsonObject body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.encodePrettily() + "\n");
    }

    static void problem(RoutingContext ctx, Problem problem) {
        if (ctx.response().ended()) {
            return;
        }
        ctx.response().setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE)
                .end(problem.toJson().encodePrettily() + "\n");
    }

    /**
     * RFC 6750 §2.1 bearer token. Both sides are hashed before the comparison, so it takes the same time whatever the
     * length or content of the token sent (MessageDigest.isEqual is constant-time for equal lengths).
     */
    private static io.vertx.core.Handler<RoutingContext> bearer(String token) {
        byte[] expected = sha256(token);
        return ctx -> {
            String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
            boolean ok = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                    && MessageDigest.isEqual(expected, sha256(header.substring(7).strip()));
            if (ok) {
                ctx.next();
                return;
            }
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"blocktarget\"");
            problem(ctx, Problem.of(401, "unauthorized", "Unauthorized", header == null
                    ? "this listener needs Authorization: Bearer TOKEN (the token of control-token-file)"
                    : "the bearer token is wrong", null));
        };
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

}
