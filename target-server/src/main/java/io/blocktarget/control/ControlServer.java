package io.blocktarget.control;

import io.blocktarget.config.ControlConfig;
import io.blocktarget.server.ControlPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control API's listeners: the Unix domain socket of {@code control-socket} (mode 0660: the owner and the
 * group may manage the server) and, with {@code control-listen}, a TCP listener that only answers requests carrying
 * the bearer token of {@code control-token-file}. {@link #start} returns once both listen; {@link #close} stops them
 * and removes the socket file.
 *
 * <p>Wiring into {@code serve}: {@code ControlServer.start(vertx, controlPlane, config.server().control())}, closed
 * before the target server stops.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = System.getLogger("blocktarget.control");
    private static final long START_TIMEOUT_SECONDS = 30;

    private final List<HttpServer> servers;
    private final WorkerExecutor worker;
    private final Optional<Path> socket;
    private final int tcpPort;
    private final List<String> routes;
    private final ControlApi api;

    private ControlServer(List<HttpServer> servers, WorkerExecutor worker, Optional<Path> socket, int tcpPort,
                          List<String> routes, ControlApi api) {
        this.api = api;
        this.servers = servers;
        this.worker = worker;
        this.socket = socket;
        this.tcpPort = tcpPort;
        this.routes = routes;
    }

    /**
     * Starts the listeners of {@code config}. Blocks until they listen; call it from a thread that is not an event
     * loop (the CLI's main thread, a test).
     *
     * @throws ControlStartException when a listener cannot be started (socket in use, no native transport, ...)
     */
    public static ControlServer start(Vertx vertx, ControlPlane plane, ControlConfig config)
            throws ControlStartException {
        // One thread for changes: they are serialized by design, and apply may block (drain, fsync).
        WorkerExecutor worker = vertx.createSharedWorkerExecutor("blocktarget-control", 1);
        ControlApi api = new ControlApi(vertx, plane, worker);
        List<HttpServer> servers = new ArrayList<>();
        try {
            Optional<Path> socket = config.socket();
            if (socket.isPresent()) {
                servers.add(listenOnSocket(vertx, api, socket.get()));
            }
            int port = 0;
            if (config.listen().isPresent()) {
                String token = readToken(config.tokenFile().orElseThrow());
                ControlConfig.Listen listen = config.listen().get();
                HttpServer tcp = await(vertx.createHttpServer(new HttpServerOptions())
                        .requestHandler(api.router(Optional.of(token)))
                        .listen(listen.port(), listen.host()), "control-listen " + listen);
                servers.add(tcp);
                port = tcp.actualPort();
                LOG.log(Level.INFO, "control API on " + listen.host() + ":" + port + " (bearer token)");
            }
            return new ControlServer(servers, worker, socket, port, ControlApi.routes(api.router(Optional.empty())),
                    api);
        } catch (ControlStartException e) {
            servers.forEach(s -> s.close());
            worker.close();
            api.close();
            if (!servers.isEmpty()) {
                config.socket().ifPresent(ControlServer::deleteQuietly); // ours: the TCP listener failed after it
            }
            throw e;
        }
    }

    private static HttpServer listenOnSocket(Vertx vertx, ControlApi api, Path socket) throws ControlStartException {
        if (!vertx.isNativeTransportEnabled()) {
            throw new ControlStartException("control-socket " + socket + ": a Unix domain socket needs the native"
                    + " transport (" + vertx.unavailableNativeTransportCause() + "); set control-socket: off and use"
                    + " control-listen");
        }
        prepareSocketPath(socket);
        HttpServer server = await(vertx.createHttpServer(new HttpServerOptions())
                .requestHandler(api.router(Optional.empty()))
                .listen(SocketAddress.domainSocketAddress(socket.toString())), "control-socket " + socket);
        try {
            // rw-rw----: the server's user and group manage it, nobody else connects (connect(2) needs write).
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
        } catch (IOException e) {
            server.close();
            throw new ControlStartException("control-socket " + socket + ": cannot set mode 0660: " + e);
        }
        LOG.log(Level.INFO, "control API on " + socket);
        return server;
    }

    /**
     * Creates the socket's directory and removes a stale socket file: one no server answers on (left by a crash).
     * A live socket means another server runs; anything that is not a socket is left alone.
     */
    static void prepareSocketPath(Path socket) throws ControlStartException {
        try {
            Path parent = socket.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            BasicFileAttributes attributes = Files.readAttributes(socket, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isOther()) {
                throw new ControlStartException("control-socket " + socket + " exists and is not a socket; remove it"
                        + " or choose another control-socket");
            }
            if (answers(socket)) {
                throw new ControlStartException("control-socket " + socket + " is in use: another blocktarget server"
                        + " runs; stop it or choose another control-socket");
            }
            Files.delete(socket);
            LOG.log(Level.INFO, "control: removed stale socket " + socket);
        } catch (IOException e) {
            throw new ControlStartException("control-socket " + socket + ": " + e);
        }
    }

    private static boolean answers(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    private static String readToken(Path file) throws ControlStartException {
        try {
            return ControlConfig.readToken(file);
        } catch (IOException e) {
            throw new ControlStartException("control-token-file " + file + ": cannot be read: " + e);
        }
    }

    private static <T> T await(Future<T> future, String what) throws ControlStartException {
        try {
            return future.toCompletionStage().toCompletableFuture().get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ControlStartException(what + ": " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new ControlStartException(what + ": did not start within " + START_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlStartException(what + ": interrupted");
        }
    }

    /** The Unix socket, if one listens. */
    public Optional<Path> socket() {
        return socket;
    }

    /** The TCP port, 0 without a TCP listener. */
    public int tcpPort() {
        return tcpPort;
    }

    /** Every route as {@code METHOD /path/{param}} (for the OpenAPI test). */
    public List<String> routes() {
        return routes;
    }

    @Override
    public void close() {
        for (HttpServer server : servers) {
            try {
                server.close().toCompletionStage().toCompletableFuture().get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(Level.WARNING, "control: closing a listener: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        worker.close();
        api.close();
        socket.ifPresent(ControlServer::deleteQuietly);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "control: cannot remove " + path + ": " + e);
        }
    }

    /** A listener of the control API could not be started. */
    public static final class ControlStartException extends Exception {
        public ControlStartException(String message) {
            super(message);
        }
    }
}
