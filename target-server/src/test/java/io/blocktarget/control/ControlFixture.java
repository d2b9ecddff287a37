package io.blocktarget.control;

import io.blocktarget.config.ControlConfig;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.server.ControlPlane;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A ControlServer on a Unix socket in a test directory, in front of any {@link ControlPlane} (the in-memory double
 * here; a real server's registry in end-to-end tests), and a client talking to it over that socket.
 */
public final class ControlFixture implements AutoCloseable {
    public final Vertx vertx;
    public final ControlServer server;
    public final ControlClient client;
    public final Path socket;

    private ControlFixture(Vertx vertx, ControlServer server, Path socket) {
        this.vertx = vertx;
        this.server = server;
        this.socket = socket;
        this.client = socket != null ? ControlClient.connect(socket.toString(), Optional.empty())
                : ControlClient.connect("http://127.0.0.1:" + server.tcpPort(), Optional.empty());
    }

    public static ControlFixture start(ControlPlane plane, Path dir) throws Exception {
        return start(plane, new ControlConfig(Optional.of(dir.resolve("control.sock")), Optional.empty(),
                Optional.empty()));
    }

    public static ControlFixture start(ControlPlane plane, ControlConfig config) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(2));
        try {
            ControlServer server = ControlServer.start(vertx, plane, config);
            return new ControlFixture(vertx, server, config.socket().orElse(null));
        } catch (Exception e) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    public Response get(String path) throws Exception {
        return client.get(path);
    }

    public Response call(HttpMethod method, String path, JsonObject body) throws Exception {
        return client.call(method, path, body);
    }

    @Override
    public void close() throws Exception {
        client.close();
        server.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
