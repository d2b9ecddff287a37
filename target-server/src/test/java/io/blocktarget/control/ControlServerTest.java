package io.blocktarget.control;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ControlConfig;
import io.blocktarget.control.ControlClient.Response;
import io.vertx.core.http.HttpMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The listeners: socket file mode and life cycle, and the TCP listener's bearer token. */
class ControlServerTest {
    private static final String TOKEN = "c2VjcmV0LXRva2VuLWZvci10ZXN0cw==";

    @TempDir
    Path tmp;

    private static InMemoryControlPlane plane() {
        return new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(), Optional.empty(),
                ConfigLoader.embeddedDefault().luns());
    }

    private static ControlConfig socketOnly(Path socket) {
        return new ControlConfig(Optional.of(socket), Optional.empty(), Optional.empty());
    }

    @Test
    void socketIsMode0660InACreatedDirectoryAndRemovedOnClose() throws Exception {
        Path socket = tmp.resolve("run/sub/control.sock");
        try (ControlFixture fixture = ControlFixture.start(plane(), socketOnly(socket))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-rw----");
            assertThat(fixture.get("/v1/luns").status()).isEqualTo(200);
            assertThat(fixture.server.socket()).contains(socket);
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void staleSocketFileIsRemovedAtStart() throws Exception {
        Path socket = tmp.resolve("stale.sock");
        try (ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.bind(UnixDomainSocketAddress.of(socket));
        } // closed: the file stays, nobody answers — what a crashed server leaves
        assertThat(socket).exists();
        try (ControlFixture fixture = ControlFixture.start(plane(), socketOnly(socket))) {
            assertThat(fixture.get("/v1/luns").status()).isEqualTo(200);
        }
    }

    @Test
    void liveSocketIsNotTakenOver() throws Exception {
        Path socket = tmp.resolve("live.sock");
        try (ControlFixture first = ControlFixture.start(plane(), socketOnly(socket))) {
            assertThatThrownBy(() -> ControlFixture.start(plane(), socketOnly(socket)))
                    .isInstanceOf(ControlServer.ControlStartException.class)
                    .hasMessageContaining("is in use: another blocktarget server runs");
            assertThat(first.get("/v1/luns").status()).isEqualTo(200);
        }
    }

    @Test
    void aFileThatIsNotASocketIsLeftAlone() throws Exception {
        Path socket = tmp.resolve("file.sock");
        Files.writeString(socket, "data");
        assertThatThrownBy(() -> ControlFixture.start(plane(), socketOnly(socket)))
                .isInstanceOf(ControlServer.ControlStartException.class)
                .hasMessageContaining("exists and is not a socket");
        assertThat(Files.readString(socket)).isEqualTo("data");
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void tcpListenerNeedsTheBearerToken() throws Exception {
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, TOKEN + "\n");
        int port = freePort();
        ControlConfig config = new ControlConfig(Optional.empty(),
                Optional.of(new ControlConfig.Listen("127.0.0.1", port)), Optional.of(tokenFile));
        try (ControlFixture fixture = ControlFixture.start(plane(), config)) {
            assertThat(fixture.server.tcpPort()).isEqualTo(port);
            assertThat(fixture.server.socket()).isEmpty();
            String url = "http://127.0.0.1:" + port;
            for (Optional<String> token : List.of(Optional.<String>empty(), Optional.of("wrong"),
                    Optional.of(TOKEN + "x"), Optional.of(TOKEN.substring(1)))) {
                try (ControlClient client = ControlClient.connect(url, token)) {
                    Response r = client.get("/v1/luns");
                    assertThat(r.status()).as("token %s", token).isEqualTo(401);
                    assertThat(r.contentType()).isEqualTo("application/problem+json");
                    assertThat(r.json().getInteger("status")).isEqualTo(401);
                    Response post = client.call(HttpMethod.DELETE, "/v1/luns/ram-4k", (String) null);
                    assertThat(post.status()).isEqualTo(401);
                }
            }
            try (ControlClient client = ControlClient.connect(url, Optional.of(TOKEN))) {
                assertThat(client.get("/v1/luns").status()).isEqualTo(200);
                assertThat(client.get("/metrics").status()).isEqualTo(200);
            }
        }
    }

    @Test
    void tcpPortInUseFailsTheStartAndLeavesNoSocket() throws Exception {
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, TOKEN);
        Path socket = tmp.resolve("both.sock");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ControlConfig config = new ControlConfig(Optional.of(socket),
                    Optional.of(new ControlConfig.Listen("127.0.0.1", taken.getLocalPort())), Optional.of(tokenFile));
            assertThatThrownBy(() -> ControlFixture.start(plane(), config))
                    .isInstanceOf(ControlServer.ControlStartException.class)
                    .hasMessageStartingWith("control-listen 127.0.0.1:" + taken.getLocalPort());
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void missingTokenFileFailsTheStart() {
        ControlConfig config = new ControlConfig(Optional.empty(),
                Optional.of(new ControlConfig.Listen("127.0.0.1", 1)), Optional.of(tmp.resolve("none")));
        assertThatThrownBy(() -> ControlFixture.start(plane(), config))
                .isInstanceOf(ControlServer.ControlStartException.class)
                .hasMessageContaining("control-token-file");
    }

    @Test
    void clientWithoutServerSaysSo() throws Exception {
        try (ControlClient client = ControlClient.connect(tmp.resolve("nobody.sock").toString(), Optional.empty())) {
            assertThatThrownBy(() -> client.get("/v1/luns"))
                    .isInstanceOf(ControlClient.UnreachableException.class)
                    .hasMessage("no control socket at " + tmp.resolve("nobody.sock") + " (is blocktarget serve running?"
                            + " pick it with --control PATH|URL or BLOCKTARGET_CONTROL)");
        }
        Path notListening = tmp.resolve("plain");
        Files.writeString(notListening, "");
        try (ControlClient client = ControlClient.connect(notListening.toString(), Optional.empty())) {
            assertThatThrownBy(() -> client.get("/v1/luns"))
                    .isInstanceOf(ControlClient.UnreachableException.class)
                    .hasMessageStartingWith("cannot talk to the server at " + notListening + ": ")
                    .hasMessageContaining("Connection refused");
        }
    }
}
