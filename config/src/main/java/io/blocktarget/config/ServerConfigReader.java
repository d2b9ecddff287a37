package io.blocktarget.config;

import java.io.IOException;
import java.net.Inet6Address;
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
    static final List<String> KEYS = List.of(
            "bind", "iscsi-port", "nvme-port", "discovery-port", "memory-budget", "iqn-prefix", "nqn-prefix",
            "event-loops", "poll", "poll-window", "control-socket", "control-listen", "control-token-file",
            "discovery-chap");

    private static final String PORT_ALLOWED = "0..65535 (0 disables the listener)";
    private static final ValueType<Long> PORT = ValueType.integer(0, 65535, PORT_ALLOWED);
    private static final ValueType<Long> EVENT_LOOPS = ValueType.integer(0, 1024,
            "0..1024 (0: one per CPU the process may use)");
    /** Longer windows buy nothing: a host that waits more than 10 ms between commands is idle, not latency-bound. */
    static final long MAX_POLL_WINDOW_NANOS = 10_000_000;
    static final String POLL_WINDOW_ALLOWED = "a duration from 0 to 10ms with ns, us, ms or s, e.g. 100us"
            + " (0: sleep at once); not with poll: true";
    private static final ValueType<Long> POLL_WINDOW = ValueType.text("a duration", POLL_WINDOW_ALLOWED, text -> {
        long nanos;
        try {
            nanos = FaultReader.parseDuration(text);
        } catch (InvalidValue e) {
            throw new InvalidValue(e.what(), POLL_WINDOW_ALLOWED);
        }
        if (nanos > MAX_POLL_WINDOW_NANOS) {
            throw new InvalidValue(text + " is longer than 10ms", POLL_WINDOW_ALLOWED);
        }
        return nanos;
    });
    private static final Pattern IPV4 = Pattern.compile(
            "(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    private static final String BIND_ALLOWED = "an IPv4 or IPv6 address literal, e.g. 0.0.0.0, 127.0.0.1, :: or ::1"
            + " (no host names)";
    private static final ValueType<String> BIND = ValueType.text("an IP address", BIND_ALLOWED,
            ServerConfigReader::ipLiteral);
    private static final String BUDGET_ALLOWED = "a size greater than 0; " + Sizes.ALLOWED;
    private static final ValueType<Long> BUDGET = ValueType.text("a size", BUDGET_ALLOWED, text -> {
        long bytes = Sizes.parse(text);
        if (bytes <= 0) {
            throw new InvalidValue(text + " is not greater than 0", BUDGET_ALLOWED);
        }
        return bytes;
    });
    private static final String IQN_PREFIX_ALLOWED = "a prefix ending in ':' or '.' that makes an iSCSI name"
            + " when the LUN name is appended, e.g. " + ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN_PREFIX_ALLOWED = "a prefix ending in ':' or '.' that makes an NQN"
            + " when the LUN name is appended, e.g. " + ServerConfig.DEFAULT_NQN_PREFIX;
    private static final ValueType<String> IQN_PREFIX = prefix(IQN_PREFIX_ALLOWED, Names::iqn);
    private static final ValueType<String> NQN_PREFIX = prefix(NQN_PREFIX_ALLOWED, Names::nqn);

    private static final String SOCKET_ALLOWED = "off, or the path of the control API's Unix domain socket"
            + " (absolute, or relative to the config directory)";
    private static final ValueType<String> SOCKET = ValueType.path(SOCKET_ALLOWED);
    private static final String LISTEN_ALLOWED = "ADDRESS:PORT with an IP address literal and a port 1..65535, e.g."
            + " 127.0.0.1:9740 or [::1]:9740; needs control-token-file";
    private static final ValueType<ControlConfig.Listen> LISTEN = ValueType.text("an address and port", LISTEN_ALLOWED,
            ServerConfigReader::listen);
    static final String TOKEN_ALLOWED = "a regular file holding the bearer token: 16 to 4096 characters of A-Z a-z 0-9"
            + " - . _ ~ + / with optional trailing = (RFC 6750 §2.1), one trailing newline ignored, e.g. made by"
            + " head -c 32 /dev/urandom | base64 > FILE";
    private static final ValueType<String> TOKEN_PATH = ValueType.path(TOKEN_ALLOWED);
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
        Optional<YamlMap> parsed = root.flatMap(node ->
                YamlMap.of(node, "", KEYS, "a map of server settings", problems));
        if (parsed.isEmpty()) {
            return defaults(source, ConfigLoader.defaultMemoryBudget());
        }
        YamlMap map = parsed.get();
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("iscsi-port", map.value("iscsi-port", PORT, (long) ServerConfig.DEFAULT_ISCSI_PORT)
                .orElse((long) ServerConfig.DEFAULT_ISCSI_PORT).intValue());
        ports.put("nvme-port", map.value("nvme-port", PORT, (long) ServerConfig.DEFAULT_NVME_PORT)
                .orElse((long) ServerConfig.DEFAULT_NVME_PORT).intValue());
        ports.put("discovery-port", map.value("discovery-port", PORT, (long) ServerConfig.DEFAULT_DISCOVERY_PORT)
                .orElse((long) ServerConfig.DEFAULT_DISCOVERY_PORT).intValue());
        checkDistinct(map, ports);
        boolean poll = map.value("poll", ValueType.BOOLEAN).orElse(false);
        long pollWindow = map.value("poll-window", POLL_WINDOW).orElse(0L);
        if (poll && pollWindow > 0) {   // a loop that always spins has no window to end
            map.problem("poll-window", "only without poll: true (a loop that always polls has no window to end); allowed: "
                    + POLL_WINDOW_ALLOWED);
            pollWindow = 0;
        }
        return new ServerConfig(
                source,
                map.value("bind", BIND).orElse(ServerConfig.DEFAULT_BIND_ADDRESS),
                ports.get("iscsi-port"),
                ports.get("nvme-port"),
                ports.get("discovery-port"),
                map.value("memory-budget", BUDGET).orElseGet(ConfigLoader::defaultMemoryBudget),
                map.value("iqn-prefix", IQN_PREFIX).orElse(ServerConfig.DEFAULT_IQN_PREFIX),
                map.value("nqn-prefix", NQN_PREFIX).orElse(ServerConfig.DEFAULT_NQN_PREFIX),
                map.value("event-loops", EVENT_LOOPS).orElse(0L).intValue(),
                poll,
                control(map, source == null ? Path.of("") : source.toAbsolutePath().getParent()),
                map.has("discovery-chap") ? AccessReader.chap(map, "discovery-chap", source == null ? Path.of("")
                        : source.toAbsolutePath().getParent(), problems, warnings) : Optional.empty(),
                pollWindow);
    }

    /**
     * {@code control-socket} (default {@link ControlConfig#defaultSocket()}, {@code off} disables),
     * {@code control-listen} and {@code control-token-file}, which need each other: a TCP listener is reachable by
     * every local user (and more when bound elsewhere), so it only answers requests with the token.
     */
    private static ControlConfig control(YamlMap map, Path dir) {
        Optional<Path> socket = map.has("control-socket")
                ? map.value("control-socket", SOCKET).map(text -> text.equals("off") ? null : dir.resolve(text).normalize())
                : Optional.of(ControlConfig.defaultSocket());
        if (socket.isPresent() && socket.get().toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length
                > MAX_SOCKET_PATH_BYTES) {
            map.problem("control-socket", socket.get().toAbsolutePath() + " is longer than " + MAX_SOCKET_PATH_BYTES
                    + " bytes, the most a Unix socket address holds (sun_path, unix(7)); allowed: a shorter path");
            socket = Optional.empty();
        }
        if (map.has("control-socket") && socket.isEmpty() && !map.text("control-socket").equals("off")) {
            socket = Optional.of(ControlConfig.defaultSocket()); // wrong value: reported, default kept
        }
        Optional<ControlConfig.Listen> listen = map.value("control-listen", LISTEN);
        Optional<Path> tokenFile = map.value("control-token-file", TOKEN_PATH)
                .flatMap(text -> tokenFile(map, dir, text));
        if (map.has("control-listen") && !map.has("control-token-file")) {
            map.problem("control-listen", "given without control-token-file; allowed: " + LISTEN_ALLOWED);
        }
        if (map.has("control-token-file") && !map.has("control-listen")) {
            map.problem("control-token-file", "given without control-listen; allowed: only with control-listen (the"
                    + " Unix socket is guarded by its file mode, not by a token)");
        }
        if (listen.isEmpty() || tokenFile.isEmpty()) {
            return new ControlConfig(socket, Optional.empty(), Optional.empty());
        }
        return new ControlConfig(socket, listen, tokenFile);
    }

    private static ControlConfig.Listen listen(String text) throws InvalidValue {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new InvalidValue(text + " is not ADDRESS:PORT", LISTEN_ALLOWED);
        }
        String host = text.substring(0, colon);
        String port = text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
            if (host.indexOf(':') < 0) {
                throw new InvalidValue(text + ": " + host + " is not an IPv6 address", LISTEN_ALLOWED);
            }
        } else if (host.indexOf(':') >= 0) {
            throw new InvalidValue(text + ": an IPv6 address needs brackets", LISTEN_ALLOWED);
        }
        try {
            ipLiteral(host);
        } catch (InvalidValue e) {
            throw new InvalidValue(text + ": " + e.what(), LISTEN_ALLOWED);
        }
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new InvalidValue(text + ": " + port + " is not a port", LISTEN_ALLOWED);
        }
        return new ControlConfig.Listen(host, Integer.parseInt(port));
    }

    /** The token file must exist and hold a usable token now, so a typo is found by {@code check}, not by the CLI. */
    private static Optional<Path> tokenFile(YamlMap map, Path dir, String written) {
        Path file = dir.resolve(written).normalize();
        if (!Files.isRegularFile(file)) {
            map.problem("control-token-file", written + (Files.exists(file) ? " is not a regular file"
                    : " does not exist (" + file + ")") + "; allowed: " + TOKEN_ALLOWED);
            return Optional.empty();
        }
        String token;
        try {
            token = ControlConfig.readToken(file);
        } catch (IOException | RuntimeException e) {
            map.problem("control-token-file", written + " cannot be read: " + YamlSource.describe(e) + "; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        if (token.length() < MIN_TOKEN_CHARS || token.length() > MAX_TOKEN_CHARS) {
            map.problem("control-token-file", written + " holds " + token.length() + " characters; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        if (!TOKEN.matcher(token).matches()) {
            map.problem("control-token-file", written + " holds a character a bearer token cannot have; allowed: "
                    + TOKEN_ALLOWED);
            return Optional.empty();
        }
        return Optional.of(file);
    }

    /** Two listeners cannot bind one port: the NVMe/TCP port already answers discovery (NVMe/TCP §3.1). */
    private static void checkDistinct(YamlMap map, Map<String, Integer> ports) {
        List<String> keys = List.copyOf(ports.keySet());
        for (int i = 1; i < keys.size(); i++) {
            for (int j = 0; j < i; j++) {
                int port = ports.get(keys.get(i));
                if (port != 0 && port == ports.get(keys.get(j))) {
                    String key = map.has(keys.get(i)) ? keys.get(i) : keys.get(j);
                    String other = key.equals(keys.get(i)) ? keys.get(j) : keys.get(i);
                    map.problem(key, port + " is also the " + other + "; allowed: a port no other listener uses, or 0");
                }
            }
        }
    }

    /**
     * Only literals: a host name would need DNS at start-up and could resolve differently later.
     * Dotted-quad only for IPv4 ({@code InetAddress} would also take "127.1").
     */
    private static String ipLiteral(String text) throws InvalidValue {
        if (IPV4.matcher(text).matches()) {
            return text;
        }
        if (text.indexOf(':') >= 0 && text.indexOf('[') < 0) {
            try {
                Inet6Address.ofLiteral(text);
                return text;
            } catch (IllegalArgumentException e) {
                throw new InvalidValue(text + " is not an IPv6 address", BIND_ALLOWED);
            }
        }
        throw new InvalidValue(text + " is not an IP address literal", BIND_ALLOWED);
    }

    private static ValueType<String> prefix(String allowed, ValueType.TextParser<String> nameCheck) {
        return ValueType.text("a name prefix", allowed, text -> {
            if (!(text.endsWith(":") || text.endsWith("."))) {
                throw new InvalidValue(text + " does not end in ':' or '.'", allowed);
            }
            try {
                nameCheck.parse(text + "x");
            } catch (InvalidValue e) {
                throw new InvalidValue(text + " + LUN name is not a valid name: " + e.what(), allowed);
            }
            return text;
        });
    }
}
