package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConfigDiff} over the key tables: every key of a LUN file, changed alone from a valid LUN to its declared
 * example, is the one change found, with the rule its declaration gives; and the same for blocktarget.yaml.
 */
class ConfigDiffTest {
    @TempDir
    Path tmp;

    private ServerConfig server;

    @BeforeEach
    void files() throws IOException {
        server = ConfigLoader.embeddedDefault().server();
        new ConfigDir(tmp).lun("one", "backend: null\nsize: 1GiB\n");
        for (String file : List.of("a.img", "disks/file-4k.img")) {
            Files.createDirectories(tmp.resolve(file).getParent());
            try (RandomAccessFile f = new RandomAccessFile(tmp.resolve(file).toFile(), "rw")) {
                f.setLength(64L << 20);
            }
        }
        ConfigDir dir = new ConfigDir(tmp)
                .secret("s0.secret", "base-initiator-secret")
                .secret("m0.secret", "base-target-secret-0")
                .secret("secrets/initiator1.secret", "example-initiator-secret")
                .secret("secrets/target1.secret", "example-target-secret")
                .secret("h0.key", dhchap(1))
                .secret("c0.key", dhchap(2))
                .secret("host.key", dhchap(3))
                .secret("ctrl.key", dhchap(4))
                .secret("p0.psk", TlsConfigTest.PSK_01)
                .secret("tls.psk", TlsConfigTest.PSK_02);
        assertThat(dir.dir).isEqualTo(tmp);
    }

    private static String dhchap(int seed) {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) seed);
        return InterchangeKey.encode("DHHC-1:", 0, key);
    }

    /** A valid LUN in which the key at {@code path} can take its example. */
    private static Map<String, Object> base(String path) {
        Map<String, Object> doc = new LinkedHashMap<>();
        String section = path.contains(".") ? path.substring(0, path.indexOf('.')) : path;
        switch (section) {
            case "path", "create", "direct-io" -> {
                doc.put("backend", "file");
                doc.put("path", "a.img");
                return doc;
            }
            default -> {
                doc.put("backend", "ram");
                doc.put("size", "2GiB");
            }
        }
        switch (section) {
            case "access" -> doc.put("access", Map.of(
                    "chap", Map.of("user", "u0", "secret-file", "s0.secret", "mutual-user", "m0",
                            "mutual-secret-file", "m0.secret"),
                    "dhchap", Map.of("host-secret-file", "h0.key", "ctrl-secret-file", "c0.key"),
                    "tls", "allowed", "tls-psk-file", "p0.psk"));
            case "atomic" -> doc.put("atomic", Map.of("max-bytes", "16KiB"));
            case "placement" -> doc.put("placement", Map.of("reclaim-unit-size", "32MiB", "handles", 4, "streams", 8,
                    "over-provisioning", "10%"));
            case "zoned" -> {
                doc.put("size", "4GiB");
                doc.put("logical-block-size", "4KiB");
                doc.put("export", Map.of("nvme", false));
                doc.put("zoned", Map.of("zone-size", "128MiB", "max-open", 4));
            }
            case "limits" -> {
                doc.put("logical-block-size", "4KiB");
                doc.put("limits", Map.of("nows", "1MiB"));
            }
            case "session" -> {
                doc.put("logical-block-size", "4KiB");
                doc.put("session", Map.of("first-burst-length", "32KiB"));
            }
            default -> {
            }
        }
        return doc;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> with(Map<String, Object> doc, String path, Object value) {
        Map<String, Object> copy = deepCopy(doc);
        Map<String, Object> at = copy;
        String[] parts = path.split("\\.");
        for (int i = 0; i < parts.length - 1; i++) {
            Object next = at.get(parts[i]);
            if (!(next instanceof Map)) {
                next = new LinkedHashMap<String, Object>();
                at.put(parts[i], next);
            }
            at = (Map<String, Object>) next;
        }
        at.put(parts[parts.length - 1], value);
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> deepCopy(Map<String, Object> doc) {
        Map<String, Object> copy = new LinkedHashMap<>();
        doc.forEach((k, v) -> copy.put(k, v instanceof Map<?, ?> m ? deepCopy((Map<String, Object>) m) : v));
        return copy;
    }

    private LunConfig read(Map<String, Object> doc) throws ConfigException {
        return ConfigLoader.readLun("d", Json.write(doc), Optional.of(tmp), server, List.of());
    }

    @Test
    void everyLunKeyChangedAloneIsTheOneChangeWithItsDeclaredRule() throws Exception {
        List<String> checked = new ArrayList<>();
        List<String> same = new ArrayList<>();
        for (KeyPaths.Declared d : LunKeys.declared()) {
            if (d.path().contains("[]") || d.key().example().isEmpty()) {
                continue;
            }
            Map<String, Object> base = base(d.path());
            LunConfig before = read(base);
            LunConfig after = read(with(base, d.path(), d.key().example().get()));
            List<KeyChange> changes = ConfigDiff.lun(before, server, after, server);
            if (changes.isEmpty()) {
                same.add(d.path());
                continue;
            }
            assertThat(changes).as(d.path()).hasSize(1);
            // a map's entry is its own key (paths.PORTAL), ruled by the map
            assertThat(changes.getFirst().key()).isEqualTo(d.key().shape() == Key.Shape.MAP
                    ? d.path() + "." + ((Map<?, ?>) d.key().example().get()).keySet().iterator().next() : d.path());
            assertThat(changes.getFirst().rule()).as(d.path()).isEqualTo(d.rule());
            assertThat(ConfigDiff.strongest(changes)).contains(d.rule());
            checked.add(d.path());
        }
        // the examples that are their key's default change nothing
        assertThat(same).containsExactly("backend", "zoned.model");
        assertThat(checked).hasSizeGreaterThan(70);
    }

    @Test
    void theFaultListIsOneKeyChangedInPlace() throws Exception {
        Map<String, Object> base = base("faults");
        LunConfig before = read(base);
        LunConfig after = read(with(base, "faults", List.of(Map.of("ops", "read", "action", "medium-error"))));
        assertThat(ConfigDiff.lun(before, server, after, server)).containsExactly(new KeyChange("faults",
                ChangeRule.IN_PLACE, "", "[{id=f1, ops=[read], action=medium-error}]"));
        assertThat(ConfigDiff.lun(after, server, after, server)).isEmpty();
    }

    @Test
    void aSecretFileWithNewContentIsAChangeThatNeverShowsTheSecret() throws Exception {
        Map<String, Object> base = base("access");
        LunConfig before = read(base);
        new ConfigDir(tmp).secret("s0.secret", "a-new-initiator-secret").secret("p0.psk", TlsConfigTest.PSK_02);
        LunConfig after = read(base);
        List<KeyChange> changes = ConfigDiff.lun(before, server, after, server);
        String chap = tmp.resolve("s0.secret").toString();
        String psk = tmp.resolve("p0.psk").toString();
        assertThat(changes).containsExactly(
                new KeyChange("access.chap.secret-file", ChangeRule.IN_PLACE, chap, chap + " (new content)"),
                new KeyChange("access.tls-psk-file", ChangeRule.IN_PLACE, psk, psk + " (new content)"));
        assertThat(changes.toString()).doesNotContain("a-new-initiator-secret", "base-initiator-secret",
                TlsConfigTest.PSK_02, TlsConfigTest.PSK_01);
    }

    @Test
    void aNewPrefixMovesTheDerivedExports() throws Exception {
        LunConfig lun = read(base("size"));
        ServerConfig renamed = new ServerConfig(null, server.bindAddress(), server.iscsiPort(), server.nvmePort(),
                server.discoveryPort(), server.memoryBudget(), "iqn.2030-01.org.example:", server.nqnPrefix());
        LunConfig moved = ConfigLoader.readLun("d", Json.write(base("size")), Optional.of(tmp), renamed, List.of());
        assertThat(ConfigDiff.lun(lun, server, moved, renamed)).containsExactly(new KeyChange("export.iscsi.target",
                ChangeRule.REEXPORT, "iqn.2026-11.io.blocktarget:d", "iqn.2030-01.org.example:d"));
        assertThat(ConfigDiff.server(server, renamed)).containsExactly(new KeyChange("iqn-prefix", ChangeRule.IN_PLACE,
                "iqn.2026-11.io.blocktarget:", "iqn.2030-01.org.example:"));
    }

    @Test
    void everyServerKeyChangedAloneHasItsDeclaredRule() throws Exception {
        ServerConfig defaults = new ConfigDir(tmp).load().server();
        Set<String> seen = new java.util.HashSet<>();
        for (KeyPaths.Declared d : ServerKeys.declared()) {
            if (d.key().example().isEmpty() || d.path().startsWith("discovery-chap") || d.path().contains("[]")) {
                continue;
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put(d.path(), d.key().example().get());
            if (d.path().equals("control-listen") || d.path().equals("control-token-file")) {
                doc.put("control-listen", "127.0.0.1:9740");
                doc.put("control-token-file", "control.token");
                new ConfigDir(tmp).secret("control.token", "abcdefghijklmnopqrstuvwxyz012345");
            }
            new ConfigDir(tmp).file("blocktarget.yaml", Json.write(doc));
            List<KeyChange> changes = ConfigDiff.server(defaults, new ConfigDir(tmp).load().server());
            changes.stream().filter(c -> c.key().equals(d.path())).forEach(c -> {
                assertThat(c.rule()).as(d.path()).isEqualTo(d.rule());
                seen.add(d.path());
            });
            assertThat(changes).allMatch(c -> doc.containsKey(c.key()));
        }
        assertThat(seen).contains("bind", "event-loops", "poll", "poll-window", "control-listen", "control-token-file");
        new ConfigDir(tmp).file("blocktarget.yaml", "discovery-chap: {user: d1, secret-file: s0.secret}\n");
        assertThat(ConfigDiff.server(defaults, new ConfigDir(tmp).load().server())).containsExactly(
                new KeyChange("discovery-chap.user", ChangeRule.IN_PLACE, "", "d1"),
                new KeyChange("discovery-chap.secret-file", ChangeRule.IN_PLACE, "", tmp.resolve("s0.secret")
                        .toString()));
        assertThat(ConfigDiff.server(defaults, defaults)).isEmpty();
    }

    @Test
    void whatTheServerWriterWritesReadsBackEqual() throws Exception {
        new ConfigDir(tmp).secret("control.token", "abcdefghijklmnopqrstuvwxyz012345").file("blocktarget.yaml", """
                bind: 127.0.0.1
                iscsi-port: 3261
                nvme-port: 0
                memory-budget: 3GiB
                nqn-prefix: "nqn.2030-01.org.example:"
                event-loops: 3
                poll-window: 50us
                control-socket: ctl.sock
                control-listen: "[::1]:9740"
                control-token-file: control.token
                discovery-chap: {user: d1, secret-file: s0.secret, mutual-user: p1, mutual-secret-file: m0.secret}
                """);
        ServerConfig read = new ConfigDir(tmp).load().server();
        new ConfigDir(tmp).file("blocktarget.yaml", ServerWriter.yaml(read));
        ServerConfig again = new ConfigDir(tmp).load().server();
        assertThat(again).isEqualTo(read);
        assertThat(ConfigDiff.server(read, again)).isEmpty();
        assertThat(ServerWriter.document(ConfigLoader.embeddedDefault().server())).isEmpty();
    }
}
