package io.blocktarget.control;

import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.config.LunConfig;
import io.blocktarget.server.ControlPlane;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.Set;

/**
 * The trace routes (DESIGN §10 "Trace"): {@code PUT / DELETE /v1/luns/{name}/trace} switch a LUN's trace on and off,
 * {@code GET /v1/luns/{name}/trace} streams the ring as NDJSON ({@code ?last=N}: only its N newest records;
 * {@code ?follow=true}: and what comes after, live),
 * {@code GET /v1/luns/{name}/trace/stats} the aggregates.
 *
 * <p>Streaming never blocks the event loop and never slows I/O: the response is fed from a ring reader in bounded
 * batches on the event loop; while the client does not keep up (the write queue is full) nothing is read, so the
 * reader falls behind and the client gets {@code {"dropped": N}} lines instead. A follow stream polls every
 * {@value #FOLLOW_POLL_MILLIS} ms, and ends (the chunked response is completed) when tracing is switched off, when the
 * LUN is removed or replaced, and when the client goes away (then its timer is cancelled).
 */
final class TraceApi {
    private static final Logger LOG = System.getLogger("blocktarget.control");
    static final int DEFAULT_RING = 65536;
    static final long FOLLOW_POLL_MILLIS = 20;
    /** Records per write: bounds the time one batch holds the event loop (a few ms). */
    static final int BATCH = 4096;
    static final String NDJSON = "application/x-ndjson";
    /**
     * OPTIMAL TRANSFER LENGTH of the Block Limits VPD as the SCSI command set reports it (DESIGN §9: max(1 MiB,
     * PBS)): what "aligned to the optimal transfer" measures.
     */
    static long optimalTransfer(LunConfig config) {
        return Math.max(1L << 20, config.physicalBlockSize());
    }

    /** Streams open now, process-wide (guarded by TraceApi.class): what tests wait on. */
    private static int openStreams;

    private static synchronized void streamOpened() {
        openStreams++;
        TraceApi.class.notifyAll();
    }

    private static synchronized void streamClosed() {
        openStreams--;
        TraceApi.class.notifyAll();
    }

    /** Waits until exactly {@code count} streams are open; false if that did not happen within {@code millis}. */
    static synchronized boolean awaitOpenStreams(int count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (openStreams != count) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            TraceApi.class.wait(left);
        }
        return true;
    }

    private final Vertx vertx;
    private final ControlPlane plane;

    TraceApi(Vertx vertx, ControlPlane plane) {
        this.vertx = vertx;
        this.plane = plane;
    }

    void register(Router router) {
        router.put("/v1/luns/:name/trace").handler(this::put);
        router.delete("/v1/luns/:name/trace").handler(this::delete);
        router.get("/v1/luns/:name/trace").handler(this::get);
        router.get("/v1/luns/:name/trace/stats").handler(this::stats);
    }

    private Optional<LunState> state(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        Optional<LunState> state = plane.lunState(name);
        if (state.isEmpty()) {
            ControlApi.problem(ctx, LunChanges.notFound(name));
        }
        return state;
    }

    private void put(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        Optional<ControlPlane.LunStatus> lun = plane.lun(name);
        Optional<LunState> found = plane.lunState(name);
        if (lun.isEmpty() || found.isEmpty()) {
            ControlApi.problem(ctx, LunChanges.notFound(name));
            return;
        }
        JsonObject body;
        try {
            body = body(ctx);
        } catch (Problem.Failure f) {
            ControlApi.problem(ctx, f.problem());
            return;
        }
        LunState state = found.get();
        if (!Boolean.TRUE.equals(body.getValue("enabled"))) {
            stop(name, state);
            ControlApi.json(ctx, 200, TraceJson.status(name, state.tracer(), state.lastTracer()));
            return;
        }
        int ring = body.getInteger("ring", DEFAULT_RING);
        Tracer current = state.tracer();
        if (current == null || current.ring().capacity() != ring) {   // the same PUT twice keeps the trace
            LunConfig config = lun.get().config();
            state.startTrace(new Tracer(ring, config.logicalBlockSize(), config.physicalBlockSize(),
                    optimalTransfer(config), state.clock()));
            LOG.log(Level.INFO, "control: trace of LUN " + name + " on, ring " + ring + " records");
        }
        ControlApi.json(ctx, 200, TraceJson.status(name, state.tracer(), state.lastTracer()));
    }

    /** {"enabled": true|false, "ring": a power of two}: anything else is a 400 naming the member. */
    private static JsonObject body(RoutingContext ctx) throws Problem.Failure {
        Buffer buffer = ctx.body().buffer();
        Object value;
        try {
            value = buffer == null || buffer.length() == 0 ? null : Json.decodeValue(buffer);
        } catch (DecodeException e) {
            throw Problem.of(400, "body", "Body is not JSON", "the body is not JSON: " + e.getMessage(), null)
                    .failure();
        }
        if (!(value instanceof JsonObject body)) {
            throw Problem.of(400, "body", "Body is not a JSON object",
                    "the body must be a JSON object: {\"enabled\": true, \"ring\": " + DEFAULT_RING + "}", null)
                    .failure();
        }
        for (String key : body.fieldNames()) {
            if (!Set.of("enabled", "ring").contains(key)) {
                throw invalid(key, key + ": unknown member; allowed: enabled, ring");
            }
        }
        if (!(body.getValue("enabled") instanceof Boolean)) {
            throw invalid("enabled", "enabled: " + body.getValue("enabled") + " is not a boolean; allowed: true, false");
        }
        Object ring = body.getValue("ring");
        if (ring != null) {
            boolean ok = ring instanceof Integer || ring instanceof Long;
            long n = ok ? ((Number) ring).longValue() : 0;
            if (!ok || n < TraceRing.MIN_CAPACITY || n > TraceRing.MAX_CAPACITY || Long.bitCount(n) != 1) {
                throw invalid("ring", "ring: " + ring + " is not a power of two from " + TraceRing.MIN_CAPACITY
                        + " to " + TraceRing.MAX_CAPACITY + "; allowed: the number of records the ring keeps");
            }
        }
        return body;
    }

    private static Problem.Failure invalid(String field, String detail) {
        return Problem.of(400, "invalid", "Invalid trace request", detail, field).failure();
    }

    private void delete(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        state(ctx).ifPresent(state -> {
            stop(name, state);
            ctx.response().setStatusCode(204).end();
        });
    }

    private static void stop(String name, LunState state) {
        if (state.stopTrace() != null) {
            LOG.log(Level.INFO, "control: trace of LUN " + name + " off");
        }
    }

    private void stats(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        state(ctx).ifPresent(state -> {
            Tracer shown = state.lastTracer();
            if (shown == null) {
                ControlApi.problem(ctx, neverOn(name));
                return;
            }
            ControlApi.json(ctx, 200, TraceJson.stats(name, state.tracer(), shown));
        });
    }

    private static Problem neverOn(String name) {
        return Problem.of(409, "trace-off", "Tracing was never on", "LUN " + name + " has not been traced; start"
                + " with PUT /v1/luns/" + name + "/trace {\"enabled\": true}", null);
    }

    private void get(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        Optional<LunState> found = state(ctx);
        if (found.isEmpty()) {
            return;
        }
        LunState state = found.get();
        Tracer tracer = state.lastTracer();
        if (tracer == null) {
            ControlApi.problem(ctx, neverOn(name));
            return;
        }
        boolean follow = "true".equals(ctx.request().getParam("follow"));
        String lastParam = ctx.request().getParam("last");
        long last = -1;
        if (lastParam != null) {
            try {
                last = Long.parseLong(lastParam);
            } catch (NumberFormatException e) {
                last = -1;
            }
            if (last < 0) {
                ControlApi.problem(ctx, Problem.of(400, "invalid", "Invalid trace request", "last: " + lastParam
                        + " is not a whole number >= 0; allowed: how many of the newest records to send", "last"));
                return;
            }
        }
        HttpServerResponse response = ctx.response().setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, NDJSON);
        new Stream(name, state, tracer, follow, last, response).pump();
    }

    /** One response fed from one ring reader, on the event loop of its request. */
    private final class Stream implements TraceRing.Sink {
        private final String name;
        private final LunState state;
        private final Tracer tracer;
        private final boolean follow;
        private final HttpServerResponse response;
        private final TraceRing.Reader reader;
        /** Where a plain GET stops: what was recorded when it came. */
        private final long end;
        private Buffer chunk;
        private boolean closed;
        private long timer = -1;

        /** @param last the newest records to start from; -1: all the ring holds */
        Stream(String name, LunState state, Tracer tracer, boolean follow, long last, HttpServerResponse response) {
            this.name = name;
            this.state = state;
            this.tracer = tracer;
            this.follow = follow;
            this.response = response;
            this.reader = last < 0 ? tracer.ring().reader() : tracer.ring().readerOfLast(last);
            this.end = tracer.ring().recorded();
            streamOpened();
            response.closeHandler(v -> close());
            response.exceptionHandler(e -> close());
        }

        /** The client went away, or the stream ended: stop polling (idempotent). */
        private void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (timer >= 0) {
                vertx.cancelTimer(timer);
                timer = -1;
            }
            streamClosed();
        }

        @Override
        public void record(TraceRecord record) {
            chunk.appendString(TraceJson.record(record).encode()).appendByte((byte) '\n');
        }

        @Override
        public void dropped(long count) {
            chunk.appendString(TraceJson.dropped(count).encode()).appendByte((byte) '\n');
        }

        /** Writes what the reader has while the client keeps up, then ends or waits for more. */
        void pump() {
            timer = -1;
            if (closed) {
                return;
            }
            // Read before checking whether the trace ended: what was recorded before the end is still sent.
            boolean ending = follow && (state.tracer() != tracer || plane.lunState(name).orElse(null) != state);
            boolean caughtUp = false;
            while (!response.writeQueueFull()) {
                chunk = Buffer.buffer();
                int max = follow ? BATCH : (int) Math.min(BATCH, Math.max(0, end - reader.cursor()));
                int n = max == 0 ? 0 : reader.poll(max, this);
                if (chunk.length() > 0) {
                    response.write(chunk);
                }
                if (n < BATCH || (!follow && reader.cursor() >= end)) {
                    caughtUp = true;
                    break;
                }
            }
            chunk = null;
            if (caughtUp && (!follow || ending)) {
                close();
                response.end();
                return;
            }
            if (response.writeQueueFull()) {
                response.drainHandler(v -> pump());   // the reader waits; writers never do (they overwrite)
            } else {
                timer = vertx.setTimer(FOLLOW_POLL_MILLIS, id -> pump());
            }
        }
    }
}
