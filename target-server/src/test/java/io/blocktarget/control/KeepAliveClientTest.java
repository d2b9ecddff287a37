package io.blocktarget.control;

import io.blocktarget.config.ConfigLoader;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that keeps its connection alive (any HTTP library's default) gets an answer to every request: before the
 * server closed each connection after its response, about one request in 300 (GET and POST alternating on one
 * connection) was never answered. 600 requests, each answered or the test fails.
 */
class KeepAliveClientTest {
    @TempDir
    Path dir;

    @Test
    void everyRequestOfAKeepAliveClientIsAnswered() throws Exception {
        var embedded = ConfigLoader.embeddedDefault();
        try (ControlFixture f = ControlFixture.start(
                new InMemoryControlPlane(embedded.server(), Optional.empty(), embedded.luns()), dir)) {
            Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(1));
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
            try {
                for (int i = 0; i < 600; i++) {
                    boolean post = i % 2 == 1;
                    RequestOptions o = new RequestOptions().setMethod(post ? HttpMethod.POST : HttpMethod.GET)
                            .setURI(post ? "/v1/reload" : "/v1/luns").setHost("localhost")
                            .setServer(SocketAddress.domainSocketAddress(f.socket.toString()));
                    int status = client.request(o).compose(r -> r.send()).compose(r -> r.body().map(b -> r.statusCode()))
                            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                    // GET lists the LUNs; POST /v1/reload without a config directory is a 409 problem
                    assertThat(status).as("request %d", i).isEqualTo(post ? 409 : 200);
                }
            } finally {
                client.close();
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
    }
}
