package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** access: iSCSI CHAP (secrets from files, never printed) and allowed NVMe hosts; one test per rule, exact texts. */
class AccessTest extends ConfigDirTest {
    private static final String SECRET_ALLOWED = "allowed: a regular file holding the secret: 12 to 255 bytes of UTF-8"
            + " text without control characters, one trailing newline ignored (RFC 7143 §9.2.1: a CHAP secret of"
            + " fewer than 96 random bits needs IPsec; open-iscsi's node.session.auth.password holds at most 255"
            + " bytes)";
    private static final String USER_ALLOWED = "allowed: 1 to 255 bytes of printable ASCII without spaces (sent as"
            + " CHAP_N, RFC 7143 §12.1.3; open-iscsi's node.session.auth.username holds at most 255)";
    private static final String HOSTS_ALLOWED = "allowed: a list of host NQNs, e.g."
            + " [nqn.2014-08.org.nvmexpress:uuid:UUID] as in /etc/nvme/hostnqn; leave hosts out to admit any host";
    private static final String CHAP_KEYS = "allowed keys: user, secret-file, mutual-user, mutual-secret-file";

    private static final String ALICE = "alice-secret-1";
    private static final String TARGET1 = "target1-secret-2";
    private static final String HOST_A = "nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f";
    private static final String HOST_B = "nqn.2026-11.com.example:host-b";

    /** A RAM LUN: backend on line 1, size on line 2, {@code rest} from line 3. */
    private void lun(String name, String rest) {
        config.lun(name, "backend: ram\nsize: 1GiB\n" + rest);
    }

    private void aliceSecrets() {
        config.secret("secrets/alice.secret", ALICE + "\n");
        config.secret("secrets/target1.secret", TARGET1 + "\n");
    }

    // ---- what is read ---------------------------------------------------------------------------------------

    @Test
    void withoutAccessAnyoneMayConnect() throws ConfigException {
        lun("x", "");
        assertThat(config.loadLun("x").access()).isEqualTo(AccessConfig.OPEN);
    }

    @Test
    void oneWayChapReadsTheSecretWithoutItsTrailingNewline() throws ConfigException {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns().getFirst().access()).isEqualTo(new AccessConfig(
                Optional.of(new ChapConfig("alice", ALICE, Optional.empty(), Optional.empty(),
                        Optional.of(tmp.resolve("secrets/alice.secret")), Optional.empty())), List.of()));
        assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void mutualChapStripsOneCrLfAndKeepsOtherWhitespace() throws ConfigException {
        config.secret("secrets/alice.secret", " " + ALICE + " \r\n");
        config.secret("abs.secret", TARGET1); // no trailing newline at all
        lun("x", "access:\n  chap: { user: alice, secret-file: secrets/alice.secret, mutual-user: target1,"
                + " mutual-secret-file: " + tmp.resolve("abs.secret") + " }\n");
        ChapConfig chap = config.loadLun("x").access().chap().orElseThrow();
        assertThat(chap).isEqualTo(new ChapConfig("alice", " " + ALICE + " ", Optional.of("target1"), Optional.of(TARGET1),
                Optional.of(tmp.resolve("secrets/alice.secret")), Optional.of(tmp.resolve("abs.secret"))));
        assertThat(chap.mutual()).isTrue();
    }

    @Test
    void secretsOf12And255BytesAreTheLimits() throws ConfigException {
        config.secret("s12", "x".repeat(12) + "\n");
        config.secret("s255", "é".repeat(127) + "y");
        lun("x", "access:\n  chap: { user: u, secret-file: s12, mutual-user: t, mutual-secret-file: s255 }\n");
        ChapConfig chap = config.loadLun("x").access().chap().orElseThrow();
        assertThat(chap.secret()).hasSize(12);
        assertThat(chap.mutualSecret().orElseThrow().getBytes(StandardCharsets.UTF_8)).hasSize(255);
    }

    @Test
    void hostsAreReadInFileOrder() throws ConfigException {
        lun("x", "access:\n  hosts:\n    - " + HOST_B + "\n    - " + HOST_A + "\n");
        assertThat(config.loadLun("x").access()).isEqualTo(new AccessConfig(Optional.empty(), List.of(HOST_B, HOST_A)));
    }

    @Test
    void toStringOfTheConfigNeverShowsASecret() throws ConfigException {
        aliceSecrets();
        lun("x", "access:\n  chap: { user: alice, secret-file: secrets/alice.secret, mutual-user: target1,"
                + " mutual-secret-file: secrets/target1.secret }\n  hosts: [" + HOST_A + "]\n");
        BlocktargetConfig loaded = config.load();
        for (String text : List.of(loaded.toString(), loaded.luns().getFirst().toString(),
                loaded.luns().getFirst().access().toString())) {
            assertThat(text).contains("alice", "target1", HOST_A).doesNotContain(ALICE, TARGET1);
        }
        assertThat(loaded.luns().getFirst().access().chap().orElseThrow().toString())
                .isEqualTo("ChapConfig[user=alice, secret=***, mutualUser=target1, mutualSecret=***, secretFile="
                        + tmp.resolve("secrets/alice.secret") + ", mutualSecretFile=" + tmp.resolve("secrets/target1.secret")
                        + "]");
    }

    @Test
    void worldReadableSecretIsAWarningNotAnError() throws ConfigException {
        config.secret("secrets/alice.secret", (ALICE + "\n").getBytes(StandardCharsets.UTF_8), "rw-r--r--");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns().getFirst().access().chap()).isPresent();
        assertThat(loaded.warnings()).containsExactly(tmp.resolve("luns.d/x.yaml") + ":6: access.chap.secret-file: "
                + tmp.resolve("secrets/alice.secret") + " is readable by every user (mode rw-r--r--); chmod 600 it so"
                + " that only the server's user can read the secret");
    }

    @Test
    void groupReadableSecretIsNoWarning() throws ConfigException {
        config.secret("s", (ALICE + "\n").getBytes(StandardCharsets.UTF_8), "rw-r-----");
        lun("x", "access: { chap: { user: alice, secret-file: s } }\n");
        assertThat(config.load().warnings()).isEmpty();
    }

    // ---- the access and chap maps ------------------------------------------------------------------------

    @Test
    void accessMustBeAMap() {
        lun("x", "access: chap\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: access: chap is not an access map; allowed: a map with the keys chap, hosts,"
                        + " initiators, dhchap, tls, tls-psk-file");
    }

    @Test
    void unknownKeyInAccess() {
        lun("x", "access:\n  users: [iqn.2026-11.x.y:z]\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: access.users: unknown key; allowed keys: chap, hosts, initiators, dhchap, tls,"
                        + " tls-psk-file");
    }

    @Test
    void chapMustBeAMap() {
        lun("x", "access:\n  chap: [alice]\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: access.chap: a list is not a CHAP map; allowed: a map with the keys user,"
                        + " secret-file, mutual-user, mutual-secret-file");
    }

    @Test
    void unknownKeyInChapSuchAsAnInlineSecret() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n    secret: " + ALICE + "\n");
        List<String> problems = config.problems();
        assertThat(problems).containsExactly("luns.d/x.yaml:7: access.chap.secret: unknown key; did you mean `secret-file`? " + CHAP_KEYS);
    }

    @Test
    void userIsRequired() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    secret-file: secrets/alice.secret\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: access.chap.user: missing; " + USER_ALLOWED);
    }

    @Test
    void userWithASpaceIsRejected() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alice smith\n    secret-file: secrets/alice.secret\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:5: access.chap.user: alice smith contains a space; " + USER_ALLOWED);
    }

    @Test
    void userWithNonAsciiIsRejected() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alicé\n    secret-file: secrets/alice.secret\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:5: access.chap.user: alicé contains U+00E9; " + USER_ALLOWED);
    }

    @Test
    void userOf256BytesIsTooLong() {
        aliceSecrets();
        String user = "u".repeat(256);
        lun("x", "access:\n  chap:\n    user: " + user + "\n    secret-file: secrets/alice.secret\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:5: access.chap.user: " + user + " is 256 bytes long; " + USER_ALLOWED);
    }

    @Test
    void emptyUserIsRejected() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: \"\"\n    secret-file: secrets/alice.secret\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.chap.user: an empty name; " + USER_ALLOWED);
    }

    // ---- secret files -----------------------------------------------------------------------------------

    @Test
    void secretFileIsRequired() {
        lun("x", "access:\n  chap:\n    user: alice\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: access.chap.secret-file: missing; " + SECRET_ALLOWED);
    }

    @Test
    void missingSecretFileNamesTheResolvedPath() {
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/nope.secret\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:6: access.chap.secret-file: secrets/nope.secret"
                + " does not exist (" + tmp.resolve("secrets/nope.secret") + "); " + SECRET_ALLOWED);
    }

    @Test
    void secretFileMustBeARegularFile() throws Exception {
        Files.createDirectories(tmp.resolve("secrets"));
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.chap.secret-file: secrets is not a regular file; " + SECRET_ALLOWED);
    }

    @Test
    void unreadableSecretFile() throws Exception {
        assumeFalse("root".equals(System.getProperty("user.name")), "root reads files of any mode");
        config.secret("s", (ALICE + "\n").getBytes(StandardCharsets.UTF_8), "---------");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.chap.secret-file: s cannot be read: permission denied; " + SECRET_ALLOWED);
    }

    @Test
    void secretOf11BytesIsTooShortAndIsNotPrinted() {
        config.secret("s", "short-secre\n");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:6: access.chap.secret-file: s holds 11 bytes"
                + " besides the trailing newline; " + SECRET_ALLOWED);
    }

    @Test
    void emptySecretFile() {
        config.secret("s", "");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.chap.secret-file: s holds 0 bytes; " + SECRET_ALLOWED);
    }

    @Test
    void secretOf256BytesIsTooLong() {
        config.secret("s", "z".repeat(256));
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.chap.secret-file: s holds 256 bytes; " + SECRET_ALLOWED);
    }

    @Test
    void onlyOneTrailingNewlineIsStripped() {
        config.secret("s", ALICE + "\n\n");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:6: access.chap.secret-file: s holds a control"
                + " character (a line break inside the secret?); " + SECRET_ALLOWED);
    }

    @Test
    void secretMustBeUtf8() {
        byte[] latin1 = "geheimnis-spaß".getBytes(StandardCharsets.ISO_8859_1);
        config.secret("s", latin1, "rw-------");
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: s\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.chap.secret-file: s is not UTF-8 text; " + SECRET_ALLOWED);
    }

    @Test
    void mutualUserWithoutMutualSecretFile() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n    mutual-user: target1\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:7: access.chap.mutual-user: given without"
                + " mutual-secret-file; allowed: both mutual-user and mutual-secret-file (mutual CHAP) or neither"
                + " (one-way CHAP)");
    }

    @Test
    void mutualSecretFileWithoutMutualUser() {
        aliceSecrets();
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n"
                + "    mutual-secret-file: secrets/target1.secret\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:7: access.chap.mutual-secret-file: given without"
                + " mutual-user; allowed: both mutual-user and mutual-secret-file (mutual CHAP) or neither"
                + " (one-way CHAP)");
    }

    @Test
    void mutualSecretMustDifferFromTheInitiatorSecret() {
        aliceSecrets();
        config.secret("secrets/copy.secret", ALICE); // same secret, no newline: equal after stripping
        lun("x", "access:\n  chap:\n    user: alice\n    secret-file: secrets/alice.secret\n    mutual-user: target1\n"
                + "    mutual-secret-file: secrets/copy.secret\n");
        List<String> problems = config.problems();
        assertThat(problems).containsExactly("luns.d/x.yaml:8: access.chap.mutual-secret-file: secrets/copy.secret"
                + " holds the same secret as secrets/alice.secret; allowed: a different secret for each direction"
                + " (RFC 7143 §9.2.1: a secret that authenticates initiators must not also authenticate targets)");
        assertThat(String.join("\n", problems)).doesNotContain(ALICE);
    }

    // ---- protocol rules ---------------------------------------------------------------------------------

    @Test
    void chapOnALunNotExportedOverIscsi() {
        aliceSecrets();
        lun("x", "export: { iscsi: false }\naccess:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.chap: only allowed for a LUN exported"
                + " over iSCSI; this LUN has export.iscsi: false");
    }

    @Test
    void hostsOnALunNotExportedOverNvme() {
        lun("x", "export: { nvme: false }\naccess:\n  hosts: [" + HOST_A + "]\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.hosts: only allowed for a LUN exported"
                + " over NVMe/TCP; this LUN has export.nvme: false");
    }

    @Test
    void aBrokenExportIsReportedOnceNotAsMissingExport() {
        aliceSecrets();
        lun("x", "export: { iscsi: maybe }\naccess:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: export.iscsi: maybe is not an export;"
                + " allowed: false, true or a map with target (an iSCSI name) and lun (0..16383)");
    }

    // ---- hosts ----------------------------------------------------------------------------------------------

    @Test
    void hostsMustBeAList() {
        lun("x", "access:\n  hosts: " + HOST_A + "\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: access.hosts: " + HOST_A + " is not a list; " + HOSTS_ALLOWED);
    }

    @Test
    void emptyHostsListIsRejectedRatherThanMeaningAnyHost() {
        lun("x", "access:\n  hosts: []\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: access.hosts: an empty list; " + HOSTS_ALLOWED);
    }

    @Test
    void everyBadHostIsReportedAtItsLine() {
        lun("x", "access:\n  hosts:\n    - " + HOST_A + "\n    - nqn.2026-11.Example\n    - { a: b }\n    - "
                + HOST_A + "\n    - nqn.2014-08.org.nvmexpress:uuid:6E1C2F3A-3B1D-4C8E-9A55-1A2B3C4D5E6F\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:6: access.hosts: nqn.2026-11.Example is not nqn.YYYY-MM.reverse.domain:string; "
                        + NQN_ALLOWED,
                "luns.d/x.yaml:7: access.hosts: a map is not an NQN; " + HOSTS_ALLOWED,
                "luns.d/x.yaml:8: access.hosts: " + HOST_A + " is listed twice (first on line 5); allowed: each host once",
                "luns.d/x.yaml:9: access.hosts: nqn.2014-08.org.nvmexpress:uuid:6E1C2F3A-3B1D-4C8E-9A55-1A2B3C4D5E6F"
                        + " does not end in a UUID (8-4-4-4-12 lowercase hex digits); " + NQN_ALLOWED);
    }

    // ---- shared targets and subsystems ------------------------------------------------------------------

    private static final String SHARED = "export:\n  iscsi: { target: \"iqn.2026-11.x.y:shared\", lun: %d }\n"
            + "  nvme: { subsystem: \"nqn.2026-11.x.y:shared\", nsid: %d }\n";

    private void shared(String name, int number, String access) {
        lun(name, SHARED.formatted(number, number + 1) + access);
    }

    @Test
    void lunsOfOneTargetWithTheSameChapAndHostsAreFine() throws ConfigException {
        aliceSecrets();
        config.secret("secrets/alice-copy.secret", ALICE);
        shared("a", 0, "access:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n  hosts: [" + HOST_A
                + ", " + HOST_B + "]\n");
        shared("b", 1, "access:\n  chap: { user: alice, secret-file: secrets/alice-copy.secret }\n  hosts: [" + HOST_B
                + ", " + HOST_A + "]\n");
        // Two files holding one secret are one setting: the paths differ, the credentials do not.
        assertThat(config.load().luns()).extracting(LunConfig::access).map(a -> a.chap().map(ChapConfig::credentials))
                .containsOnly(Optional.of(new ChapConfig("alice", ALICE, Optional.empty(), Optional.empty())));
    }

    @Test
    void chapOnOnlyOneLunOfATargetNamesBothFiles() {
        aliceSecrets();
        shared("a", 0, "access:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n");
        shared("b", 1, "");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml: access.chap: this file has no CHAP but "
                + tmp.resolve("luns.d/a.yaml") + ":7 has CHAP user alice for the same iSCSI target iqn.2026-11.x.y:shared;"
                + " allowed: the same access.chap in every LUN file exporting one target, or none in all of them");
    }

    @Test
    void differentSecretsForOneTargetAreAProblemThatHidesThem() {
        aliceSecrets();
        config.secret("secrets/other.secret", "another-secret-3\n");
        shared("a", 0, "access:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n");
        shared("b", 1, "access:\n  chap: { user: alice, secret-file: secrets/other.secret }\n");
        List<String> problems = config.problems();
        assertThat(problems).containsExactly("luns.d/b.yaml:7: access.chap: this file has CHAP user alice with other"
                + " secrets but " + tmp.resolve("luns.d/a.yaml") + ":7 has CHAP user alice for the same iSCSI target"
                + " iqn.2026-11.x.y:shared; allowed: the same access.chap in every LUN file exporting one target, or"
                + " none in all of them");
        assertThat(String.join("\n", problems)).doesNotContain(ALICE, "another-secret-3");
    }

    @Test
    void mutualAgainstOneWayChapForOneTarget() {
        aliceSecrets();
        shared("a", 0, "access:\n  chap: { user: alice, secret-file: secrets/alice.secret }\n");
        shared("b", 1, "access:\n  chap: { user: alice, secret-file: secrets/alice.secret, mutual-user: target1,"
                + " mutual-secret-file: secrets/target1.secret }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:7: access.chap: this file has mutual CHAP user"
                + " alice / target1 but " + tmp.resolve("luns.d/a.yaml") + ":7 has CHAP user alice for the same iSCSI"
                + " target iqn.2026-11.x.y:shared; allowed: the same access.chap in every LUN file exporting one"
                + " target, or none in all of them");
    }

    @Test
    void differentHostsForOneSubsystemNamesBothFiles() {
        shared("a", 0, "access:\n  hosts: [" + HOST_A + "]\n");
        shared("b", 1, "\naccess:\n  hosts: [" + HOST_B + "]\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:8: access.hosts: this file has hosts [" + HOST_B
                + "] but " + tmp.resolve("luns.d/a.yaml") + ":7 has hosts [" + HOST_A + "] for the same NVMe subsystem"
                + " nqn.2026-11.x.y:shared; allowed: the same access.hosts in every LUN file exporting one subsystem,"
                + " or none in all of them");
    }

    @Test
    void hostsOnOnlyOneLunOfASubsystem() {
        shared("a", 0, "access: {}\n");
        shared("b", 1, "access:\n  hosts: [" + HOST_B + "]\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:7: access.hosts: this file has hosts [" + HOST_B
                + "] but " + tmp.resolve("luns.d/a.yaml") + ":6 has no hosts list (any host) for the same NVMe"
                + " subsystem nqn.2026-11.x.y:shared; allowed: the same access.hosts in every LUN file exporting one"
                + " subsystem, or none in all of them");
    }
}
