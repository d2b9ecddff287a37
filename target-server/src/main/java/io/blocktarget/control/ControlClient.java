package io.blocktarget.control;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A blocking client of the control API for the CLI: HTTP/1.1 over the Unix domain socket (or TCP with a bearer token
 * for an {@code http://} URL), one connection per request ({@code Connection: close}), on the JDK's socket channels.
 * One instance per CLI run.
 *
 * <p>Not Vert.x's HTTP client: over a Unix socket it now and then never completed a connect, or never saw the answer
 * to a request the server had answered (every one of 3,000 curl requests was answered), and three retries did not
 * always get past it. A blocking exchange on a channel of our own has no event loop to lose a wake-up in; a timer
 * closes the channel at the deadline, which ends a blocked connect or read.
 */
public final class ControlClient implements AutoCloseable {
    /** Overrides the default socket, like {@code --control}. */
    public static final String ENV_CONTROL = "BLOCKTARGET_CONTROL";
    /** A removal drains in-flight commands and a file LUN may be synced: allow for it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** A local connect takes microseconds; one that has not completed in this time never will. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final int ATTEMPTS = 3;
    /** Reads answer at once and changes in milliseconds unless they drain: a request unanswered this long is sent again. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    /** A status line or header longer than this is no answer of ours. */
    private static final int MAX_LINE = 16 * 1024;

    private final SocketAddress address;
    private final String host;
    private final Optional<String> token;
    private final String where;
    /** Closes a channel at its deadline; made on first use, a daemon, shut down by {@link #close}. */
    private ScheduledExecutorService timer;
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

    private ControlClient(SocketAddress address, String host, Optional<String> token, String where) {
        this.address = address;
        this.host = host;
        this.token = token;
        this.where = where;
    }

    /**
     * @param target a socket path, or {@code http://HOST:PORT} (then {@code token} is sent as a bearer token)
     */
    public static ControlClient connect(String target, Optional<String> token) {
        if (target.startsWith("http://")) {
            URI uri = URI.create(target);
            int port = uri.getPort() > 0 ? uri.getPort() : 80;
            return new ControlClient(InetSocketAddress.createUnresolved(uri.getHost(), port),
                    uri.getHost() + ":" + port, token, target);
        }
        return new ControlClient(UnixDomainSocketAddress.of(Path.of(target)), "localhost", Optional.empty(), target);
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
        // Sent again with the same key, a change is answered by the server as the first time, not applied twice.
        String idempotencyKey = method == HttpMethod.GET ? null : java.util.UUID.randomUUID().toString();
        Response response = exchange(method, path, body, idempotencyKey, null);
        lastResponse = response;
        return response;
    }

    /**
     * GET of a long-lived response (an NDJSON stream such as {@code /v1/luns/NAME/trace?follow=true}): each line of a
     * 2xx body goes to {@code lines} as it arrives, and this returns when the server ends the response, with an empty
     * body; any other status returns as {@link #call} does, body included. A request whose response has not begun
     * within a few seconds is sent again (see {@link #call}: a GET may be); once lines flow there is no time limit.
     */
    public Response stream(String path, Consumer<String> lines) throws UnreachableException {
        return exchange(HttpMethod.GET, path, null, null, lines);
    }

    /** How far an unanswered request got, for the message that says it was not answered. */
    private enum Stage {
        CONNECTING("no connection"),
        SENT("connected, no response"),
        READING_BODY("response begun, body incomplete");

        final String text;

        Stage(String text) {
            this.text = text;
        }
    }

    /** One request, tried up to {@link #ATTEMPTS} times while it goes unanswered (or never connects). */
    private Response exchange(HttpMethod method, String path, String body, String idempotencyKey,
                              Consumer<String> lines) throws UnreachableException {
        if (address instanceof UnixDomainSocketAddress unix && !Files.exists(unix.getPath())) {
            throw new UnreachableException("no control socket at " + where + " (is blocktarget serve running? pick"
                    + " it with --control PATH|URL or " + ENV_CONTROL + ")");
        }
        byte[] request = request(method, path, body, idempotencyKey);
        StringBuilder unanswered = new StringBuilder();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            // The last attempt waits long: a repeated change waits on the server for the first one (a drain).
            Duration wait = attempt == ATTEMPTS ? timeout : retryAfter;
            Attempt a = new Attempt();
            try {
                return a.run(request, wait, lines);
            } catch (IOException e) {
                if (!a.deadlinePassed()) {
                    throw new UnreachableException("cannot talk to the server at " + where + ": " + describe(e)
                            + " (is blocktarget serve running? pick it with --control PATH|URL or " + ENV_CONTROL
                            + ")");
                }
                // Unanswered (or never connected) in time: a read changes nothing and a change carries its
                // Idempotency-Key, so either may be sent again.
                unanswered.append(unanswered.isEmpty() ? "" : "; ").append("attempt ").append(attempt).append(": ")
                        .append(a.stage.text).append(" after ").append(seconds(a.limit)).append(" s");
            } finally {
                a.close();
            }
        }
        throw new UnreachableException("the server at " + where + " did not answer (" + unanswered + ")");
    }

    /** One connection and its exchange; a timer closes the channel when its current limit passes. */
    private final class Attempt implements AutoCloseable {
        private SocketChannel channel;
        private ScheduledFuture<?> deadline;
        private volatile boolean passed;
        Stage stage = Stage.CONNECTING;
        Duration limit;

        Response run(byte[] request, Duration wait, Consumer<String> lines) throws IOException {
            channel = SocketChannel.open(address instanceof UnixDomainSocketAddress
                    ? StandardProtocolFamily.UNIX : StandardProtocolFamily.INET);
            arm(wait.compareTo(CONNECT_TIMEOUT) < 0 ? wait : CONNECT_TIMEOUT);
            SocketAddress target = address instanceof InetSocketAddress inet && inet.isUnresolved()
                    ? new InetSocketAddress(inet.getHostString(), inet.getPort()) : address;
            channel.connect(target);
            arm(wait);
            ByteBuffer out = ByteBuffer.wrap(request);
            while (out.hasRemaining()) {
                channel.write(out);
            }
            stage = Stage.SENT;
            InputStream in = new BufferedInputStream(Channels.newInputStream(channel));
            int status = status(line(in));
            String contentType = null;
            long length = -1;
            boolean chunked = false;
            for (String header = line(in); !header.isEmpty(); header = line(in)) {
                int colon = header.indexOf(':');
                if (colon <= 0) {
                    throw new IOException("malformed header line: " + header);
                }
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-type" -> contentType = value;
                    case "content-length" -> length = size(value, 10, "Content-Length");
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    default -> { }
                }
            }
            stage = Stage.READING_BODY;
            BodyReader reader = new BodyReader(in, chunked, length);
            if (lines != null && status >= 200 && status < 300) {
                disarm();   // a stream has no time limit once it flows
                reader.lines(lines);
                return new Response(status, contentType, "");
            }
            return new Response(status, contentType, new String(reader.all(), StandardCharsets.UTF_8));
        }

        /** From now, {@code after} is left to the step under way: then the channel is closed. */
        void arm(Duration after) {
            disarm();
            limit = after;
            SocketChannel c = channel;
            deadline = timer().schedule(() -> {
                passed = true;
                closeQuietly(c);
            }, after.toNanos(), TimeUnit.NANOSECONDS);
        }

        void disarm() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }

        /** Whether the failure at hand is the timer's close (or came after it). */
        boolean deadlinePassed() {
            return passed;
        }

        @Override
        public void close() {
            disarm();
            if (channel != null) {
                closeQuietly(channel);
            }
        }
    }

    private synchronized ScheduledExecutorService timer() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "control-client-timer");
                t.setDaemon(true);
                return t;
            });
        }
        return timer;
    }

    private byte[] request(HttpMethod method, String path, String body, String idempotencyKey) {
        byte[] content = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder()
                .append(method.name()).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\n")
                .append("Connection: close\r\n");
        token.ifPresent(t -> head.append("Authorization: Bearer ").append(t).append("\r\n"));
        if (idempotencyKey != null) {
            head.append("Idempotency-Key: ").append(idempotencyKey).append("\r\n");
        }
        if (content != null) {
            head.append("Content-Type: application/json\r\n");
        }
        if (content != null || method != HttpMethod.GET) {
            head.append("Content-Length: ").append(content == null ? 0 : content.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
        if (content == null) {
            return h;
        }
        byte[] all = java.util.Arrays.copyOf(h, h.length + content.length);
        System.arraycopy(content, 0, all, h.length, content.length);
        return all;
    }

    /**
     * A Content-Length (decimal, RFC 9110 §8.6: 1*DIGIT) or a chunk size (hexadecimal, RFC 9112 §7.1: 1*HEXDIG): no
     * sign, no space, below 2^63. Anything else is an answer not understood, not a NumberFormatException.
     */
    static long size(String text, int radix, String what) throws IOException {
        boolean digits = !text.isEmpty();
        for (int i = 0; i < text.length() && digits; i++) {
            digits = Character.digit(text.charAt(i), radix) >= 0;
        }
        try {
            if (digits) {
                return Long.parseLong(text, radix);
            }
        } catch (NumberFormatException e) {
            // too large: below
        }
        throw new IOException("an answer whose " + what + " is not a number below 2^63: '" + text + "'");
    }

    /** The status of an HTTP/1.x status line (RFC 9112 §4). */
    private static int status(String line) throws IOException {
        String[] parts = line.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x answer: " + line);
        }
        try {
            return Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP/1.x status: " + line);
        }
    }

    /** One CRLF- (or LF-) terminated line of ASCII / UTF-8, without its terminator. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("the connection ended inside the answer's head");
            }
            if (line.size() >= MAX_LINE) {
                throw new IOException("an answer line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        String s = line.toString(StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** A response body: chunked (RFC 9112 §7.1), of a Content-Length, or to the end of the connection. */
    private static final class BodyReader {
        private final InputStream in;
        private final boolean chunked;
        private long left;
        private boolean done;

        BodyReader(InputStream in, boolean chunked, long length) {
            this.in = in;
            this.chunked = chunked;
            this.left = chunked ? 0 : length;   // -1: until the connection ends
        }

        /** The next bytes of the body into {@code buffer}; -1 at its end. */
        int read(byte[] buffer) throws IOException {
            if (done) {
                return -1;
            }
            if (chunked && left == 0) {
                String size = line(in);
                int semicolon = size.indexOf(';');   // chunk extensions are ignored
                left = size((semicolon >= 0 ? size.substring(0, semicolon) : size).trim(), 16, "chunk size");
                if (left == 0) {
                    while (!line(in).isEmpty()) {
                        // trailer fields: none of ours matter
                    }
                    done = true;
                    return -1;
                }
            }
            if (left == 0) {
                done = true;
                return -1;
            }
            int n = in.read(buffer, 0, left < 0 ? buffer.length : (int) Math.min(buffer.length, left));
            if (n < 0) {
                if (left > 0) {
                    throw new EOFException("the connection ended inside the answer's body");
                }
                done = true;
                return -1;
            }
            if (left > 0) {
                left -= n;
                if (chunked && left == 0 && !line(in).isEmpty()) {
                    throw new IOException("a chunk not followed by CRLF");
                }
            }
            return n;
        }

        byte[] all() throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = read(buffer); n >= 0; n = read(buffer)) {
                body.write(buffer, 0, n);
            }
            return body.toByteArray();
        }

        /** Each {@code \n}-terminated line (UTF-8) as it arrives; a last line without one at the end too. */
        void lines(Consumer<String> lines) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = read(buffer); n >= 0; n = read(buffer)) {
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        line.write(buffer, from, i - from);
                        lines.accept(line.toString(StandardCharsets.UTF_8));
                        line.reset();
                        from = i + 1;
                    }
                }
                line.write(buffer, from, n - from);
            }
            if (line.size() > 0) {
                lines.accept(line.toString(StandardCharsets.UTF_8));
            }
        }
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

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }

    /** The innermost message of a failure, with its kind when it has none. */
    private static String describe(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() != null ? t.getMessage() : failure.getMessage();
        if (message == null && (t instanceof AsynchronousCloseException || t instanceof ClosedChannelException)) {
            return "connection closed";
        }
        return message != null ? message : t.getClass().getSimpleName();
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
