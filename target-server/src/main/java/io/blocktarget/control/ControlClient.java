package io.blocktarget.control;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A blocking client of the control API for the CLI: Vert.x's HTTP client over the Unix domain socket (or TCP with a
 * bearer token for an {@code http://} URL). One instance per CLI run.
 */
public final class ControlClient implements AutoCloseable {
    /** Overrides the default socket, like {@code --control}. */
    public static final String ENV_CONTROL = "BLOCKTARGET_CONTROL";
    /** A removal drains in-flight commands and a file LUN may be synced: allow for it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** A local connect takes microseconds; one that has not completed in this time never will. */
    private static final int CONNECT_TIMEOUT_MILLIS = 2000;
    private static final int CONNECT_ATTEMPTS = 3;
    /** Reads answer at once and changes in milliseconds unless they drain: a request unanswered this long is sent again. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final Vertx vertx;
    private final Optional<SocketAddress> socket;
    private final Optional<URI> url;
    private final Optional<String> token;
    private final String where;
    /** The last complete answer of {@link #call} (null: none yet): what {@code --json} prints. */
    private volatile Response lastResponse;
    /** {@link #RETRY_AFTER} and {@link #TIMEOUT}, shorter in tests. */
    private Duration retryAfter = RETRY_AFTER;
    private Duration timeout = TIMEOUT;

    /** The server at a socket path or an {@code http://HOST:PORT} URL. */
    public record Response(int status, String contentType, String body) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }

        public boolean isProblem() {
            return contentType != null && contentType.startsWith("application/problem+json");
        }

        public JsonObject json() {
            return new JsonObject(body);
        }
    }

    /** Thrown when the server cannot be reached at all (no server, wrong path, permission). */
    public static final class UnreachableException extends Exception {
        UnreachableException(String message) {
            super(message);
        }
    }

    private ControlClient(Optional<SocketAddress> socket, Optional<URI> url, Optional<String> token, String where) {
        // Domain sockets need the native transport; on TCP it is merely preferred.
        this.vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(1)
                .setWorkerPoolSize(1).setInternalBlockingPoolSize(1));
        this.socket = socket;
        this.url = url;
        this.token = token;
        this.where = where;
    }

    /**
     * @param target a socket path, or {@code http://HOST:PORT} (then {@code token} is sent as a bearer token)
     */
    public static ControlClient connect(String target, Optional<String> token) {
        if (target.startsWith("http://")) {
            return new ControlClient(Optional.empty(), Optional.of(URI.create(target)), token, target);
        }
        return new ControlClient(Optional.of(SocketAddress.domainSocketAddress(Path.of(target).toString())),
                Optional.empty(), Optional.empty(), target);
    }

    /** The last answer {@link #call} (or {@link #get}) returned; empty before the first. */
    public Optional<Response> last() {
        return Optional.ofNullable(lastResponse);
    }

    /** Where it talks to, for messages. */
    public String where() {
        return where;
    }

    public Response get(String path) throws UnreachableException {
        return call(HttpMethod.GET, path, (String) null);
    }

    public Response call(HttpMethod method, String path, JsonObject body) throws UnreachableException {
        return call(method, path, body == null ? null : body.encode());
    }

    /** Sends {@code body} as it is (JSON expected by the server; null: no body). */
    public Response call(HttpMethod method, String path, String body) throws UnreachableException {
        checkReachable();
        RequestOptions options = requestOptions(method, path);
        if (method != HttpMethod.GET) {
            // Sent again with the same key, a change is answered by the server as the first time, not applied twice.
            options.putHeader("Idempotency-Key", java.util.UUID.randomUUID().toString());
        }
        UnreachableException last = null;
        StringBuilder unanswered = new StringBuilder();
        for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
            // The last attempt waits long: a repeated change waits on the server for the first one (a drain).
            Duration wait = attempt == CONNECT_ATTEMPTS ? timeout : retryAfter;
            // A client (and so a connection pool) per request: nothing carries over from an earlier connection.
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false)
                    .setConnectTimeout(CONNECT_TIMEOUT_MILLIS));
            AtomicReference<Stage> stage = new AtomicReference<>(Stage.CONNECTING);
            Future<Response> response = client.request(options)
                    .compose(request -> {
                        stage.set(Stage.SENDING);
                        return send(request, body).onSuccess(headers -> stage.set(Stage.READING_BODY));
                    })
                    .compose(r -> r.body().map(b -> new Response(r.statusCode(),
                            r.getHeader(HttpHeaders.CONTENT_TYPE), b.toString())))
                    .andThen(done -> client.close());
            try {
                lastResponse = response.toCompletionStage().toCompletableFuture()
                        .get(wait.toMillis(), TimeUnit.MILLISECONDS);
                return lastResponse;
            } catch (ExecutionException e) {
                last = new UnreachableException("cannot talk to the server at " + where + ": "
                        + describe(e.getCause()) + " (is blocktarget serve running? pick it with --control PATH|URL"
                        + " or " + ENV_CONTROL + ")");
                if (!connectTimedOut(e.getCause())) {
                    throw last;
                }
                // The connection was never made, so the request was never sent: trying again is safe, POST too.
                // Seen with the epoll transport on a Unix socket: a connect now and then never completes.
            } catch (TimeoutException e) {
                Stage reached = stage.get();   // before the close fails the request
                client.close();
                unanswered.append(unanswered.isEmpty() ? "" : "; ").append("attempt ").append(attempt).append(": ")
                        .append(reached.text).append(" after ").append(seconds(wait)).append(" s");
                last = new UnreachableException("the server at " + where + " did not answer (" + unanswered + ")");
                // Seen now and then with Vert.x 5.0.7's client on a Unix socket: a request is never answered, while
                // the server answers every other one (3000 of 3000 curl requests). A read changes nothing; a change
                // carries its Idempotency-Key: either may be sent again.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnreachableException("interrupted");
            }
        }
        throw last;
    }

    /** How far an unanswered request got, for the message that says it was not answered. */
    private enum Stage {
        CONNECTING("no connection"),
        SENDING("connected, no response"),
        READING_BODY("response begun, body incomplete");

        final String text;

        Stage(String text) {
            this.text = text;
        }
    }

    private void checkReachable() throws UnreachableException {
        if (socket.isPresent() && !vertx.isNativeTransportEnabled()) {
            throw new UnreachableException("cannot talk to " + where + ": Unix domain sockets need the native"
                    + " transport (" + vertx.unavailableNativeTransportCause() + ")");
        }
        if (socket.isPresent() && !java.nio.file.Files.exists(Path.of(where))) {
            throw new UnreachableException("no control socket at " + where + " (is blocktarget serve running? pick"
                    + " it with --control PATH|URL or " + ENV_CONTROL + ")");
        }
    }

    private RequestOptions requestOptions(HttpMethod method, String path) {
        RequestOptions options = new RequestOptions().setMethod(method).setURI(path);
        if (socket.isPresent()) {
            options.setServer(socket.get()).setHost("localhost");
        } else {
            URI uri = url.orElseThrow();
            options.setHost(uri.getHost()).setPort(uri.getPort() > 0 ? uri.getPort() : 80);
            token.ifPresent(t -> options.putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + t));
        }
        return options;
    }

    /**
     * GET of a long-lived response (an NDJSON stream such as {@code /v1/luns/NAME/trace?follow=true}): each line of a
     * 2xx body goes to {@code lines} as it arrives (on the client's event loop), and this returns when the server
     * ends the response, with an empty body; any other status returns as {@link #call} does, body included. A
     * request whose response has not begun within a few seconds is sent again (see {@link #call}: a GET may be);
     * once lines flow there is no time limit.
     */
    public Response stream(String path, java.util.function.Consumer<String> lines) throws UnreachableException {
        checkReachable();
        RequestOptions options = requestOptions(HttpMethod.GET, path);
        UnreachableException last = null;
        for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false)
                    .setConnectTimeout(CONNECT_TIMEOUT_MILLIS));
            java.util.concurrent.CompletableFuture<Response> ended = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Integer> begun = new java.util.concurrent.CompletableFuture<>();
            // the body is asked for inside send's own compose (Vert.x's documented pattern): a handler attached to
            // a later future may run after the response was resumed, and a short error body would end unseen
            client.request(options).compose(request -> request.send().compose(r -> {
                String contentType = r.getHeader(HttpHeaders.CONTENT_TYPE);
                begun.complete(r.statusCode());
                if (r.statusCode() < 200 || r.statusCode() >= 300) {
                    return r.body().map(b -> new Response(r.statusCode(), contentType, b.toString()));
                }
                io.vertx.core.Promise<Response> end = io.vertx.core.Promise.promise();
                io.vertx.core.parsetools.RecordParser parser = io.vertx.core.parsetools.RecordParser.newDelimited("\n", r);
                parser.handler(line -> lines.accept(line.toString(java.nio.charset.StandardCharsets.UTF_8)));
                parser.exceptionHandler(end::tryFail);
                parser.endHandler(v -> end.tryComplete(new Response(r.statusCode(), contentType, "")));
                return end.future();
            })).onComplete(result -> {
                if (result.failed()) {
                    begun.completeExceptionally(result.cause());
                    ended.completeExceptionally(result.cause());
                } else {
                    ended.complete(result.result());
                }
            });
            try {
                int status = begun.get((attempt == CONNECT_ATTEMPTS ? timeout : retryAfter).toMillis(),
                        TimeUnit.MILLISECONDS);
                // a stream has no time limit once it flows; an error answer's body is short
                return status >= 200 && status < 300 ? ended.get()
                        : ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                last = new UnreachableException("cannot talk to the server at " + where + ": "
                        + describe(e.getCause()) + " (is blocktarget serve running? pick it with --control PATH|URL"
                        + " or " + ENV_CONTROL + ")");
                if (begun.isCompletedExceptionally() && connectTimedOut(e.getCause())) {
                    continue;   // never connected: nothing was sent
                }
                throw last;
            } catch (TimeoutException e) {
                last = new UnreachableException("the server at " + where + " did not answer within "
                        + seconds(attempt == CONNECT_ATTEMPTS ? timeout : retryAfter) + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnreachableException("interrupted");
            } finally {
                client.close();
            }
        }
        throw last;
    }

    /** Shortens the waits of unanswered requests, for tests of that path. */
    ControlClient withTimeouts(Duration retryAfter, Duration timeout) {
        this.retryAfter = retryAfter;
        this.timeout = timeout;
        return this;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0);
    }

    private static boolean connectTimedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof io.netty.channel.ConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** The innermost message of a failure, with its kind when it has none. */
    private static String describe(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() != null ? t.getMessage() : failure.getMessage();
        return message != null ? message : t.getClass().getSimpleName();
    }

    private static Future<io.vertx.core.http.HttpClientResponse> send(HttpClientRequest request, String body) {
        if (body == null) {
            return request.send();
        }
        request.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        return request.send(Buffer.buffer(body));
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Exiting anyway.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
