package io.blocktarget.config;

import java.net.Inet6Address;
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
            "event-loops", "poll");

    private static final String PORT_ALLOWED = "0..65535 (0 disables the listener)";
    private static final ValueType<Long> PORT = ValueType.integer(0, 65535, PORT_ALLOWED);
    private static final ValueType<Long> EVENT_LOOPS = ValueType.integer(0, 1024,
            "0..1024 (0: one per CPU the process may use)");
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
                map.value("poll", ValueType.BOOLEAN).orElse(false));
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
