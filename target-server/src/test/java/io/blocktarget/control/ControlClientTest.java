package io.blocktarget.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's side of a request that is never answered: retried, and the message says how far each attempt got. */
class ControlClientTest {
    @TempDir
    Path tmp;

    /** A Unix socket bound and listening at {@code socket}, accepting only when the test calls accept. */
    private static ServerSocketChannel listening(Path socket) throws java.io.IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return server;
    }

    @Test
    void aServerThatNeverAnswersIsTriedThreeTimesAndTheMessageSaysEachGotConnected() throws Exception {
        Path socket = tmp.resolve("mute.sock");
        // listening, never accepting: the kernel completes each connect from its backlog, nobody reads the request
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())
                     .withTimeouts(Duration.ofMillis(300), Duration.ofMillis(500))) {
            assertThatThrownBy(() -> client.get("/v1/luns"))
                    .isInstanceOf(ControlClient.UnreachableException.class)
                    .hasMessage("the server at " + socket + " did not answer (attempt 1: connected, no response after"
                            + " 0.3 s; attempt 2: connected, no response after 0.3 s; attempt 3: connected, no"
                            + " response after 0.5 s)");
        }
    }

    @Test
    void aResponseWhoseBodyNeverEndsIsReportedAsBegun() throws Exception {
        Path socket = tmp.resolve("half.sock");
        List<SocketChannel> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())
                     .withTimeouts(Duration.ofMillis(300), Duration.ofMillis(300))) {
            Thread answering = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 3; i++) {
                        SocketChannel c = server.accept();
                        accepted.add(c);
                        // the headers promise 10 bytes of body; none follow, and the connection stays open
                        c.write(ByteBuffer.wrap(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 10\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
                    }
                } catch (java.io.IOException e) {
                    // the test closed the socket
                }
            });
            assertThatThrownBy(() -> client.get("/v1/luns"))
                    .isInstanceOf(ControlClient.UnreachableException.class)
                    .hasMessageContaining("attempt 1: response begun, body incomplete after 0.3 s")
                    .hasMessageContaining("attempt 3: response begun, body incomplete after 0.3 s");
            server.close();
            answering.join(Duration.ofSeconds(10));
        } finally {
            for (SocketChannel c : accepted) {
                c.close();
            }
        }
    }

    /** Accepts one connection on {@code server}, keeps the request's bytes, answers {@code answer} and closes. */
    private static CompletableFuture<String> answerOnce(ServerSocketChannel server, String answer) {
        CompletableFuture<String> request = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (SocketChannel c = server.accept()) {
                java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                // the head, then as many body bytes as Content-Length says
                while (true) {
                    String text = got.toString(StandardCharsets.UTF_8);
                    int end = text.indexOf("\r\n\r\n");
                    if (end >= 0) {
                        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Content-Length: (\\d+)")
                                .matcher(text);
                        int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
                        if (got.size() >= end + 4 + length) {
                            break;
                        }
                    }
                    buffer.clear();
                    if (c.read(buffer) < 0) {
                        break;
                    }
                    got.write(buffer.array(), 0, buffer.position());
                }
                request.complete(got.toString(StandardCharsets.UTF_8));
                c.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
            } catch (java.io.IOException e) {
                request.completeExceptionally(e);
            }
        });
        return request;
    }

    @Test
    void aChangeIsOneHttp11RequestWithItsBodyAndKeyAndTheAnswerIsReadByContentLength() throws Exception {
        Path socket = tmp.resolve("api.sock");
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
            var request = answerOnce(server, "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\n"
                    + "content-length: 10\r\n\r\n{\"a\":\"\u00e9\"}");
            ControlClient.Response r = client.call(io.vertx.core.http.HttpMethod.POST, "/v1/luns?dry-run=true",
                    new io.vertx.core.json.JsonObject().put("name", "x"));
            assertThat(r.status()).isEqualTo(201);
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.json().getString("a")).isEqualTo("\u00e9");
            assertThat(client.last()).contains(r);
            String sent = request.get(10, TimeUnit.SECONDS);
            assertThat(sent).startsWith("POST /v1/luns?dry-run=true HTTP/1.1\r\nHost: localhost\r\n"
                    + "Connection: close\r\nIdempotency-Key: ").endsWith("\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 12\r\n\r\n{\"name\":\"x\"}");
        }
    }

    @Test
    void aStreamHandsOverEachLineOfAChunkedBodyWhereverTheChunksSplitIt() throws Exception {
        Path socket = tmp.resolve("trace.sock");
        List<String> lines = new CopyOnWriteArrayList<>();
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
            // three lines in chunks that split the second and end with a line without its newline
            var request = answerOnce(server, "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
                    + "a\r\n{\"n\":1}\n{\"\r\n" + "6;ext=1\r\nn\":2}\n\r\n" + "7\r\n{\"n\":3}\r\n" + "0\r\n\r\n");
            ControlClient.Response r = client.stream("/v1/luns/x/trace?follow=true", lines::add);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEmpty();
            assertThat(lines).containsExactly("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
            assertThat(request.get(10, TimeUnit.SECONDS))
                    .startsWith("GET /v1/luns/x/trace?follow=true HTTP/1.1\r\n").doesNotContain("Idempotency-Key")
                    .doesNotContain("Content-Length");
        }
    }

    @Test
    void aStreamThatIsRefusedReturnsTheProblemBodyAndAnswersWithoutLengthEndWithTheConnection() throws Exception {
        Path socket = tmp.resolve("refused.sock");
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
            answerOnce(server, "HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n");
            ControlClient.Response r = client.stream("/v1/luns/none/trace", line -> { });
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.isProblem()).isTrue();
            assertThat(r.body()).isEqualTo("{\"a\":1}");
            answerOnce(server, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the end");
            assertThat(client.get("/metrics").body()).isEqualTo("to the end");
        }
    }

    @Test
    void aServerThatClosesMidAnswerIsUnreachableAtOnceNotRetried() throws Exception {
        Path socket = tmp.resolve("cut.sock");
        try (ServerSocketChannel server = listening(socket);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
            answerOnce(server, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
            assertThatThrownBy(() -> client.get("/v1/luns"))
                    .isInstanceOf(ControlClient.UnreachableException.class)
                    .hasMessageStartingWith("cannot talk to the server at " + socket + ": the connection ended inside"
                            + " the answer's body");
        }
    }

    /** A length that is not one ends the call with the answer named, not with a NumberFormatException. */
    @Test
    void aContentLengthOrChunkSizeThatIsNotANumberIsAnAnswerNotUnderstood() throws Exception {
        String[] answers = {
            "HTTP/1.1 200 OK\r\nContent-Length: 1O\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        };
        String[] named = {"Content-Length is not a number below 2^63: '1O'",
            "Content-Length is not a number below 2^63: '-2'",
            "Content-Length is not a number below 2^63: '99999999999999999999'",
            "chunk size is not a number below 2^63: 'zz'"};
        for (int i = 0; i < answers.length; i++) {
            Path socket = tmp.resolve("len" + i + ".sock");
            try (ServerSocketChannel server = listening(socket);
                 ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
                answerOnce(server, answers[i]);
                assertThatThrownBy(() -> client.get("/v1/luns"))
                        .isInstanceOf(ControlClient.UnreachableException.class)
                        .hasMessageStartingWith("cannot talk to the server at " + socket + ": an answer whose "
                                + named[i]);
            }
        }
        assertThat(ControlClient.size("7fffffffffffffff", 16, "chunk size")).isEqualTo(Long.MAX_VALUE);
        assertThat(ControlClient.size("0", 10, "Content-Length")).isZero();
    }
}
