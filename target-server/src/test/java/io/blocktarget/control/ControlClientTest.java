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
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's side of a request that is never answered: retried, and the message says how far each attempt got. */
class ControlClientTest {
    @TempDir
    Path tmp;

    @Test
    void aServerThatNeverAnswersIsTriedThreeTimesAndTheMessageSaysEachGotConnected() throws Exception {
        Path socket = tmp.resolve("mute.sock");
        // listening, never accepting: the kernel completes each connect from its backlog, nobody reads the request
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())
                     .withTimeouts(Duration.ofMillis(300), Duration.ofMillis(500))) {
            server.bind(UnixDomainSocketAddress.of(socket));
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
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())
                     .withTimeouts(Duration.ofMillis(300), Duration.ofMillis(300))) {
            server.bind(UnixDomainSocketAddress.of(socket));
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
}
