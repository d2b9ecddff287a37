package io.blocktarget.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * {@code portals:} of {@code blocktarget.yaml} ({@link ServerKeys#PORTALS}): names unique, each portal with at least
 * one protocol, no two listeners on one address and port (a wildcard address overlaps every address), and no
 * {@code iscsi-port} / {@code nvme-port} beside them (each portal has its own).
 */
final class PortalsReader {
    private PortalsReader() {
    }

    /** One listener, for the overlap check: where it was declared and what it binds. */
    private record Listener(String address, int port, String what, YamlMap map, Key<?> key) {
        boolean overlaps(Listener o) {
            return port != 0 && port == o.port && (address.equals(o.address) || wildcard(address)
                    || wildcard(o.address));
        }
    }

    /**
     * The declared portals; empty when the file has none (or they are wrong: then with problems).
     *
     * @param bind          the discovery-port's address
     * @param discoveryPort its port (0: none)
     */
    static List<PortalConfig> read(YamlMap server, String bind, int discoveryPort, Problems problems) {
        Optional<Node> node = server.node(ServerKeys.PORTALS);
        if (node.isEmpty()) {
            return List.of();
        }
        String path = ServerKeys.PORTALS.name();
        String keys = String.join(", ", ServerKeys.PORTALS.names());
        if (!(node.get() instanceof SequenceNode list) || list.getValue().isEmpty()) {
            server.problem(ServerKeys.PORTALS, (node.get() instanceof SequenceNode ? "an empty list"
                    : YamlMap.describe(node.get())) + " is not a list of portals; allowed: a"
                    + " list of at least one portal, each a map with the keys " + keys);
            return List.of();
        }
        for (Key<Long> replaced : List.of(ServerKeys.ISCSI_PORT, ServerKeys.NVME_PORT)) {
            if (server.has(replaced)) {
                server.problem(replaced, "not with " + path + ": (each portal has its own " + replaced.name()
                        + "); allowed: " + replaced.name() + " in the entries of " + path + ":");
            }
        }
        int before = problems.count();
        List<PortalConfig> portals = new ArrayList<>();
        Map<String, Integer> names = new HashMap<>();
        List<Listener> listeners = new ArrayList<>();
        if (discoveryPort != 0) {
            listeners.add(new Listener(bind, discoveryPort, ServerKeys.DISCOVERY_PORT.name() + " on " + bind, null,
                    null));
        }
        for (int i = 0; i < list.getValue().size(); i++) {
            Node entry = list.getValue().get(i);
            Optional<YamlMap> parsed = YamlMap.of(entry, path + "[" + i + "]", ServerKeys.PORTALS.names(),
                    ServerKeys.PORTALS.noun(), problems);
            if (parsed.isEmpty()) {
                continue;
            }
            YamlMap m = parsed.get();
            Optional<String> name = required(m, entry, problems, ServerKeys.PORTAL_NAME);
            Optional<String> address = required(m, entry, problems, ServerKeys.PORTAL_ADDRESS);
            Optional<Long> iscsi = m.value(ServerKeys.PORTAL_ISCSI_PORT);
            Optional<Long> nvme = m.value(ServerKeys.PORTAL_NVME_PORT);
            if (name.isPresent()) {
                Integer earlier = names.putIfAbsent(name.get(), i);
                if (earlier != null) {
                    m.problem(ServerKeys.PORTAL_NAME, name.get() + " is also the name of " + path + "[" + earlier
                            + "]; allowed: each portal name once");
                }
            }
            if (iscsi.isPresent() && nvme.isPresent() && iscsi.get() == 0 && nvme.get() == 0) {
                problem(m, entry, problems, ServerKeys.PORTAL_NVME_PORT, "both ports are 0, so the portal serves nothing; allowed: an"
                        + " iSCSI port, an NVMe/TCP port or both");
            }
            if (name.isEmpty() || address.isEmpty() || iscsi.isEmpty() || nvme.isEmpty()) {
                continue;
            }
            for (Listener mine : List.of(
                    new Listener(address.get(), iscsi.get().intValue(), "the iSCSI port of portal " + name.get(), m,
                            ServerKeys.PORTAL_ISCSI_PORT),
                    new Listener(address.get(), nvme.get().intValue(), "the NVMe/TCP port of portal " + name.get(), m,
                            ServerKeys.PORTAL_NVME_PORT))) {
                for (Listener other : listeners) {
                    if (mine.overlaps(other)) {
                        problem(m, entry, problems, mine.key(), mine.address() + ":" + mine.port() + " is also " + other.what()
                                + (other.address().equals(mine.address()) ? "" : " (" + other.address() + ":"
                                + other.port() + ")") + "; allowed: a port no other listener uses on this address (a"
                                + " wildcard address such as 0.0.0.0 uses it on every address)");
                        break;
                    }
                }
                if (mine.port() != 0) {
                    listeners.add(mine);
                }
            }
            portals.add(new PortalConfig(name.get(), address.get(), iscsi.get().intValue(), nvme.get().intValue()));
        }
        return problems.count() > before ? List.of() : List.copyOf(portals);
    }

    /** At the key's value, or at the portal's line when the key is absent (a default port). */
    private static void problem(YamlMap m, Node entry, Problems problems, Key<?> key, String message) {
        if (m.has(key)) {
            m.problem(key, message);
        } else {
            problems.add(YamlSource.line(entry), m.keyPath(key), message);
        }
    }

    private static <T> Optional<T> required(YamlMap m, Node entry, Problems problems, Key<T> key) {
        if (!m.has(key)) {
            problems.add(YamlSource.line(entry), m.keyPath(key), "missing; allowed: " + key.allowed());
            return Optional.empty();
        }
        return m.value(key);
    }

    /** 0.0.0.0 or an all-zero IPv6 literal: every address of the machine. */
    static boolean wildcard(String address) {
        if (address.equals("0.0.0.0")) {
            return true;
        }
        try {
            return address.indexOf(':') >= 0 && java.net.Inet6Address.ofLiteral(address).isAnyLocalAddress();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
