package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 14's keys: {@code access.initiators}, {@code access.dhchap} and the server-wide {@code discovery-chap}; exact
 * problem texts, secrets never quoted.
 */
class AccessAuthTest extends ConfigDirTest {
    /*
     * Provenance of the DHHC-1 vectors: made with Python's base64 and zlib.crc32 (an implementation independent of
     * DhchapSecret), key bytes 00..1f (hash 00), 64..93 hex (hash 02, 48 bytes), 00..3f (hash 03), CRC-32 appended
     * little-endian as NVMe Base 2.x §8.3.4.5.2 and Linux nvme_auth_extract_key() have it.
     */
    static final String KEY_00 = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
    static final String KEY_02 = "DHHC-1:02:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoOEhYaHiImKi4yNjo+QkZKTvGwQfg==:";
    static final String KEY_03 = "DHHC-1:03:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1"
            + "Njc4OTo7PD0+P4zODhA=:";
    private static final String DHCHAP_ALLOWED = "allowed: a file holding one DH-HMAC-CHAP secret as nvme"
            + " gen-dhchap-key prints it, DHHC-1:xx:BASE64: with xx 00 (no transformation), 01 (SHA-256), 02 (SHA-384)"
            + " or 03 (SHA-512) and BASE64 a 32, 48 or 64-byte key followed by its CRC-32 (NVMe Base 2.x §8.3.4.5.2);"
            + " one trailing newline ignored";
    /** What a missing or unreadable key file is told: either format (issue 14, keys per host). */
    private static final String DHCHAP_FILE_ALLOWED = "allowed: a file holding one DH-HMAC-CHAP secret as nvme"
            + " gen-dhchap-key prints it (DHHC-1:xx:BASE64: with xx 00 (no transformation), 01 (SHA-256), 02"
            + " (SHA-384) or 03 (SHA-512) and BASE64 a 32, 48 or 64-byte key followed by its CRC-32 (NVMe Base 2.x"
            + " §8.3.4.5.2)) for every host, or lines HOSTNQN DHHC-1:xx:BASE64: (a host NQN, or * for every host not"
            + " listed, then its key as nvme gen-dhchap-key --nqn HOSTNQN prints it), # comment lines and blank lines";
    private static final String ANY_HOST = "nqn.2014-08.org.nvmexpress:uuid:3a9c6a5e-1111-4222-8333-444455556666";
    private static final String INITIATORS_ALLOWED = "allowed: a list of iSCSI initiator names, e.g."
            + " [iqn.2004-10.com.ubuntu:01:abc] as in /etc/iscsi/initiatorname.iscsi; leave initiators out to admit any"
            + " initiator";
    private static final String INITIATOR_A = "iqn.2004-10.com.ubuntu:01:abc";
    private static final String INITIATOR_B = "iqn.2026-11.org.example:b";

    private void lun(String name, String rest) {
        config.lun(name, "backend: ram\nsize: 1GiB\n" + rest);
    }

    // ---- DHHC-1 representation --------------------------------------------------------------------------------

    @Test
    void dhchapSecretParsesTheThreeKeyLengthsAndRepresentsThemIdentically() {
        for (String text : List.of(KEY_00, KEY_02, KEY_03)) {
            DhchapSecret secret = DhchapSecret.parse(text);
            assertThat(secret.representation()).isEqualTo(text);
        }
        DhchapSecret s = DhchapSecret.parse(KEY_00);
        assertThat(s.transform()).isZero();
        assertThat(s.key()).hasSize(32).startsWith((byte) 0, (byte) 1, (byte) 2);
        assertThat(DhchapSecret.parse(KEY_02).transform()).isEqualTo(2);
        assertThat(DhchapSecret.parse(KEY_02).key()).hasSize(48);
        assertThat(DhchapSecret.parse(KEY_03).key()).hasSize(64);
        assertThat(s.toString()).doesNotContain("AAEC");
    }

    @Test
    void dhchapSecretRefusesWhatIsNotTheRepresentation() {
        assertThatThrownBy(() -> DhchapSecret.parse("DHHC-2:00:" + KEY_00.substring(10)))
                .hasMessage("does not start with DHHC-1:xx:");
        assertThatThrownBy(() -> DhchapSecret.parse("DHHC-1:04:" + KEY_00.substring(10)))
                .hasMessage("has the hash indicator 04, not 00, 01, 02 or 03");
        assertThatThrownBy(() -> DhchapSecret.parse(KEY_00.substring(0, KEY_00.length() - 1)))
                .hasMessage("does not end with ':'");
        assertThatThrownBy(() -> DhchapSecret.parse("DHHC-1:00:!!!!:")).hasMessage(
                "is not base64 between the second and the last ':'");
        // 31 key bytes + CRC: one short of the smallest length.
        byte[] shortKey = new byte[35];
        assertThatThrownBy(() -> DhchapSecret.parse("DHHC-1:00:" + Base64.getEncoder().encodeToString(shortKey)
                + ":")).hasMessage("holds a 31-byte key, not 32, 48 or 64");
        // One bit flipped in the key: the CRC no longer matches.
        byte[] raw = Base64.getDecoder().decode(KEY_00.substring(10, KEY_00.length() - 1));
        raw[0] ^= 1;
        assertThatThrownBy(() -> DhchapSecret.parse("DHHC-1:00:" + Base64.getEncoder().encodeToString(raw) + ":"))
                .hasMessage("fails its CRC-32 check (a typo or a truncated copy?)");
    }

    // ---- access.initiators ------------------------------------------------------------------------------------

    @Test
    void initiatorsAreReadInFileOrder() throws ConfigException {
        lun("x", "access:\n  initiators: [" + INITIATOR_B + ", " + INITIATOR_A + "]\n");
        AccessConfig access = config.loadLun("x").access();
        assertThat(access.initiators()).containsExactly(INITIATOR_B, INITIATOR_A);
        assertThat(access.hosts()).isEmpty();
    }

    @Test
    void initiatorsMustBeANonEmptyListOfIscsiNames() {
        lun("a", "access:\n  initiators: " + INITIATOR_A + "\n");
        lun("b", "access:\n  initiators: []\n");
        lun("c", "access:\n  initiators:\n    - " + INITIATOR_A + "\n    - not-an-iqn\n    - " + INITIATOR_A + "\n");
        List<String> problems = config.problems();
        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).isEqualTo("luns.d/a.yaml:4: access.initiators: " + INITIATOR_A
                + " is not a list; " + INITIATORS_ALLOWED);
        assertThat(problems.get(1)).isEqualTo("luns.d/b.yaml:4: access.initiators: an empty list; "
                + INITIATORS_ALLOWED);
        assertThat(problems.get(2)).startsWith("luns.d/c.yaml:6: access.initiators: not-an-iqn");
        assertThat(problems.get(3)).isEqualTo("luns.d/c.yaml:7: access.initiators: " + INITIATOR_A
                + " is listed twice (first on line 5); allowed: each initiator once");
    }

    @Test
    void initiatorsNeedAnIscsiExport() {
        lun("x", "export: { iscsi: false }\naccess:\n  initiators: [" + INITIATOR_A + "]\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.initiators: only allowed for a LUN"
                + " exported over iSCSI; this LUN has export.iscsi: false");
    }

    @Test
    void lunsOfOneTargetMustAgreeOnTheInitiators() {
        lun("a", "export: { iscsi: { target: \"iqn.2026-11.x.y:t\", lun: 0 } }\naccess:\n  initiators: ["
                + INITIATOR_A + "]\n");
        lun("b", "export: { iscsi: { target: \"iqn.2026-11.x.y:t\", lun: 1 } }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml: access.initiators: this file has no"
                + " initiators list (any initiator) but " + tmp.resolve("luns.d/a.yaml") + ":5 has initiators [" + INITIATOR_A + "] for the"
                + " same iSCSI target iqn.2026-11.x.y:t; allowed: the same access.initiators in every LUN file"
                + " exporting one target, or none in all of them");
    }

    // ---- access.dhchap ----------------------------------------------------------------------------------------

    @Test
    void dhchapReadsBothKeys() throws ConfigException {
        config.secret("keys/host.key", KEY_00 + "\n");
        config.secret("keys/ctrl.key", KEY_03 + "\n");
        lun("x", "access:\n  dhchap: { host-secret-file: keys/host.key, ctrl-secret-file: keys/ctrl.key }\n");
        DhchapConfig dhchap = config.loadLun("x").access().dhchap().orElseThrow();
        // One key in each file: the keys of every host.
        assertThat(dhchap.hostSecret(ANY_HOST)).contains(DhchapSecret.parse(KEY_00));
        assertThat(dhchap.ctrlSecret(ANY_HOST)).contains(DhchapSecret.parse(KEY_03));
        assertThat(dhchap.host()).isEqualTo(DhchapSecrets.every(DhchapSecret.parse(KEY_00)));
        assertThat(dhchap.bidirectional()).isTrue();
        assertThat(dhchap.hostSecretFile()).contains(tmp.resolve("keys/host.key").toAbsolutePath().normalize());
        assertThat(dhchap.toString()).doesNotContain("DHHC", "AAEC").contains("hostSecret=***");
    }

    @Test
    void dhchapHostKeyAloneIsUnidirectional() throws ConfigException {
        config.secret("host.key", KEY_02);
        lun("x", "access:\n  dhchap:\n    host-secret-file: host.key\n");
        DhchapConfig dhchap = config.loadLun("x").access().dhchap().orElseThrow();
        assertThat(dhchap.bidirectional()).isFalse();
        assertThat(dhchap.hostSecret(ANY_HOST).orElseThrow().transform()).isEqualTo(2);
    }

    @Test
    void dhchapProblemsNameTheFileNeverTheKey() {
        config.secret("bad.key", KEY_00.replace("AAEC", "AAED") + "\n");
        config.secret("host.key", KEY_00 + "\n");
        config.secret("same.key", KEY_00 + "\n");
        lun("a", "access:\n  dhchap: { host-secret-file: bad.key }\n");
        lun("b", "access:\n  dhchap: { ctrl-secret-file: host.key }\n");
        lun("c", "access:\n  dhchap: { host-secret-file: host.key, ctrl-secret-file: same.key }\n");
        lun("d", "access:\n  dhchap: { host-secret-file: missing.key }\n");
        lun("e", "access:\n  dhchap: { host-secret-file: host.key, key: x }\n");
        List<String> problems = config.problems();
        assertThat(String.join("\n", problems)).doesNotContain("AAEC", "AAED");
        assertThat(problems).containsExactly(
                "luns.d/a.yaml:4: access.dhchap.host-secret-file: bad.key fails its CRC-32 check (a typo or a"
                        + " truncated copy?); " + DHCHAP_ALLOWED,
                "luns.d/b.yaml: access.dhchap.host-secret-file: missing; " + DHCHAP_FILE_ALLOWED,
                "luns.d/c.yaml:4: access.dhchap.ctrl-secret-file: same.key holds the same key as host.key; allowed: a"
                        + " different key for each direction (NVMe Base 2.x §8.3.4.5.1: the controller proves a key"
                        + " of its own)",
                "luns.d/d.yaml:4: access.dhchap.host-secret-file: missing.key does not exist ("
                        + tmp.resolve("missing.key").toAbsolutePath().normalize() + "); " + DHCHAP_FILE_ALLOWED,
                "luns.d/e.yaml:4: access.dhchap.key: unknown key; allowed keys: host-secret-file, ctrl-secret-file");
    }

    @Test
    void dhchapNeedsAnNvmeExport() {
        config.secret("host.key", KEY_00);
        lun("x", "export: { nvme: false }\naccess:\n  dhchap: { host-secret-file: host.key }\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.dhchap: only allowed for a LUN"
                + " exported over NVMe/TCP; this LUN has export.nvme: false");
    }

    @Test
    void lunsOfOneSubsystemMustAgreeOnDhchap() {
        config.secret("host.key", KEY_00);
        config.secret("other.key", KEY_03);
        lun("a", "export: { nvme: { subsystem: \"nqn.2026-11.x.y:s\", nsid: 1 } }\naccess:\n  dhchap:"
                + " { host-secret-file: host.key }\n");
        lun("b", "export: { nvme: { subsystem: \"nqn.2026-11.x.y:s\", nsid: 2 } }\naccess:\n  dhchap:"
                + " { host-secret-file: other.key }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:5: access.dhchap: this file has DH-HMAC-CHAP"
                + " with other secrets but " + tmp.resolve("luns.d/a.yaml") + ":5 has DH-HMAC-CHAP for the same NVMe subsystem"
                + " nqn.2026-11.x.y:s; allowed: the same access.dhchap in every LUN file exporting one subsystem, or"
                + " none in all of them");
    }

    // ---- discovery-chap ---------------------------------------------------------------------------------------

    @Test
    void discoveryChapIsReadFromTheServerFile() throws ConfigException {
        lun("r", "");
        config.secret("secrets/disc.secret", "discovery-secret-1\n");
        config.secret("secrets/portal.secret", "portal-secret-22\n");
        config.file("blocktarget.yaml", "discovery-chap:\n  user: disc\n  secret-file: secrets/disc.secret\n"
                + "  mutual-user: portal\n  mutual-secret-file: secrets/portal.secret\n");
        ChapConfig chap = config.load().server().discoveryChap().orElseThrow();
        assertThat(chap.user()).isEqualTo("disc");
        assertThat(chap.secret()).isEqualTo("discovery-secret-1");
        assertThat(chap.mutualUser()).contains("portal");
        assertThat(chap.mutualSecret()).contains("portal-secret-22");
    }

    @Test
    void withoutDiscoveryChapDiscoveryIsOpen() throws ConfigException {
        lun("r", "");
        config.file("blocktarget.yaml", "bind: 127.0.0.1\n");
        assertThat(config.load().server().discoveryChap()).isEmpty();
    }

    @Test
    void discoveryChapProblemsUseItsOwnKeyPath() {
        lun("r", "");
        config.secret("short.secret", "short\n");
        config.file("blocktarget.yaml", "discovery-chap:\n  user: disc\n  secret-file: short.secret\n  pass: x\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:3: discovery-chap.secret-file: short.secret holds 5 bytes besides the trailing"
                        + " newline; allowed: a regular file holding the secret: 12 to 255 bytes of UTF-8 text without"
                        + " control characters, one trailing newline ignored (RFC 7143 §9.2.1: a CHAP secret of fewer"
                        + " than 96 random bits needs IPsec; open-iscsi's node.session.auth.password holds at most 255"
                        + " bytes)",
                "blocktarget.yaml:4: discovery-chap.pass: unknown key; allowed keys: user, secret-file, mutual-user,"
                        + " mutual-secret-file");
    }

    @Test
    void aWorldReadableDiscoverySecretIsAWarning() throws Exception {
        lun("r", "");
        config.secret("disc.secret", "discovery-secret-1".getBytes(), "rw-r--r--");
        config.file("blocktarget.yaml", "discovery-chap: { user: disc, secret-file: disc.secret }\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.server().discoveryChap()).isPresent();
        assertThat(loaded.warnings()).anyMatch(w -> w.contains("discovery-chap.secret-file: ")
                && w.contains("is readable by every user"));
    }

    // ---- writing back -----------------------------------------------------------------------------------------

    @Test
    void initiatorsAndDhchapRoundTripThroughTheWriter() throws Exception {
        config.secret("keys/host.key", KEY_00 + "\n");
        config.secret("keys/ctrl.key", KEY_03 + "\n");
        lun("x", "access:\n  initiators: [" + INITIATOR_A + "]\n  dhchap: { host-secret-file: keys/host.key,"
                + " ctrl-secret-file: keys/ctrl.key }\n");
        BlocktargetConfig before = config.load();
        LunFiles.prepare(tmp, before.luns().getFirst(), before.server()).commit();
        String text = Files.readString(tmp.resolve("luns.d/x.yaml"));
        assertThat(text).doesNotContain("DHHC").contains("initiators:", "host-secret-file:", "ctrl-secret-file:");
        assertThat(config.load().luns()).isEqualTo(before.luns());
        assertThat(Optional.of(before.luns().getFirst().access().initiators())).contains(List.of(INITIATOR_A));
    }
}
