package io.blocktarget.config;

import static io.blocktarget.config.AccessAuthTest.KEY_00;
import static io.blocktarget.config.AccessAuthTest.KEY_02;
import static io.blocktarget.config.AccessAuthTest.KEY_03;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 1: {@code access.dhchap} key files with a key per host NQN ({@code HOSTNQN DHHC-1:xx:...:} lines,
 * {@code *} for every host not listed). Exact problem texts at the key file's own line; keys never quoted.
 */
class DhchapPerHostTest extends ConfigDirTest {
    private static final String A = "nqn.2026-12.org.example:host-a";
    private static final String B = "nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-1111-4222-8333-444455556666";
    private static final String C = "nqn.2026-12.org.example:host-c";
    private static final String KEY_FORMAT = "DHHC-1:xx:BASE64: with xx 00 (no transformation), 01 (SHA-256),"
            + " 02 (SHA-384) or 03 (SHA-512) and BASE64 a 32, 48 or 64-byte key followed by its CRC-32 (NVMe Base"
            + " 2.x §8.3.4.5.2)";
    private static final String LINE_ALLOWED = "allowed: lines HOSTNQN DHHC-1:xx:BASE64: (a host NQN, or * for"
            + " every host not listed, then its key as nvme gen-dhchap-key --nqn HOSTNQN prints it), # comment lines"
            + " and blank lines";
    private static final String FILE_ALLOWED = "allowed: a file holding one DH-HMAC-CHAP secret as nvme"
            + " gen-dhchap-key prints it (" + KEY_FORMAT + ") for every host, or lines HOSTNQN DHHC-1:xx:BASE64: (a"
            + " host NQN, or * for every host not listed, then its key as nvme gen-dhchap-key --nqn HOSTNQN prints"
            + " it), # comment lines and blank lines";
    private static final String DIRECTIONS = "allowed: a different key for each direction (NVMe Base 2.x"
            + " §8.3.4.5.1: the controller proves a key of its own)";
    /** KEY_00 with its first key byte changed: the CRC-32 no longer matches. */
    private static final String BAD_KEY = KEY_00.replace("AAEC", "AAED");

    private void lun(String name, String rest) {
        config.lun(name, "backend: ram\nsize: 1GiB\n" + rest);
    }

    private static final String BOTH = "access:\n  dhchap: { host-secret-file: keys/h.keys,"
            + " ctrl-secret-file: keys/c.keys }\n";
    private static final String HOST_ONLY = "access:\n  dhchap: { host-secret-file: keys/h.keys }\n";

    private static DhchapSecret key(String text) {
        return DhchapSecret.parse(text);
    }

    @Test
    void aKeyPerHostAndAStarLineForEveryOtherHost() throws ConfigException {
        config.secret("keys/h.keys", "# a key per host, as nvme gen-dhchap-key --nqn HOSTNQN prints them\n"
                + A + " " + KEY_00 + "\n\n   \n" + B + " \t " + KEY_02 + "  \r\n* " + KEY_03 + "\n");
        lun("x", HOST_ONLY);
        DhchapConfig dhchap = config.loadLun("x").access().dhchap().orElseThrow();
        assertThat(dhchap.hostSecret(A)).contains(key(KEY_00));
        assertThat(dhchap.hostSecret(B)).contains(key(KEY_02));
        assertThat(dhchap.hostSecret(C)).contains(key(KEY_03));
        assertThat(dhchap.host().hosts().keySet()).containsExactly(A, B);
        assertThat(dhchap.bidirectional()).isFalse();
        assertThat(dhchap.toString() + dhchap.host()).doesNotContain("DHHC", "AAEC", "ZGVm");
    }

    @Test
    void withoutAStarLineAHostNotListedHasNoKey() throws ConfigException {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n" + B + " " + KEY_02);
        lun("x", HOST_ONLY);
        DhchapConfig dhchap = config.loadLun("x").access().dhchap().orElseThrow();
        assertThat(dhchap.hostSecret(C)).isEmpty();
        assertThat(dhchap.host().others()).isEmpty();
    }

    @Test
    void controllerKeysPerHostAndOneControllerKeyForEveryHost() throws ConfigException {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n" + B + " " + KEY_02 + "\n");
        config.secret("keys/c.keys", A + " " + KEY_03 + "\n");
        lun("x", BOTH);
        DhchapConfig dhchap = config.loadLun("x").access().dhchap().orElseThrow();
        assertThat(dhchap.ctrlSecret(A)).contains(key(KEY_03));
        assertThat(dhchap.ctrlSecret(B)).as("unidirectional for B").isEmpty();
        assertThat(dhchap.bidirectional()).isTrue();
        assertThat(dhchap.namedHosts()).containsExactly(A, B);

        // one key in the ctrl file: the controller key of every host
        config.secret("keys/c.keys", KEY_03 + "\n");
        DhchapConfig single = config.loadLun("x").access().dhchap().orElseThrow();
        assertThat(single.ctrlSecret(A)).contains(key(KEY_03));
        assertThat(single.ctrlSecret(B)).contains(key(KEY_03));
    }

    @Test
    void aSingleKeyFileAndAStarLineAreTheSameKeysSoLunsOfOneSubsystemAgree() throws ConfigException {
        config.secret("one.key", KEY_00 + "\n");
        config.secret("star.keys", "# every host\n* " + KEY_00 + "\n");
        lun("a", "export: { nvme: { subsystem: \"nqn.2026-11.x.y:s\", nsid: 1 } }\naccess:\n  dhchap:"
                + " { host-secret-file: one.key }\n");
        lun("b", "export: { nvme: { subsystem: \"nqn.2026-11.x.y:s\", nsid: 2 } }\naccess:\n  dhchap:"
                + " { host-secret-file: star.keys }\n");
        List<LunConfig> luns = config.load().luns();
        assertThat(luns.get(0).access().dhchap().orElseThrow().host())
                .isEqualTo(luns.get(1).access().dhchap().orElseThrow().host());
    }

    @Test
    void everyLineProblemPointsAtTheKeyFilesLine() {
        config.secret("keys/h.keys", String.join("\n",
                "# line 1",
                A + " " + KEY_00,
                A + " " + KEY_02,
                "not-an-nqn " + KEY_00,
                B + " " + BAD_KEY,
                KEY_00,
                C,
                C + " " + KEY_00 + " " + KEY_02,
                "* " + KEY_02,
                "* " + KEY_03,
                KEY_03 + " " + A) + "\n");
        lun("x", HOST_ONLY);
        List<String> problems = config.problems();
        assertThat(String.join("\n", problems)).doesNotContain("AAEC", "AAED", "ZGVm", "Njc4");
        String key = ": access.dhchap.host-secret-file: ";
        assertThat(problems).containsExactly(
                "keys/h.keys:3" + key + A + " is listed twice (first on line 2); allowed: one key for each host, and"
                        + " one * line",
                "keys/h.keys:4" + key + "not-an-nqn is not nqn.YYYY-MM.reverse.domain:string; allowed: a host NQN,"
                        + " nqn.YYYY-MM.reverse.domain:string with letters, digits, '-', '.', '_' and ':' in the"
                        + " string, or nqn.2014-08.org.nvmexpress:uuid:UUID; at most 223 bytes (NVMe Base §4.5), or"
                        + " * for every host not listed",
                "keys/h.keys:5" + key + "the key of " + B + " fails its CRC-32 check (a typo or a truncated copy?);"
                        + " allowed: " + KEY_FORMAT,
                "keys/h.keys:6" + key + "holds a key without a host NQN before it; " + LINE_ALLOWED,
                "keys/h.keys:7" + key + C + " has no key after it; " + LINE_ALLOWED,
                "keys/h.keys:8" + key + "holds 3 fields; " + LINE_ALLOWED,
                "keys/h.keys:10" + key + "* is listed twice (first on line 9); allowed: one key for each host, and"
                        + " one * line",
                "keys/h.keys:11" + key + "holds a key without a host NQN before it; " + LINE_ALLOWED);
    }

    @Test
    void aFileOfCommentsOnlyHoldsNoKey() {
        config.secret("keys/h.keys", "# keys go here\n\n");
        lun("x", HOST_ONLY);
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: access.dhchap.host-secret-file: keys/h.keys"
                + " holds no key, only comments and blank lines; " + FILE_ALLOWED);
    }

    @Test
    void aMissingFileSaysBothFormats() {
        lun("x", HOST_ONLY);
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: access.dhchap.host-secret-file: keys/h.keys"
                + " does not exist (" + tmp.resolve("keys/h.keys").toAbsolutePath().normalize() + "); "
                + FILE_ALLOWED);
    }

    @Test
    void aControllerKeyNeedsAHostKeyForTheSameHost() {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n");
        config.secret("keys/c.keys", A + " " + KEY_03 + "\n" + B + " " + KEY_02 + "\n");
        lun("x", BOTH);
        assertThat(config.problems()).containsExactly("keys/c.keys:2: access.dhchap.ctrl-secret-file: " + B
                + " has a controller key but no host key in keys/h.keys; allowed: controller keys for hosts with a"
                + " host key (the controller answers the challenge of a host that authenticated, NVMe Base 2.x"
                + " §8.3.4.5.4)");
    }

    @Test
    void theControllerKeyOfAHostMustNotBeItsHostKey() {
        // B's controller key is A's host key: allowed (different hosts); A's controller key is A's host key: not.
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n" + B + " " + KEY_02 + "\n");
        config.secret("keys/c.keys", B + " " + KEY_00 + "\n" + A + " " + KEY_00 + "\n");
        lun("x", BOTH);
        assertThat(config.problems()).containsExactly("keys/c.keys:2: access.dhchap.ctrl-secret-file: the"
                + " controller key of " + A + " is its host key from keys/h.keys:1; " + DIRECTIONS);
    }

    @Test
    void aStarControllerKeyEqualToASingleHostKeyIsRefused() {
        config.secret("keys/h.keys", KEY_02 + "\n");
        config.secret("keys/c.keys", A + " " + KEY_03 + "\n* " + KEY_02 + "\n");
        lun("x", BOTH);
        assertThat(config.problems()).containsExactly("keys/c.keys:2: access.dhchap.ctrl-secret-file: the"
                + " controller key of every host not listed is its host key from keys/h.keys; " + DIRECTIONS);
    }

    @Test
    void aKeyForAHostThatAccessHostsDoesNotAdmitIsAProblem() {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n" + B + " " + KEY_02 + "\n");
        config.secret("keys/c.keys", B + " " + KEY_03 + "\n");
        lun("x", "access:\n  hosts: [" + A + "]\n  dhchap: { host-secret-file: keys/h.keys,"
                + " ctrl-secret-file: keys/c.keys }\n");
        // (problems come sorted by file)
        assertThat(config.problems()).containsExactly(
                "keys/c.keys:1: access.dhchap.ctrl-secret-file: " + B + " is not in access.hosts; allowed: keys for"
                        + " the hosts access.hosts admits (" + A + ")",
                "keys/h.keys:2: access.dhchap.host-secret-file: " + B + " is not in access.hosts; allowed: keys for"
                        + " the hosts access.hosts admits (" + A + ")");
    }

    @Test
    void aHostThatAccessHostsAdmitsNeedsAKey() throws ConfigException {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n");
        lun("x", "access:\n  hosts: [" + A + ", " + C + "]\n  dhchap: { host-secret-file: keys/h.keys }\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.dhchap.host-secret-file: keys/h.keys"
                + " has no key for " + C + ", which access.hosts admits; allowed: a line for each host of"
                + " access.hosts, or a * line for every host not listed");
        // a * line serves C
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n* " + KEY_03 + "\n");
        assertThat(config.loadLun("x").access().dhchap().orElseThrow().hostSecret(C)).contains(key(KEY_03));
    }

    @Test
    void aWorldReadableKeyFileIsAWarning() throws Exception {
        config.secret("keys/h.keys", (A + " " + KEY_00 + "\n").getBytes(), "rw-r--r--");
        lun("x", HOST_ONLY);
        assertThat(config.load().warnings()).containsExactly(tmp.resolve("luns.d/x.yaml") + ":4:"
                + " access.dhchap.host-secret-file: " + tmp.resolve("keys/h.keys") + " is readable by every user"
                + " (mode rw-r--r--); chmod 600 it so that only the server's user can read the keys");
    }

    @Test
    void perHostFilesRoundTripThroughTheWriterAsFileReferences() throws Exception {
        config.secret("keys/h.keys", A + " " + KEY_00 + "\n* " + KEY_02 + "\n");
        config.secret("keys/c.keys", A + " " + KEY_03 + "\n");
        lun("x", BOTH);
        BlocktargetConfig before = config.load();
        LunFiles.prepare(tmp, before.luns().getFirst(), before.server()).commit();
        String text = Files.readString(tmp.resolve("luns.d/x.yaml"));
        assertThat(text).doesNotContain("DHHC", A).contains("host-secret-file:", "h.keys", "ctrl-secret-file:",
                "c.keys");
        assertThat(config.load().luns()).isEqualTo(before.luns());
        assertThat(Files.readString(tmp.resolve("keys/h.keys"))).isEqualTo(A + " " + KEY_00 + "\n* " + KEY_02
                + "\n");
    }
}
