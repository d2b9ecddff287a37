package io.blocktarget.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The keys that differ between two configurations, each with the {@link ChangeRule} its declaration gives
 * ({@link LunKeys}, {@link FaultKeys}, {@link ServerKeys}). Pure: the server's plan diff builds its steps from this,
 * and nothing else knows which key applies how.
 *
 * <p>A LUN is compared as the document {@link LunWriter} writes, exports spelled out (a new name prefix shows as a
 * changed {@code export.iscsi.target}); the {@code faults:} list is one value. A secret file whose path stays but
 * whose content changed is a change of that key, shown as {@code PATH (new content)} — never the secret.
 */
public final class ConfigDiff {
    private ConfigDiff() {
    }

    /** The secret behind each secret-file key of a LUN, compared beside the file's path. */
    private static final Map<String, Function<LunConfig, Object>> LUN_SECRETS = lunSecrets();
    private static final Map<String, Function<ServerConfig, Object>> SERVER_SECRETS = Map.of(
            ServerKeys.DISCOVERY_CHAP.name() + "." + LunKeys.CHAP_SECRET_FILE.name(),
            s -> s.discoveryChap().map(ChapConfig::secret),
            ServerKeys.DISCOVERY_CHAP.name() + "." + LunKeys.CHAP_MUTUAL_SECRET_FILE.name(),
            s -> s.discoveryChap().flatMap(ChapConfig::mutualSecret));

    /**
     * The keys of LUN {@code a} (read under {@code serverA}) that differ in {@code b} (under {@code serverB}), in
     * document order; empty when the LUN is unchanged. {@code source} (where it was read from) is not a key.
     */
    public static List<KeyChange> lun(LunConfig a, ServerConfig serverA, LunConfig b, ServerConfig serverB) {
        Map<String, Object> before = LunWriter.document(a, serverA, true);
        Map<String, Object> after = LunWriter.document(b, serverB, true);
        List<KeyPaths.Declared> declared = LunKeys.declared();
        List<KeyChange> changes = diff(declared, before, after);
        secrets(changes, declared, LUN_SECRETS, a, b, before, after);
        return changes;
    }

    /** The strongest rule among {@code changes}; empty list: none. */
    public static Optional<ChangeRule> strongest(List<KeyChange> changes) {
        return changes.stream().map(KeyChange::rule).reduce(ChangeRule::max);
    }

    /**
     * The server-wide keys that differ. Runtime-applicable: {@code discovery-chap}, {@code memory-budget}, the
     * prefixes (whose effect on the LUNs' derived exports {@link #lun} shows); everything else needs a restart.
     */
    public static List<KeyChange> server(ServerConfig a, ServerConfig b) {
        Map<String, Object> before = ServerWriter.document(a, true);
        Map<String, Object> after = ServerWriter.document(b, true);
        List<KeyChange> changes = diff(ServerKeys.declared(), before, after);
        secrets(changes, ServerKeys.declared(), SERVER_SECRETS, a, b, before, after);
        return changes;
    }

    /** Every key of {@code declared} whose flattened value differs, with its rule. */
    private static List<KeyChange> diff(List<KeyPaths.Declared> declared, Map<String, Object> a,
                                        Map<String, Object> b) {
        Map<String, String> before = new LinkedHashMap<>();
        Map<String, String> after = new LinkedHashMap<>();
        flatten("", a, before);
        flatten("", b, after);
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<KeyChange> changes = new ArrayList<>();
        for (String key : keys) {
            String x = before.getOrDefault(key, "");
            String y = after.getOrDefault(key, "");
            if (!x.equals(y)) {
                changes.add(new KeyChange(key, rule(declared, key), x, y));
            }
        }
        return changes;
    }

    /** A secret file whose path is unchanged but whose secret is not: a change of that key. */
    private static <C> void secrets(List<KeyChange> changes, List<KeyPaths.Declared> declared,
                                    Map<String, Function<C, Object>> secrets, C a, C b, Map<String, Object> docA,
                                    Map<String, Object> docB) {
        Map<String, String> before = new LinkedHashMap<>();
        Map<String, String> after = new LinkedHashMap<>();
        flatten("", docA, before);
        flatten("", docB, after);
        secrets.forEach((key, secret) -> {
            String path = before.get(key);
            if (path != null && path.equals(after.get(key)) && !Objects.equals(secret.apply(a), secret.apply(b))) {
                changes.add(new KeyChange(key, rule(declared, key), path, path + " (new content)"));
            }
        });
    }

    /** The declared rule of a flattened key; a key without a declaration is a bug of the writer. */
    private static ChangeRule rule(List<KeyPaths.Declared> declared, String key) {
        return KeyPaths.find(declared, key).map(KeyPaths.Declared::rule).orElseThrow(() ->
                new IllegalStateException(key + " is written but not declared"));
    }

    /** Nested maps to dotted keys; a list (of values or of fault rules) is one value. */
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

    private static Map<String, Function<LunConfig, Object>> lunSecrets() {
        String access = LunKeys.ACCESS.name() + ".";
        String chap = access + LunKeys.CHAP.name() + ".";
        String dhchap = access + LunKeys.DHCHAP.name() + ".";
        Map<String, Function<LunConfig, Object>> map = new LinkedHashMap<>();
        map.put(chap + LunKeys.CHAP_SECRET_FILE.name(), l -> l.access().chap().map(ChapConfig::secret));
        map.put(chap + LunKeys.CHAP_MUTUAL_SECRET_FILE.name(),
                l -> l.access().chap().flatMap(ChapConfig::mutualSecret));
        map.put(dhchap + LunKeys.DHCHAP_HOST_SECRET_FILE.name(), l -> l.access().dhchap().map(DhchapConfig::host));
        map.put(dhchap + LunKeys.DHCHAP_CTRL_SECRET_FILE.name(), l -> l.access().dhchap().flatMap(DhchapConfig::ctrl));
        map.put(access + LunKeys.TLS_PSK_FILE.name(), l -> l.access().tls().psk());
        return map;
    }
}
