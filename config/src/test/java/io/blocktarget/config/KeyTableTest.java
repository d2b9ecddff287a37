package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key tables themselves, the typo hints they give, and the key reference generated from them. */
class KeyTableTest {
    private static final String LUN_KEYS = "allowed keys: backend, size, logical-block-size, physical-block-size,"
            + " read-only, export, access, path, create, direct-io, atomic, zoned, placement, commands, limits,"
            + " rotational, removable, sanitize-duration, identity, faults, session, paths";

    @TempDir
    Path tmp;

    @Test
    void everyKeyIsDocumentedOnceWithAnExample() {
        for (List<KeyPaths.Declared> table : List.of(LunKeys.declared(), ServerKeys.declared())) {
            Set<String> paths = new HashSet<>();
            for (KeyPaths.Declared d : table) {
                assertThat(paths.add(d.path())).as(d.path() + " declared twice").isTrue();
                assertThat(d.key().doc()).as(d.path()).isNotBlank();
                assertThat(d.path()).matches("[a-z0-9-]+(\\[\\])?(\\.[a-z0-9-]+(\\[\\])?)*");
                if (d.key().shape() == Key.Shape.VALUE || d.key().shape() == Key.Shape.LIST
                        || d.key().shape() == Key.Shape.MAP) {
                    assertThat(d.key().example()).as(d.path()).isPresent();
                    assertThat(d.key().allowed()).as(d.path()).isNotBlank();
                }
            }
        }
        assertThat(LunKeys.declared()).hasSizeGreaterThan(100);
        assertThat(ServerKeys.declared()).extracting(KeyPaths.Declared::path).containsExactly("bind", "iscsi-port",
                "nvme-port", "discovery-port", "memory-budget", "iqn-prefix", "nqn-prefix", "event-loops", "poll",
                "poll-window", "control-socket", "control-listen", "control-token-file", "discovery-chap",
                "discovery-chap.user", "discovery-chap.secret-file", "discovery-chap.mutual-user",
                "discovery-chap.mutual-secret-file", "portals", "portals[].name", "portals[].address",
                "portals[].iscsi-port", "portals[].nvme-port");
    }

    /** The change rules the runtime supports today (ConfigDiff takes them from here). */
    @Test
    void eachKeyHasTheChangeRuleOfWhatTheServerDoes() {
        assertThat(rule(LunKeys.declared(), "backend")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "size")).isEqualTo(ChangeRule.RESIZE);
        assertThat(rule(LunKeys.declared(), "logical-block-size")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "physical-block-size")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "read-only")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "path")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "create")).isEqualTo(ChangeRule.REOPEN);
        assertThat(rule(LunKeys.declared(), "direct-io")).isEqualTo(ChangeRule.REOPEN);
        assertThat(rule(LunKeys.declared(), "export.iscsi.lun")).isEqualTo(ChangeRule.REEXPORT);
        assertThat(rule(LunKeys.declared(), "export.nvme.uuid")).isEqualTo(ChangeRule.REEXPORT);
        assertThat(rule(LunKeys.declared(), "access.chap.secret-file")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "access.tls")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "atomic.max-bytes")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "zoned.zone-size")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "placement.handles")).isEqualTo(ChangeRule.REPLACE);
        assertThat(rule(LunKeys.declared(), "commands.unmap")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "limits.max-transfer")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "rotational")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "identity.serial")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "session.mdts")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "faults")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(LunKeys.declared(), "faults[].action")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(ServerKeys.declared(), "bind")).isEqualTo(ChangeRule.RESTART);
        assertThat(rule(ServerKeys.declared(), "poll-window")).isEqualTo(ChangeRule.RESTART);
        assertThat(rule(ServerKeys.declared(), "control-listen")).isEqualTo(ChangeRule.RESTART);
        assertThat(rule(ServerKeys.declared(), "memory-budget")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(ServerKeys.declared(), "iqn-prefix")).isEqualTo(ChangeRule.IN_PLACE);
        assertThat(rule(ServerKeys.declared(), "discovery-chap.user")).isEqualTo(ChangeRule.IN_PLACE);
    }

    private static ChangeRule rule(List<KeyPaths.Declared> table, String path) {
        return KeyPaths.find(table, path).orElseThrow().rule();
    }

    @Test
    void anUnknownKeyCloseToAnAllowedOneNamesIt() {
        ConfigDir config = new ConfigDir(tmp).lun("x", "backend: ram\nsise: 1GiB\nlogical-block-sise: 4KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml: size: missing; allowed: " + Sizes.ALLOWED,
                "luns.d/x.yaml:2: sise: unknown key; did you mean `size`? " + LUN_KEYS,
                "luns.d/x.yaml:3: logical-block-sise: unknown key; did you mean `logical-block-size`? " + LUN_KEYS);
    }

    @Test
    void hintsWorkInEverySectionAndInBlocktargetYaml() throws Exception {
        ConfigDir config = new ConfigDir(tmp)
                .file("blocktarget.yaml", "iscsi_port: 3260\n")
                .lun("x", "backend: ram\nsize: 1GiB\nlimits: {max-tranfer: 1MiB}\nexport: {nvme: {nsdi: 2}}\n"
                        + "faults: [{action: busy, tirgger: always}]\n");
        List<String> problems = config.problems();
        assertThat(problems).anyMatch(p -> p.startsWith("blocktarget.yaml:1: iscsi_port: unknown key; did you mean"
                + " `iscsi-port`? allowed keys: bind,"));
        assertThat(problems).anyMatch(p -> p.startsWith("luns.d/x.yaml:3: limits.max-tranfer: unknown key; did you"
                + " mean `max-transfer`? allowed keys: max-transfer,"));
        assertThat(problems).contains("luns.d/x.yaml:4: export.nvme.nsdi: unknown key; did you mean `nsid`? allowed"
                + " keys: subsystem, nsid, uuid");
        assertThat(problems).anyMatch(p -> p.startsWith("luns.d/x.yaml:5: faults[0].tirgger: unknown key; did you"
                + " mean `trigger`? allowed keys: id, ops,"));
    }

    @Test
    void noHintWhenNothingIsCloseOrTwoAreAsClose() throws Exception {
        ConfigDir config = new ConfigDir(tmp).lun("x", "backend: ram\nsize: 1GiB\ncolour: red\nblock-size: 4KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: colour: unknown key; " + LUN_KEYS,
                "luns.d/x.yaml:4: block-size: unknown key; " + LUN_KEYS);
    }

    @Test
    void hintRules() {
        List<String> lun = LunKeys.LUN.names();
        assertThat(KeyPaths.hint("Logical_Block_Size", lun)).contains("logical-block-size");   // case and _
        assertThat(KeyPaths.hint("logical", lun)).contains("logical-block-size");              // a unique prefix
        assertThat(KeyPaths.hint("sizes", lun)).contains("size");                             // an extension
        assertThat(KeyPaths.hint("sise", lun)).contains("size");                              // 1 edit in 4
        assertThat(KeyPaths.hint("szie", lun)).contains("size");                              // a swap is 1
        assertThat(KeyPaths.hint("sz", lun)).isEmpty();                                       // too short
        assertThat(KeyPaths.hint("bakend", lun)).contains("backend");                         // 1 edit in 6
        assertThat(KeyPaths.hint("bkend", lun)).contains("backend");                          // 2 edits in 5
        assertThat(KeyPaths.hint("commnads", lun)).contains("commands");                      // swap in 8
        assertThat(KeyPaths.hint("phisical-blok-sise", lun)).contains("physical-block-size"); // 3 in 18
        assertThat(KeyPaths.hint("phisical-blok-sixe-", lun)).isEmpty();                       // 4: too far
        assertThat(KeyPaths.hint("block-size", lun)).isEmpty();                               // two suffixes
        assertThat(KeyPaths.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(KeyPaths.distance("ab", "ba")).isEqualTo(1);
        assertThat(KeyPaths.distance("", "abc")).isEqualTo(3);
    }

    @Test
    void setPathsAreCheckedAgainstTheLunTable() {
        for (String ok : List.of("size", "export.iscsi", "export.iscsi.target", "export.nvme.nsid", "access",
                "access.dhchap.ctrl-secret-file", "faults", "limits.npwg", "session.queue-depth", "zoned.model")) {
            assertThat(LunKeys.checkPath(ok)).as(ok).isEmpty();
        }
        assertThat(LunKeys.checkPath("export.nvme.nsdi")).contains("export.nvme.nsdi is not a LUN key; did you mean"
                + " `export.nvme.nsid`? allowed: a key of export.nvme: subsystem, nsid, uuid");
        assertThat(LunKeys.checkPath("faults.0")).contains("faults.0 is not a LUN key: faults has no keys of its own;"
                + " allowed: faults=VALUE");
        assertThat(LunKeys.checkPath("a..b")).map(p -> p.startsWith("a..b is not a LUN key; allowed: a key of"
                + " luns.d/NAME.yaml, dotted for nested keys: backend,")).contains(true);
        assertThat(LunKeys.checkPath("name")).map(p -> p.startsWith("name is not a LUN key; allowed:")).contains(true);
    }

    /** docs/configuration.md is the generator's output, byte for byte. */
    @Test
    void theCommittedKeyReferenceIsTheGeneratedOne() throws Exception {
        Path committed = Path.of("../docs/configuration.md");
        String generated = KeyReference.markdown();
        assertThat(Files.exists(committed) ? Files.readString(committed) : "")
                .as("docs/configuration.md differs from the key declarations; regenerate it:"
                        + " ./blocktarget schema --markdown > docs/configuration.md"
                        + " (or: java -cp config/target/classes:SNAKEYAML_JAR io.blocktarget.config.KeyReference)")
                .isEqualTo(generated);
        for (KeyPaths.Declared d : LunKeys.declared()) {
            assertThat(generated).contains("| `" + d.path() + "` |");
        }
        Optional<KeyPaths.Declared> lbs = KeyPaths.find(LunKeys.declared(), "logical-block-size");
        assertThat(generated).contains("| `logical-block-size` | a power of two from 512 B to 64 KiB | 512 | replace |"
                + " " + lbs.orElseThrow().key().doc());
    }
}
