package io.blocktarget.cli;

import io.blocktarget.cli.ControlTarget.Found;
import io.blocktarget.config.ControlConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which control socket a client command picks without {@code --control}: the user's own server's first, then the
 * system service's (a member of its group reaches it with no option), and what an error says was tried.
 */
class ControlTargetTest {
    @TempDir
    Path tmp;

    private static final Path MINE = Path.of("/run/user/1000/blocktarget.sock");
    private static final Path SYSTEM = ControlConfig.ROOT_SOCKET;

    @Test
    void candidatesAreTheUsersSocketThenTheServices() {
        assertThat(ControlTarget.candidates(MINE)).containsExactly(MINE, SYSTEM);
        assertThat(ControlTarget.candidates(SYSTEM)).as("root: one").containsExactly(SYSTEM);
    }

    @Test
    void theFirstSocketFoundIsTaken() {
        Map<Path, Found> found = Map.of(MINE, Found.ABSENT, SYSTEM, Found.SOCKET);
        ControlTarget.Choice c = ControlTarget.choose(List.of(MINE, SYSTEM), found::get);
        assertThat(c.target()).isEqualTo(SYSTEM.toString());
        assertThat(c.tried()).isEmpty();
        Map<Path, Found> both = Map.of(MINE, Found.SOCKET, SYSTEM, Found.SOCKET);
        assertThat(ControlTarget.choose(List.of(MINE, SYSTEM), both::get).target()).isEqualTo(MINE.toString());
    }

    @Test
    void noSocketFoundKeepsTheFirstAndSaysWhatWasWrongWithEach() {
        Map<Path, Found> found = Map.of(MINE, Found.ABSENT, SYSTEM, Found.DENIED);
        ControlTarget.Choice c = ControlTarget.choose(List.of(MINE, SYSTEM), found::get);
        assertThat(c.target()).isEqualTo(MINE.toString());
        assertThat(c.triedText()).startsWith("tried " + MINE + " (no such file), " + SYSTEM + " (permission denied: ");
        Map<Path, Found> file = Map.of(MINE, Found.NOT_A_SOCKET, SYSTEM, Found.ABSENT);
        assertThat(ControlTarget.choose(List.of(MINE, SYSTEM), file::get).triedText())
                .isEqualTo("tried " + MINE + " (not a socket), " + SYSTEM + " (no such file)");
    }

    @Test
    void lookTellsASocketFromAFileFromNothing() throws Exception {
        Path socket = tmp.resolve("s.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            assertThat(ControlTarget.look(socket)).isEqualTo(Found.SOCKET);
        }
        Path file = Files.writeString(tmp.resolve("f"), "x");
        assertThat(ControlTarget.look(file)).isEqualTo(Found.NOT_A_SOCKET);
        assertThat(ControlTarget.look(tmp)).isEqualTo(Found.NOT_A_SOCKET);
        assertThat(ControlTarget.look(tmp.resolve("none"))).isEqualTo(Found.ABSENT);
        assertThat(ControlTarget.look(file.resolve("under-a-file"))).isEqualTo(Found.ABSENT);
    }

    @Test
    void anExplicitTargetIsTakenAsItIs() {
        ControlTarget t = new ControlTarget();
        t.control = "http://127.0.0.1:9000";
        assertThat(t.choose()).isEqualTo(new ControlTarget.Choice("http://127.0.0.1:9000", List.of()));
    }
}
