package io.blocktarget.control;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.control.ControlClient.Response;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The trace routes over a real Unix socket, with the in-memory control plane's LUN states behind them. */
class TraceApiTest {
    private static final ServerConfig SERVER = ConfigLoader.embeddedDefault().server();
    private static final String LUN = "ram-16k";
    private static final String PATH = "/v1/luns/" + LUN + "/trace";

    @TempDir
    Path tmp;
    private ControlFixture fixture;
    private InMemoryControlPlane plane;

    @BeforeEach
    void start() throws Exception {
        plane = new InMemoryControlPlane(SERVER, Optional.empty(), ConfigLoader.embeddedDefault().luns());
        fixture = ControlFixture.start(plane, tmp);
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    private Response put(String body) throws Exception {
        return fixture.client.call(HttpMethod.PUT, PATH, body);
    }

    private Tracer tracer() {
        return plane.lunState(LUN).map(LunState::tracer).orElseThrow();
    }

    /** A WRITE(16) of one 16 KiB block at LBA {@code i}, queue depth 1 + i % 8. */
    private static void write(Tracer tracer, int i) {
        tracer.record(System.nanoTime(), TraceRecord.Protocol.ISCSI, "iqn.2026-11.test:a,i,0x23d000000001",
                "iqn.2026-11.io.blocktarget:ram-16k,t,0x0001", -1, i, 0x8A, "WRITE(16)", IoKind.WRITE, i, 1,
                TraceRecord.FUA, 1 + i % 8, "GOOD", true, -1, -1, -1, -1, -1, false);
    }

    private static List<JsonObject> ndjson(Response response) {
        assertThat(response.contentType()).startsWith("application/x-ndjson");
        return response.body().lines().map(JsonObject::new).toList();
    }

    @Test
    void aTraceIsStartedReadAsNdjsonSummarizedAndStopped() throws Exception {
        Response started = put("{\"enabled\": true, \"ring\": 16}");
        assertThat(started.status()).isEqualTo(200);
        assertThat(started.json().getBoolean("enabled")).isTrue();
        assertThat(started.json().getInteger("ring")).isEqualTo(16);
        Tracer tracer = tracer();
        for (int i = 0; i < 20; i++) {
            write(tracer, i);
        }
        List<JsonObject> lines = ndjson(fixture.get(PATH));
        assertThat(lines).hasSize(16);   // the ring keeps the 16 newest
        assertThat(lines).extracting(l -> l.getLong("seq")).containsExactlyElementsOf(
                java.util.stream.LongStream.range(4, 20).boxed().toList());
        JsonObject first = lines.getFirst();
        assertThat(first.getString("protocol")).isEqualTo("iscsi");
        assertThat(first.getString("op")).isEqualTo("WRITE(16)");
        assertThat(first.getString("opcode")).isEqualTo("0x8a");
        assertThat(first.getString("kind")).isEqualTo("write");
        assertThat(first.getLong("lba")).isEqualTo(4);
        assertThat(first.getLong("blocks")).isEqualTo(1);
        assertThat(first.getLong("bytes")).isEqualTo(16384);
        assertThat(first.getJsonArray("flags").getList()).containsExactly("fua");
        assertThat(first.getInteger("qd")).isEqualTo(5);
        assertThat(first.getString("status")).isEqualTo("GOOD");
        assertThat(first.containsKey("queue")).isFalse();
        assertThat(first.getString("initiator")).isEqualTo("iqn.2026-11.test:a,i,0x23d000000001");

        JsonObject stats = fixture.get(PATH + "/stats").json();
        assertThat(stats.getLong("recorded")).isEqualTo(20);
        assertThat(stats.getLong("overwritten")).isEqualTo(4);
        JsonObject write = stats.getJsonObject("kinds").getJsonObject("write");
        assertThat(write.getLong("commands")).isEqualTo(20);
        assertThat(write.getJsonObject("sizes").getMap()).containsExactly(java.util.Map.entry("16384", 20));
        assertThat(write.getJsonObject("aligned").getLong("pbs")).isEqualTo(20);
        assertThat(write.getJsonObject("aligned").getLong("optimal")).isZero();   // 16 KiB is no multiple of 1 MiB
        assertThat(stats.getJsonObject("alignment-units").getLong("optimal")).isEqualTo(1 << 20);
        assertThat(stats.getJsonObject("queue-depth").getLong("max")).isEqualTo(8);
        assertThat(stats.getJsonObject("queue-depth").getJsonObject("values").getLong("8")).isEqualTo(2);
        assertThat(stats.getJsonObject("latency-ns").getLong("count")).isEqualTo(20);

        String metrics = fixture.get("/metrics").body();
        assertThat(metrics).containsPattern("blocktarget_lun_trace_commands_total\\{kind=\"write\",lun=\"ram-16k\"} 20\\.0");
        assertThat(metrics).containsPattern(
                "blocktarget_lun_trace_io_size_bytes_bucket\\{kind=\"write\",lun=\"ram-16k\",le=\"16384.0\"} 20");
        assertThat(metrics).containsPattern("blocktarget_lun_trace_queue_depth_bucket\\{lun=\"ram-16k\",le=\"4.0\"} 12");   // qd 1..4 of 1..8

        assertThat(fixture.call(HttpMethod.DELETE, PATH, null).status()).isEqualTo(204);
        assertThat(plane.lunState(LUN).orElseThrow().tracer()).isNull();
        assertThat(ndjson(fixture.get(PATH))).hasSize(16);              // the last trace stays readable
        assertThat(fixture.get(PATH + "/stats").json().getBoolean("enabled")).isFalse();
        assertThat(fixture.get("/metrics").body()).doesNotContain("blocktarget_lun_trace_commands_total{");
    }

    @Test
    void theSamePutTwiceKeepsTheRunningTraceAnotherRingSizeStartsANewOne() throws Exception {
        put("{\"enabled\": true, \"ring\": 64}");
        Tracer first = tracer();
        write(first, 0);
        assertThat(put("{\"enabled\": true, \"ring\": 64}").json().getLong("recorded")).isEqualTo(1);
        assertThat(tracer()).isSameAs(first);
        assertThat(put("{\"enabled\": true, \"ring\": 128}").json().getLong("recorded")).isZero();
        assertThat(tracer()).isNotSameAs(first);
        assertThat(put("{\"enabled\": false}").json().getBoolean("enabled")).isFalse();
        assertThat(plane.lunState(LUN).orElseThrow().tracer()).isNull();
    }

    @Test
    void badRequestsNameTheirField() throws Exception {
        for (String[] bad : new String[][] {{"{\"enabled\": true, \"ring\": 24}", "ring"},
            {"{\"enabled\": true, \"ring\": 8}", "ring"}, {"{\"enabled\": true, \"ring\": 2097152}", "ring"},
            {"{\"enabled\": true, \"ring\": \"big\"}", "ring"}, {"{\"enabled\": \"yes\"}", "enabled"},
            {"{}", "enabled"}, {"{\"enabled\": true, \"size\": 1}", "size"}}) {
            Response r = put(bad[0]);
            assertThat(r.status()).as(bad[0]).isEqualTo(400);
            assertThat(r.json().getString("field")).as(bad[0]).isEqualTo(bad[1]);
        }
        assertThat(put("{\"enabled\": true, \"ring\": 16}").status()).isEqualTo(200);            // MIN
        assertThat(put("{\"enabled\": true, \"ring\": 1048576}").status()).isEqualTo(200);       // MAX
        assertThat(put("[1]").status()).isEqualTo(400);
        assertThat(fixture.client.call(HttpMethod.PUT, "/v1/luns/nope/trace", "{\"enabled\": true}").status())
                .isEqualTo(404);
        assertThat(fixture.get("/v1/luns/nope/trace").status()).isEqualTo(404);
        assertThat(fixture.get("/v1/luns/ram-4k/trace").status()).isEqualTo(409);              // never traced
        assertThat(fixture.get("/v1/luns/ram-4k/trace/stats").status()).isEqualTo(409);
    }

    /** A follow stream gets what the ring had, then new records live, and ends when tracing stops. */
    @Test
    void followStreamsLiveAndEndsWhenTracingStops() throws Exception {
        put("{\"enabled\": true}");
        Tracer tracer = tracer();
        write(tracer, 0);
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        try (ControlClient reader = ControlClient.connect(fixture.socket.toString(), Optional.empty())) {
            CompletableFuture<Response> stream = CompletableFuture.supplyAsync(() -> {
                try {
                    return reader.stream(PATH + "?follow=true", lines::add);
                } catch (ControlClient.UnreachableException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(new JsonObject(lines.poll(10, TimeUnit.SECONDS)).getLong("seq")).isZero();
            write(tracer, 1);
            write(tracer, 2);
            assertThat(new JsonObject(lines.poll(10, TimeUnit.SECONDS)).getLong("seq")).isEqualTo(1);
            assertThat(new JsonObject(lines.poll(10, TimeUnit.SECONDS)).getLong("seq")).isEqualTo(2);
            assertThat(stream).isNotDone();
            write(tracer, 3);   // recorded before the stop: still sent
            assertThat(fixture.call(HttpMethod.DELETE, PATH, null).status()).isEqualTo(204);
            assertThat(stream.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(lines).extracting(l -> new JsonObject(l).getLong("seq")).containsExactly(3L);
        }
        assertThat(TraceApi.awaitOpenStreams(0, 10_000)).isTrue();
    }

    @Test
    void followEndsWhenTheLunIsRemoved() throws Exception {
        put("{\"enabled\": true}");
        try (ControlClient reader = ControlClient.connect(fixture.socket.toString(), Optional.empty())) {
            CompletableFuture<Response> stream = CompletableFuture.supplyAsync(() -> {
                try {
                    return reader.stream(PATH + "?follow=true", line -> { });
                } catch (ControlClient.UnreachableException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(TraceApi.awaitOpenStreams(1, 10_000)).isTrue();
            List<LunConfig> others = plane.luns().stream().map(s -> s.config())
                    .filter(c -> !c.name().equals(LUN)).toList();
            plane.apply(others);
            assertThat(stream.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
        assertThat(TraceApi.awaitOpenStreams(0, 10_000)).isTrue();
    }

    /** A client that goes away mid-stream: the server stops polling for it (the stream is closed). */
    @Test
    void followEndsWhenTheClientGoesAway() throws Exception {
        put("{\"enabled\": true}");
        write(tracer(), 0);
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(fixture.socket));
            channel.write(ByteBuffer.wrap(("GET " + PATH + "?follow=true HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            StringBuilder got = new StringBuilder();
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            while (!got.toString().contains("\"seq\":0")) {
                buffer.clear();
                if (channel.read(buffer) < 0) {
                    throw new IOException("closed early: " + got);
                }
                got.append(StandardCharsets.US_ASCII.decode(buffer.flip()));
            }
            assertThat(got.toString()).startsWith("HTTP/1.1 200").contains("transfer-encoding: chunked");
            assertThat(TraceApi.awaitOpenStreams(1, 10_000)).isTrue();
        }
        assertThat(TraceApi.awaitOpenStreams(0, 10_000)).isTrue();
    }
}
