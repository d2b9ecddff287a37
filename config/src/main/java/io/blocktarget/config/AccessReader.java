package io.blocktarget.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The {@code access:} map of a LUN file: iSCSI CHAP for the LUN's target ({@code chap}) and the NVMe host NQNs
 * allowed to connect to its subsystem ({@code hosts}). Secrets are read from files named in the map and never
 * appear in a problem or warning.
 */
final class AccessReader {
    static final List<String> KEYS = List.of("chap", "hosts", "initiators", "dhchap", "tls", "tls-psk-file");
    static final List<String> DHCHAP_KEYS = List.of("host-secret-file", "ctrl-secret-file");
    static final List<String> CHAP_KEYS = List.of("user", "secret-file", "mutual-user", "mutual-secret-file");

    /** RFC 7143 §6.1: text values are at most 255 bytes; open-iscsi keeps CHAP names and secrets in 256-byte buffers. */
    static final int MAX_CHAP_BYTES = 255;
    /** RFC 7143 §9.2.1: a CHAP secret with fewer than 96 random bits (12 bytes) needs IPsec to protect it. */
    static final int MIN_SECRET_BYTES = 12;

    static final String USER_ALLOWED = "1 to 255 bytes of printable ASCII without spaces (sent as CHAP_N, RFC 7143"
            + " §12.1.3; open-iscsi's node.session.auth.username holds at most 255)";
    static final String SECRET_ALLOWED = "a regular file holding the secret: 12 to 255 bytes of UTF-8 text without"
            + " control characters, one trailing newline ignored (RFC 7143 §9.2.1: a CHAP secret of fewer than 96"
            + " random bits needs IPsec; open-iscsi's node.session.auth.password holds at most 255 bytes)";
    static final String HOSTS_ALLOWED = "a list of host NQNs, e.g. [nqn.2014-08.org.nvmexpress:uuid:UUID] as in"
            + " /etc/nvme/hostnqn; leave hosts out to admit any host";
    static final String INITIATORS_ALLOWED = "a list of iSCSI initiator names, e.g. [iqn.2004-10.com.ubuntu:01:abc] as"
            + " in /etc/iscsi/initiatorname.iscsi; leave initiators out to admit any initiator";
    private static final String PAIR_ALLOWED = "both mutual-user and mutual-secret-file (mutual CHAP) or neither"
            + " (one-way CHAP)";

    private static final ValueType<String> USER = ValueType.text("a CHAP user name", USER_ALLOWED, text -> {
        if (text.isEmpty()) {
            throw new InvalidValue("an empty name", USER_ALLOWED);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c >= 0x7F) {
                throw new InvalidValue(text + " contains " + (c == ' ' ? "a space" : String.format("U+%04X", (int) c)),
                        USER_ALLOWED);
            }
        }
        if (text.length() > MAX_CHAP_BYTES) {
            throw new InvalidValue(text + " is " + text.length() + " bytes long", USER_ALLOWED);
        }
        return text;
    });
    private static final ValueType<String> SECRET_PATH = ValueType.path(SECRET_ALLOWED);
    private static final ValueType<String> DHCHAP_PATH = ValueType.path(DhchapReader.ALLOWED);

    /**
     * What the {@code access:} map yields.
     *
     * @param config   empty when the map has a problem
     * @param claims   for the cross-file rule (one access setting per target / subsystem); none after a problem
     * @param warnings e.g. world-readable secret files
     */
    record Access(Optional<AccessConfig> config, List<AccessClaim> claims, List<String> warnings) {
    }

    private AccessReader() {
    }

    /**
     * @param lun       the LUN file's mapping
     * @param configDir base of relative secret file paths
     * @param exports   what the file exports
     * @param exportsOk whether {@code export:} had no problem (else a missing export proves nothing)
     */
    static Access read(YamlMap lun, Path configDir, ExportReader.Exports exports, boolean exportsOk,
                       Problems problems) {
        int before = problems.count();
        List<String> warnings = new ArrayList<>();
        Optional<YamlMap> access = lun.node("access")
                .flatMap(node -> YamlMap.of(node, "access", KEYS, "an access map", problems));
        Optional<ChapConfig> chap = Optional.empty();
        List<String> hosts = List.of();
        List<String> initiators = List.of();
        Optional<DhchapConfig> dhchap = Optional.empty();
        TlsConfig tls = TlsConfig.OFF;
        if (access.isPresent()) {
            YamlMap map = access.get();
            if (map.has("chap")) {
                chap = chap(map, configDir, problems, warnings);
                if (exportsOk && exports.iscsi().isEmpty()) {
                    problems.add(map.line("chap"), "access.chap", "only allowed for a LUN exported over iSCSI;"
                            + " this LUN has export.iscsi: false");
                }
            }
            if (map.has("hosts")) {
                hosts = hosts(map, problems);
                if (exportsOk && exports.nvme().isEmpty()) {
                    problems.add(map.line("hosts"), "access.hosts", "only allowed for a LUN exported over NVMe/TCP;"
                            + " this LUN has export.nvme: false");
                }
            }
            if (map.has("initiators")) {
                initiators = names(map, "initiators", INITIATORS_ALLOWED, Names::iqn, problems);
                if (exportsOk && exports.iscsi().isEmpty()) {
                    problems.add(map.line("initiators"), "access.initiators", "only allowed for a LUN exported over"
                            + " iSCSI; this LUN has export.iscsi: false");
                }
            }
            if (map.has("dhchap")) {
                dhchap = DhchapReader.read(map, configDir, hosts, problems, warnings);
                if (exportsOk && exports.nvme().isEmpty()) {
                    problems.add(map.line("dhchap"), "access.dhchap", "only allowed for a LUN exported over NVMe/TCP;"
                            + " this LUN has export.nvme: false");
                }
            }
            tls = TlsReader.read(map, configDir, exports.nvme().isPresent(), exportsOk, problems, warnings)
                    .orElse(TlsConfig.OFF);
        }
        if (problems.count() > before) {
            return new Access(Optional.empty(), List.of(), warnings);
        }
        AccessConfig config = new AccessConfig(chap, hosts, initiators, dhchap, tls);
        return new Access(Optional.of(config), claims(lun, access, exports, config, problems), warnings);
    }

    /** The claims a validated LUN makes, as if it had been read from its file again (for cross-checks). */
    static List<AccessClaim> claims(LunConfig lun) {
        List<AccessClaim> claims = new ArrayList<>();
        AccessConfig config = lun.access();
        Path file = ExportReader.source(lun);
        lun.iscsi().ifPresent(e -> claims.add(new AccessClaim("iSCSI target " + e.target(), "access.chap", file, 0,
                config.chap().map(ChapConfig::credentials), config.chap().map(ChapConfig::describe).orElse("no CHAP"))));
        lun.nvme().ifPresent(e -> claims.add(new AccessClaim("NVMe subsystem " + e.subsystem(), "access.hosts", file,
                0, Set.copyOf(config.hosts()),
                config.hosts().isEmpty() ? "no hosts list (any host)" : "hosts " + config.hosts())));
        lun.iscsi().ifPresent(e -> claims.add(initiatorsClaim(e, config, file, 0)));
        lun.nvme().ifPresent(e -> claims.add(dhchapClaim(e, config, file, 0)));
        lun.nvme().ifPresent(e -> claims.add(tlsClaim(e, config, file, 0)));
        return claims;
    }

    private static List<AccessClaim> claims(YamlMap lun, Optional<YamlMap> access, ExportReader.Exports exports,
                                            AccessConfig config, Problems problems) {
        List<AccessClaim> claims = new ArrayList<>();
        exports.iscsi().ifPresent(e -> claims.add(new AccessClaim("iSCSI target " + e.target(), "access.chap",
                problems.file(), line(lun, access, "chap"), config.chap().map(ChapConfig::credentials),
                config.chap().map(ChapConfig::describe).orElse("no CHAP"))));
        exports.nvme().ifPresent(e -> claims.add(new AccessClaim("NVMe subsystem " + e.subsystem(), "access.hosts",
                problems.file(), line(lun, access, "hosts"), Set.copyOf(config.hosts()),
                config.hosts().isEmpty() ? "no hosts list (any host)" : "hosts " + config.hosts())));
        exports.iscsi().ifPresent(e -> claims.add(initiatorsClaim(e, config, problems.file(),
                line(lun, access, "initiators"))));
        exports.nvme().ifPresent(e -> claims.add(dhchapClaim(e, config, problems.file(), line(lun, access, "dhchap"))));
        exports.nvme().ifPresent(e -> claims.add(tlsClaim(e, config, problems.file(), line(lun, access, "tls"))));
        return claims;
    }

    /** The initiator list belongs to the target (RFC 7143 §11.13.5 0202 is about the target), like CHAP. */
    private static AccessClaim initiatorsClaim(IscsiExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("iSCSI target " + e.target(), "access.initiators", file, line,
                Set.copyOf(config.initiators()), config.initiators().isEmpty() ? "no initiators list (any initiator)"
                : "initiators " + config.initiators());
    }

    /** DH-HMAC-CHAP keys belong to the subsystem: one controller authenticates for all its namespaces. */
    private static AccessClaim dhchapClaim(NvmeExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("NVMe subsystem " + e.subsystem(), "access.dhchap", file, line,
                config.dhchap().map(DhchapConfig::credentials), config.dhchap()
                .map(d -> d.bidirectional() ? "bidirectional DH-HMAC-CHAP" : "DH-HMAC-CHAP").orElse("no dhchap"));
    }

    /**
     * TLS belongs to the subsystem: the PSK identity names the subsystem NQN (NVMe/TCP Transport §3.6.1.3) and the
     * discovery log entry of the subsystem carries one TREQ; so one mode and one PSK per subsystem.
     */
    private static AccessClaim tlsClaim(NvmeExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("NVMe subsystem " + e.subsystem(), "access.tls", file, line, config.tls().credentials(),
                TlsReader.shown(config.tls()));
    }

    private static int line(YamlMap lun, Optional<YamlMap> access, String key) {
        int keyLine = access.map(m -> m.line(key)).orElse(0);
        return keyLine > 0 ? keyLine : lun.line("access");
    }

    private static Optional<ChapConfig> chap(YamlMap access, Path configDir, Problems problems, List<String> warnings) {
        return chap(access, "chap", configDir, problems, warnings);
    }

    /** The CHAP map under {@code key} of {@code parent}: {@code access.chap}, or {@code discovery-chap} server-wide. */
    static Optional<ChapConfig> chap(YamlMap parent, String key, Path configDir, Problems problems,
                                     List<String> warnings) {
        Optional<YamlMap> parsed = YamlMap.of(parent.node(key).orElseThrow(), parent.keyPath(key), CHAP_KEYS,
                "a CHAP map", problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap chap = parsed.get();
        Optional<String> user = chap.required("user", USER);
        Optional<String> secret = secret(chap, "secret-file", configDir, problems, warnings, true);
        Optional<String> mutualUser = chap.value("mutual-user", USER);
        Optional<String> mutualSecret = secret(chap, "mutual-secret-file", configDir, problems, warnings, false);
        if (chap.has("mutual-user") != chap.has("mutual-secret-file")) {
            String given = chap.has("mutual-user") ? "mutual-user" : "mutual-secret-file";
            String missing = chap.has("mutual-user") ? "mutual-secret-file" : "mutual-user";
            problems.add(chap.line(given), chap.keyPath(given), "given without " + missing + "; allowed: "
                    + PAIR_ALLOWED);
            return Optional.empty();
        }
        if (secret.isPresent() && secret.equals(mutualSecret)) {
            chap.problem("mutual-secret-file", chap.text("mutual-secret-file") + " holds the same secret as "
                    + chap.text("secret-file") + "; allowed: a different secret for each direction (RFC 7143 §9.2.1:"
                    + " a secret that authenticates initiators must not also authenticate targets)");
            return Optional.empty();
        }
        if (user.isEmpty() || secret.isEmpty() || chap.has("mutual-user") && (mutualUser.isEmpty()
                || mutualSecret.isEmpty())) {
            return Optional.empty();
        }
        // Both paths were read without a problem above (their secrets are present): text() is the value as written.
        Optional<Path> secretFile = Optional.of(resolve(configDir, chap.text("secret-file")));
        Optional<Path> mutualSecretFile = mutualSecret.map(s -> resolve(configDir, chap.text("mutual-secret-file")));
        return Optional.of(new ChapConfig(user.get(), secret.get(), mutualUser, mutualSecret, secretFile,
                mutualSecretFile));
    }

    /**
     * Reads the secret named by {@code key}: a regular file of 12..255 bytes of UTF-8 text without control
     * characters after stripping one trailing newline ({@code \n} or {@code \r\n}). Problems say the file and the
     * length, never the content. A file others may read gets a warning.
     */
    static Optional<String> secret(YamlMap chap, String key, Path configDir, Problems problems,
                                   List<String> warnings, boolean required) {
        Optional<String> given = required ? chap.required(key, pathType(chap, key)) : chap.value(key, pathType(chap, key));
        if (given.isEmpty()) {
            return Optional.empty();
        }
        String shown = given.get();
        String allowedText = chap.keyPath(key).startsWith("access.dhchap.") ? DhchapReader.ALLOWED : SECRET_ALLOWED;
        Path file = resolve(configDir, shown);
        if (!Files.exists(file)) {
            chap.problem(key, shown + " does not exist (" + file + "); allowed: " + allowedText);
            return Optional.empty();
        }
        if (!Files.isRegularFile(file)) {
            chap.problem(key, shown + " is not a regular file; allowed: " + allowedText);
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            chap.problem(key, shown + " cannot be read: " + YamlSource.describe(e) + "; allowed: " + allowedText);
            return Optional.empty();
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        if (chap.keyPath(key).startsWith("access.dhchap.")) {
            return Optional.of(dhchapText(bytes, length));
        }
        if (length < MIN_SECRET_BYTES || length > MAX_CHAP_BYTES) {
            chap.problem(key, shown + " holds " + length + (length == 1 ? " byte" : " bytes")
                    + (length < bytes.length ? " besides the trailing newline" : "") + "; allowed: " + SECRET_ALLOWED);
            return Optional.empty();
        }
        String secret;
        try {
            secret = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, length))
                    .toString();
        } catch (CharacterCodingException e) {
            chap.problem(key, shown + " is not UTF-8 text; allowed: " + SECRET_ALLOWED);
            return Optional.empty();
        }
        if (secret.chars().anyMatch(Character::isISOControl)) {
            chap.problem(key, shown + " holds a control character (a line break inside the secret?); allowed: "
                    + SECRET_ALLOWED);
            return Optional.empty();
        }
        worldReadable(file).ifPresent(mode -> warnings.add(problems.file() + ":" + chap.line(key) + ": "
                + chap.keyPath(key) + ": " + file + " is readable by every user (mode " + mode
                + "); chmod 600 it so that only the server's user can read the secret"));
        return Optional.of(secret);
    }

    private static ValueType<String> pathType(YamlMap map, String key) {
        return map.keyPath(key).startsWith("access.dhchap.") ? DHCHAP_PATH : SECRET_PATH;
    }

    /** A DH-HMAC-CHAP key file's text (DhchapReader parses it); the bytes read are wiped. */
    private static String dhchapText(byte[] bytes, int length) {
        try {
            return new String(bytes, 0, length, StandardCharsets.US_ASCII);
        } finally {
            java.util.Arrays.fill(bytes, (byte) 0);
        }
    }

    static Path resolve(Path configDir, String written) {
        return configDir.toAbsolutePath().resolve(written).normalize();
    }

    /** The file's mode as {@code rw-r--r--} when others may read it (mode & 0004); empty elsewhere or without POSIX. */
    static Optional<String> worldReadable(Path file) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            return permissions.contains(PosixFilePermission.OTHERS_READ)
                    ? Optional.of(java.nio.file.attribute.PosixFilePermissions.toString(permissions))
                    : Optional.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** Each entry a valid NQN (NVMe Base §4.5), at least one, none twice. Empty after a problem. */
    private static List<String> hosts(YamlMap access, Problems problems) {
        return names(access, "hosts", HOSTS_ALLOWED, Names::nqn, problems);
    }

    /** A list of names under {@code key}: each valid, at least one, none twice. Empty after a problem. */
    private static List<String> names(YamlMap access, String key, String allowed, ValueType.TextParser<String> check,
                                      Problems problems) {
        Node node = access.node(key).orElseThrow();
        if (!(node instanceof SequenceNode list) || list.getValue().isEmpty()) {
            String what = node instanceof SequenceNode ? "an empty list" : YamlMap.describe(node) + " is not a list";
            access.problem(key, what + "; allowed: " + allowed);
            return List.of();
        }
        int before = problems.count();
        Map<String, Integer> firstLine = new HashMap<>();
        Set<String> hosts = new LinkedHashSet<>();
        for (Node entry : list.getValue()) {
            int line = YamlSource.line(entry);
            if (!(entry instanceof ScalarNode scalar) || YamlSource.isEmpty(entry)) {
                problems.add(line, access.keyPath(key), YamlMap.describe(entry) + " is not "
                        + (key.equals("hosts") ? "an NQN" : "an iSCSI name") + "; allowed: " + allowed);
                continue;
            }
            try {
                String nqn = check.parse(scalar.getValue());
                Integer earlier = firstLine.putIfAbsent(nqn, line);
                if (earlier != null) {
                    problems.add(line, access.keyPath(key), nqn + " is listed twice (first on line " + earlier
                            + "); allowed: each " + (key.equals("hosts") ? "host" : "initiator") + " once");
                }
                hosts.add(nqn);
            } catch (InvalidValue e) {
                problems.add(line, access.keyPath(key), e);
            }
        }
        return problems.count() > before ? List.of() : List.copyOf(hosts);
    }
}
