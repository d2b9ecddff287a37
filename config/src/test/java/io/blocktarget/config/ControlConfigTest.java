package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** blocktarget.yaml: control-socket, control-listen, control-token-file. */
class ControlConfigTest extends ConfigDirTest {
    static final String TOKEN = "c2VjcmV0LXRva2VuLWZvci10ZXN0cw==";
    static final String LISTEN_ALLOWED = "allowed: ADDRESS:PORT with an IP address literal and a port 1..65535, e.g."
            + " 127.0.0.1:9740 or [::1]:9740; needs control-token-file";
    static final String TOKEN_ALLOWED = "allowed: a regular file holding the bearer token: 16 to 4096 characters of"
            + " A-Z a-z 0-9 - . _ ~ + / with optional trailing = (RFC 6750 §2.1), one trailing newline ignored, e.g."
            + " made by head -c 32 /dev/urandom | base64 > FILE";

    @BeforeEach
    void oneLun() {
        config.lun("r", "backend: null\nsize: 1GiB\n");
    }

    @Test
    void defaultIsTheDefaultSocketAndNoTcp() throws ConfigException {
        ControlConfig control = config.load().server().control();
        assertThat(control).isEqualTo(ControlConfig.defaults());
        assertThat(control.socket()).contains(ControlConfig.defaultSocket());
        assertThat(control.listen()).isEmpty();
    }

    @Test
    void defaultSocketFollowsTheUser() {
        Path socket = ControlConfig.defaultSocket();
        if (System.getProperty("user.name").equals("root")) {
            assertThat(socket).isEqualTo(Path.of("/run/blocktarget/control.sock"));
        } else if (System.getenv("XDG_RUNTIME_DIR") != null) {
            assertThat(socket).isEqualTo(Path.of(System.getenv("XDG_RUNTIME_DIR"), "blocktarget.sock"));
        } else {
            assertThat(socket.getFileName().toString()).startsWith("blocktarget-").endsWith(".sock");
        }
    }

    @Test
    void socketPathIsRelativeToTheConfigDirAndOffDisables() throws ConfigException {
        config.file("blocktarget.yaml", "control-socket: run/ctl.sock\n");
        assertThat(config.load().server().control().socket()).contains(tmp.resolve("run/ctl.sock"));
        config.file("blocktarget.yaml", "control-socket: off\n");
        assertThat(config.load().server().control().socket()).isEmpty();
        config.file("blocktarget.yaml", "control-socket: /abs/x.sock\n");
        assertThat(config.load().server().control().socket()).contains(Path.of("/abs/x.sock"));
    }

    @Test
    void socketPathMustFitSunPath() throws ConfigException {
        String base = "/" + "s".repeat(100) + "/";
        config.file("blocktarget.yaml", "control-socket: " + base + "x".repeat(107 - base.length()) + "\n");
        assertThat(config.load().server().control().socket().orElseThrow().toString()).hasSize(107);
        String tooLong = base + "x".repeat(108 - base.length());
        config.file("blocktarget.yaml", "control-socket: " + tooLong + "\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: control-socket: " + tooLong + " is longer"
                + " than 107 bytes, the most a Unix socket address holds (sun_path, unix(7)); allowed: a shorter path");
    }

    @Test
    void emptySocketIsAProblem() {
        config.file("blocktarget.yaml", "control-socket: \"\"\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: control-socket: an empty path; allowed: off,"
                + " or the path of the control API's Unix domain socket (absolute, or relative to the config directory)");
    }

    @Test
    void tcpListenerWithTokenFile() throws ConfigException {
        config.file("token", TOKEN + "\n");
        config.file("blocktarget.yaml", "control-listen: 127.0.0.1:9740\ncontrol-token-file: token\n");
        ControlConfig control = config.load().server().control();
        assertThat(control.listen()).contains(new ControlConfig.Listen("127.0.0.1", 9740));
        assertThat(control.tokenFile()).contains(tmp.resolve("token"));
        assertThat(control.listen().orElseThrow()).hasToString("127.0.0.1:9740");
    }

    @Test
    void ipv6ListenerNeedsBrackets() throws ConfigException {
        config.file("token", TOKEN);
        config.file("blocktarget.yaml", "control-listen: \"[::1]:65535\"\ncontrol-token-file: token\n");
        assertThat(config.load().server().control().listen()).contains(new ControlConfig.Listen("::1", 65535));
        config.file("blocktarget.yaml", "control-listen: \"::1:9740\"\ncontrol-token-file: token\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: control-listen: ::1:9740: an IPv6 address"
                + " needs brackets; " + LISTEN_ALLOWED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "localhost:9740", "127.1:9740", ":9740",
        "127.0.0.1:"})
    void badListenAddresses(String listen) {
        config.file("token", TOKEN);
        config.file("blocktarget.yaml", "control-listen: \"" + listen + "\"\ncontrol-token-file: token\n");
        assertThat(config.problems()).singleElement().asString()
                .startsWith("blocktarget.yaml:1: control-listen: " + listen).endsWith(LISTEN_ALLOWED);
    }

    @Test
    void listenWithoutTokenIsRefused() {
        config.file("blocktarget.yaml", "control-listen: 127.0.0.1:9740\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: control-listen: given without control-token-file; " + LISTEN_ALLOWED);
    }

    @Test
    void tokenWithoutListenIsRefused() {
        config.file("token", TOKEN);
        config.file("blocktarget.yaml", "control-token-file: token\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: control-token-file: given without"
                + " control-listen; allowed: only with control-listen (the Unix socket is guarded by its file mode,"
                + " not by a token)");
    }

    @Test
    void tokenFileMustExist() {
        config.file("blocktarget.yaml", "control-listen: 127.0.0.1:9740\ncontrol-token-file: nope\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:2: control-token-file: nope does not exist ("
                + tmp.resolve("nope") + "); " + TOKEN_ALLOWED);
    }

    @Test
    void tokenLengthLimits() throws ConfigException {
        String listen = "control-listen: 127.0.0.1:9740\ncontrol-token-file: token\n";
        config.file("blocktarget.yaml", listen);
        config.file("token", "a".repeat(16) + "\n");
        assertThat(config.load().server().control().tokenFile()).isPresent();
        config.file("token", "a".repeat(15) + "\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:2: control-token-file: token holds 15 characters; " + TOKEN_ALLOWED);
        config.file("token", "a".repeat(4096));
        assertThat(config.load().server().control().tokenFile()).isPresent();
        config.file("token", "a".repeat(4097));
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:2: control-token-file: token holds 4097 characters; " + TOKEN_ALLOWED);
    }

    @Test
    void tokenWithASpaceIsRefused() {
        config.file("blocktarget.yaml", "control-listen: 127.0.0.1:9740\ncontrol-token-file: token\n");
        config.file("token", "abcdefgh ijklmnopq\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:2: control-token-file: token holds a"
                + " character a bearer token cannot have; " + TOKEN_ALLOWED);
    }

    @Test
    void readTokenStripsOneNewline() throws Exception {
        config.file("t1", TOKEN + "\r\n");
        config.file("t2", TOKEN + "\n\n");
        assertThat(ControlConfig.readToken(tmp.resolve("t1"))).isEqualTo(TOKEN);
        assertThat(ControlConfig.readToken(tmp.resolve("t2"))).isEqualTo(TOKEN + "\n");
    }

    @Test
    void listenRequiresATokenFileInTheRecordToo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ControlConfig(Optional.empty(),
                Optional.of(new ControlConfig.Listen("127.0.0.1", 1)), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
