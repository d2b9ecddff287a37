package io.blocktarget.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads {@code blocktarget.yaml}. A wrong value is reported and replaced by its default, so the LUN files
 * are still checked against sensible prefixes and every problem of the directory shows up in one run.
 */
final class ServerConfigReader {
    static final long MAX_POLL_WINDOW_NANOS = ServerKeys.MAX_POLL_WINDOW_NANOS;
    static final String POLL_WINDOW_ALLOWED = ServerKeys.POLL_WINDOW_ALLOWED;
    static final String TOKEN_ALLOWED = ServerKeys.TOKEN_ALLOWED;
    /** {@code control-socket: off}: no Unix socket. */
    static final String SOCKET_OFF = "off";
    /** unix(7): sun_path is 108 bytes including the terminating NUL. */
    static final int MAX_SOCKET_PATH_BYTES = 107;
    static final int MIN_TOKEN_CHARS = 16;
    static final int MAX_TOKEN_CHARS = 4096;
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

    private ServerConfigReader() {
    }

    /** The settings when there is no {@code blocktarget.yaml}. */
    static ServerConfig defaults(Path source, long memoryBudget) {
        return new ServerConfig(source, ServerConfig.DEFAULT_BIND_ADDRESS, ServerConfig.DEFAULT_ISCSI_PORT,
                ServerConfig.DEFAULT_NVME_PORT, ServerConfig.DEFAULT_DISCOVERY_PORT, memoryBudget,
                ServerConfig.DEFAULT_IQN_PREFIX, ServerConfig.DEFAULT_NQN_PREFIX);
    }

    /** @param root the document, empty for an empty file (all defaults) */
    static ServerConfig read(Optional<Node> root, Problems problems) {
        return read(root, problems, new java.util.ArrayList<>());
    }

    /** @param warnings gets e.g. a world-readable {@code discovery-chap} secret file */
    static ServerConfig read(Optional<Node> root, Problems problems, List<String> warnings) {
        Path source = problems.file();
        Optional<YamlMap> parsed = root.flatMap(node -> YamlMap.of(node, "", ServerKeys.SERVER, problems));
        if (parsed.isEmpty()) {
            return defaults(source, ConfigLoader.defaultMemoryBudget());
        }
        YamlMap map = parsed.get();
        Map<Key<Long>, Integer> ports = new LinkedHashMap<>();
        for (Key<Long> port : List.of(ServerKeys.ISCSI_PORT, ServerKeys.NVME_PORT, ServerKeys.DISCOVERY_PORT)) {
            // a wrong value is reported and replaced by the default
            ports.put(port, map.value(port).orElse(port.defaultValue().orElseThrow()).intValue());
        }
        checkDistinct(map, ports);
        boolean poll = map.value(ServerKeys.POLL).orElse(false);
        long pollWindow = map.value(ServerKeys.POLL_WINDOW).orElse(ServerConfig.POLL_WINDOW_AUTO);
        if (poll && pollWindow > 0) {   // a loop that always spins has no window to end
            map.problem(ServerKeys.POLL_WINDOW, "only without " + ServerKeys.POLL.name() + ": true (a loop that always"
                    + " polls has no window to end); allowed: " + POLL_WINDOW_ALLOWED);
            pollWindow = 0;
        }
        Path dir = source == null ? Path.of("") : source.toAbsolutePath().getParent();
        String bind = map.value(ServerKeys.BIND).orElse(ServerConfig.DEFAULT_BIND_ADDRESS);
        List<PortalConfig> portals = PortalsReader.read(map, bind, ports.get(ServerKeys.DISCOVERY_PORT), problems);
        return new ServerConfig(
                source,
                bind,
                ports.get(ServerKeys.ISCSI_PORT),
                ports.get(ServerKeys.NVME_PORT),
                ports.get(ServerKeys.DISCOVERY_PORT),
                map.value(ServerKeys.MEMORY_BUDGET).orElseGet(ConfigLoader::defaultMemoryBudget),
                map.value(ServerKeys.IQN_PREFIX).orElse(ServerConfig.DEFAULT_IQN_PREFIX),
                map.value(ServerKeys.NQN_PREFIX).orElse(ServerConfig.DEFAULT_NQN_PREFIX),
                map.value(ServerKeys.EVENT_LOOPS).orElse(0L).intValue(),
                poll,
                control(map, dir),
                map.has(ServerKeys.DISCOVERY_CHAP) ? AccessReader.chap(map, ServerKeys.DISCOVERY_CHAP, dir, problems,
                        warnings) : Optional.empty(),
                pollWindow,
                portals);
    }

    /**
     * {@code control-socket} (default {@link ControlConfig#defaultSocket()}, {@code off} disables),
     * {@code control-listen} and {@code control-token-file}, which need each other: a TCP listener is reachable by
     * every local user (and more when bound elsewhere), so it only answers requests with the token.
     */
    private static ControlConfig control(YamlMap map, Path dir) {
        Key<String> socketKey = ServerKeys.CONTROL_SOCKET;
        Key<ControlConfig.Listen> listenKey = ServerKeys.CONTROL_LISTEN;
        Key<String> tokenKey = ServerKeys.CONTROL_TOKEN_FILE;
        Optional<Path> socket = map.has(socketKey)
                ? map.value(socketKey).map(text -> text.equals(SOCKET_OFF) ? null : dir.resolve(text).normalize())
                : Optional.of(ControlConfig.defaultSocket());
        if (socket.isPresent() && socket.get().toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length
                > MAX_SOCKET_PATH_BYTES) {
            map.problem(socketKey, socket.get().toAbsolutePath() + " is longer than " + MAX_SOCKET_PATH_BYTES
                    + " bytes, the most a Unix socket address holds (sun_path, unix(7)); allowed: a shorter path");
            socket = Optional.empty();
        }
        if (map.has(socketKey) && socket.isEmpty() && !map.text(socketKey).equals(SOCKET_OFF)) {
            socket = Optional.of(ControlConfig.defaultSocket()); // wrong value: reported, default kept
        }
        Optional<ControlConfig.Listen> listen = map.value(listenKey);
        Optional<Path> tokenFile = map.value(tokenKey).flatMap(text -> tokenFile(map, dir, text));
        if (map.has(listenKey) && !map.has(tokenKey)) {
            map.problem(listenKey, "given without " + tokenKey.name() + "; allowed: " + ServerKeys.LISTEN_ALLOWED);
        }
        if (map.has(tokenKey) && !map.has(listenKey)) {
            map.problem(tokenKey, "given without " + listenKey.name() + "; allowed: only with " + listenKey.name()
                    + " (the Unix socket is guarded by its file mode, not by a token)");
        }
        if (listen.isEmpty() || tokenFile.isEmpty()) {
            return new ControlConfig(socket, Optional.empty(), Optional.empty());
        }
        return new ControlConfig(socket, listen, tokenFile);
    }

    /** The token file must exist and hold a usable token now, so a typo is found by {@code check}, not by the CLI. */
    private static Optional<Path> tokenFile(YamlMap map, Path dir, String written) {
        Path file = dir.resolve(written).normalize();
        if (!Files.isRegularFile(file)) {
            map.problem(ServerKeys.CONTROL_TOKEN_FILE, written + (Files.exists(file) ? " is not a regular file"
                    : " does not exist (" + file + ")") + "; allowed: " + TOKEN_ALLOWED);
            return Optional.empty();
        }
        String token;
        try {
            token = ControlConfig.readToken(file);
        } catch (IOException | RuntimeException e) {
            map.problem(ServerKeys.CONTROL_TOKEN_FILE, written + " cannot be read: " + YamlSource.describe(e) + "; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        if (token.length() < MIN_TOKEN_CHARS || token.length() > MAX_TOKEN_CHARS) {
            map.problem(ServerKeys.CONTROL_TOKEN_FILE, written + " holds " + token.length() + " characters; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        if (!TOKEN.matcher(token).matches()) {
            map.problem(ServerKeys.CONTROL_TOKEN_FILE, written + " holds a character a bearer token cannot have; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        return Optional.of(file);
    }

    /** Two listeners cannot bind one port: the NVMe/TCP port already answers discovery (NVMe/TCP §3.1). */
    private static void checkDistinct(YamlMap map, Map<Key<Long>, Integer> ports) {
        List<Key<Long>> keys = List.copyOf(ports.keySet());
        for (int i = 1; i < keys.size(); i++) {
            for (int j = 0; j < i; j++) {
                int port = ports.get(keys.get(i));
                if (port != 0 && port == ports.get(keys.get(j))) {
                    Key<Long> key = map.has(keys.get(i)) ? keys.get(i) : keys.get(j);
                    Key<Long> other = key == keys.get(i) ? keys.get(j) : keys.get(i);
                    map.problem(key, port + " is also the " + other.name() + "; allowed: a port no other listener"
                            + " uses, or 0");
                }
            }
        }
    }
}
