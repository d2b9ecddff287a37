package io.blocktarget.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The keys that differ between two configurations, each with the {@link ChangeRule} its declaration gives. Pure: the
 * server's plan diff builds its steps from this and nothing else knows which key applies how.
 *
 * <p>Interim implementation (session 7, before the key table): compares the flattened LUN documents of
 * {@link LunWriter} (exports always spelled out) and takes each key's rule from a prefix list. The key table replaces
 * the prefix list; the signatures stay.
 */
public final class ConfigDiff {
    private ConfigDiff() {
    }

    /** Rules by key-path prefix, first match wins; anything else replaces the LUN. */
    private static final List<Map.Entry<String, ChangeRule>> RULES = List.of(
            Map.entry("size", ChangeRule.RESIZE),
            Map.entry("export.", ChangeRule.REEXPORT),
            Map.entry("access.", ChangeRule.IN_PLACE),
            Map.entry("commands.", ChangeRule.IN_PLACE),
            Map.entry("limits.", ChangeRule.IN_PLACE),
            Map.entry("rotational", ChangeRule.IN_PLACE),
            Map.entry("removable", ChangeRule.IN_PLACE),
            Map.entry("sanitize-duration", ChangeRule.IN_PLACE),
            Map.entry("identity.", ChangeRule.IN_PLACE),
            Map.entry("session.", ChangeRule.IN_PLACE),
            Map.entry("faults", ChangeRule.IN_PLACE),
            Map.entry("direct-io", ChangeRule.REOPEN));

    /**
     * The keys of LUN {@code a} (read under {@code serverA}) that differ in {@code b} (under {@code serverB}), in
     * document order; empty when the LUN is unchanged. {@code source} (where it was read from) is not a key.
     */
    public static List<KeyChange> lun(LunConfig a, ServerConfig serverA, LunConfig b, ServerConfig serverB) {
        Map<String, String> before = flatten(a, serverA);
        Map<String, String> after = flatten(b, serverB);
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<KeyChange> changes = new ArrayList<>();
        for (String key : keys) {
            String x = before.getOrDefault(key, "");
            String y = after.getOrDefault(key, "");
            if (!x.equals(y)) {
                changes.add(new KeyChange(key, rule(key), x, y));
            }
        }
        return changes;
    }

    /** The strongest rule among {@code changes}; empty list: none. */
    public static java.util.Optional<ChangeRule> strongest(List<KeyChange> changes) {
        return changes.stream().map(KeyChange::rule).reduce(ChangeRule::max);
    }

    /**
     * The server-wide keys that differ. Runtime-applicable: {@code discovery-chap}, {@code memory-budget}; the
     * prefixes change LUNs' derived exports (seen in {@link #lun}); everything else needs a restart.
     */
    public static List<KeyChange> server(ServerConfig a, ServerConfig b) {
        List<KeyChange> changes = new ArrayList<>();
        add(changes, "bind", a.bindAddress(), b.bindAddress(), ChangeRule.RESTART);
        add(changes, "iscsi-port", a.iscsiPort(), b.iscsiPort(), ChangeRule.RESTART);
        add(changes, "nvme-port", a.nvmePort(), b.nvmePort(), ChangeRule.RESTART);
        add(changes, "discovery-port", a.discoveryPort(), b.discoveryPort(), ChangeRule.RESTART);
        add(changes, "memory-budget", a.memoryBudget(), b.memoryBudget(), ChangeRule.IN_PLACE);
        add(changes, "iqn-prefix", a.iqnPrefix(), b.iqnPrefix(), ChangeRule.IN_PLACE);
        add(changes, "nqn-prefix", a.nqnPrefix(), b.nqnPrefix(), ChangeRule.IN_PLACE);
        add(changes, "event-loops", a.eventLoops(), b.eventLoops(), ChangeRule.RESTART);
        add(changes, "poll", a.poll(), b.poll(), ChangeRule.RESTART);
        add(changes, "poll-window", a.pollWindowNanos(), b.pollWindowNanos(), ChangeRule.RESTART);
        add(changes, "control-socket", a.control().socket(), b.control().socket(), ChangeRule.RESTART);
        add(changes, "control-listen", a.control().listen(), b.control().listen(), ChangeRule.RESTART);
        add(changes, "control-token-file", a.control().tokenFile(), b.control().tokenFile(), ChangeRule.RESTART);
        add(changes, "discovery-chap", a.discoveryChap(), b.discoveryChap(), ChangeRule.IN_PLACE);
        return changes;
    }

    private static void add(List<KeyChange> changes, String key, Object a, Object b, ChangeRule rule) {
        if (!Objects.equals(a, b)) {
            changes.add(new KeyChange(key, rule, String.valueOf(a), String.valueOf(b)));
        }
    }

    private static ChangeRule rule(String key) {
        for (Map.Entry<String, ChangeRule> e : RULES) {
            if (key.equals(e.getKey()) || key.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return ChangeRule.REPLACE;
    }

    private static Map<String, String> flatten(LunConfig lun, ServerConfig server) {
        Map<String, Object> doc = new LinkedHashMap<>(LunWriter.document(lun, server));
        doc.remove("export");
        Map<String, String> flat = new LinkedHashMap<>();
        flatten("", doc, flat);
        flat.put("export.iscsi", lun.iscsi().map(e -> e.target() + " LUN " + e.lun()).orElse("false"));
        flat.put("export.nvme", lun.nvme().map(e -> e.subsystem() + " NSID " + e.nsid()
                + e.uuid().map(u -> " UUID " + u).orElse("")).orElse("false"));
        return flat;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Map<String, Object> map, Map<String, String> out) {
        map.forEach((key, value) -> {
            String path = prefix.isEmpty() ? key : prefix + "." + key;
            if (value instanceof Map<?, ?> nested) {
                flatten(path, (Map<String, Object>) nested, out);
            } else {
                out.put(path, String.valueOf(value));
            }
        });
    }
}
