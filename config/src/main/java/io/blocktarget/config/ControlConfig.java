package io.blocktarget.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the control API listens, from {@code blocktarget.yaml}: a Unix domain socket by default, optionally a TCP
 * listener that only answers requests carrying the bearer token of {@code tokenFile}.
 *
 * @param socket    the Unix domain socket ({@code control-socket}); empty: {@code control-socket: off}
 * @param listen    the TCP listener ({@code control-listen}); empty: none
 * @param tokenFile the bearer token's file ({@code control-token-file}, absolute); present exactly when {@code listen} is
 */
public record ControlConfig(Optional<Path> socket, Optional<Listen> listen, Optional<Path> tokenFile) {
    /** Where root's server listens unless told otherwise. */
    public static final Path ROOT_SOCKET = Path.of("/run/blocktarget/control.sock");
    /** Under {@code $XDG_RUNTIME_DIR} for everybody else (a per-user directory only its owner may enter). */
    public static final String USER_SOCKET_NAME = "blocktarget.sock";

    /**
     * A TCP listener address.
     *
     * @param host an IP address literal (IPv6 without brackets)
     * @param port 1..65535
     */
    public record Listen(String host, int port) {
        public Listen {
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " outside 1..65535");
            }
        }

        /** {@code 127.0.0.1:9000}, {@code [::1]:9000}. */
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    public ControlConfig {
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(tokenFile, "tokenFile");
        if (listen.isPresent() != tokenFile.isPresent()) {
            throw new IllegalArgumentException("a TCP control listener needs a token file, and only it");
        }
    }

    /** No {@code control-*} key: the default socket, no TCP listener. */
    public static ControlConfig defaults() {
        return new ControlConfig(Optional.of(defaultSocket()), Optional.empty(), Optional.empty());
    }

    /**
     * The socket the server listens on and the CLI talks to unless told otherwise: {@link #ROOT_SOCKET} for root,
     * else {@code $XDG_RUNTIME_DIR/blocktarget.sock}, else {@code blocktarget-UID.sock} in the temporary directory.
     */
    public static Path defaultSocket() {
        if (isRoot()) {
            return ROOT_SOCKET;
        }
        String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
        if (runtimeDir != null && !runtimeDir.isBlank()) {
            return Path.of(runtimeDir, USER_SOCKET_NAME);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "blocktarget-" + uid().orElse(-1) + ".sock");
    }

    private static boolean isRoot() {
        return uid().map(uid -> uid == 0).orElse("root".equals(System.getProperty("user.name")));
    }

    /** The process's user ID: the owner of {@code /proc/self} (Linux); empty elsewhere. */
    private static Optional<Integer> uid() {
        try {
            return Optional.of((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return Optional.empty();
        }
    }

    /** The token of a token file: its text minus one trailing newline ({@code \n} or {@code \r\n}). */
    public static String readToken(Path file) throws IOException {
        String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
        }
        return text;
    }
}
