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
    /** RFC 7143 §9.2.1: a CHAP secret with fewer than 96 random bits (12 bytes) needs IPsec to protect it. */
    static final int MIN_SECRET_BYTES = 12;
    static final int MAX_CHAP_BYTES = LunKeys.MAX_CHAP_BYTES;
    static final String SECRET_ALLOWED = LunKeys.SECRET_ALLOWED;
    private static final String PAIR_ALLOWED = "both " + LunKeys.CHAP_MUTUAL_USER.name() + " and "
            + LunKeys.CHAP_MUTUAL_SECRET_FILE.name() + " (mutual CHAP) or neither (one-way CHAP)";

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
        Optional<YamlMap> access = YamlMap.section(lun, LunKeys.ACCESS, problems);
        Optional<ChapConfig> chap = Optional.empty();
        List<String> hosts = List.of();
        List<String> initiators = List.of();
        Optional<DhchapConfig> dhchap = Optional.empty();
        TlsConfig tls = TlsConfig.OFF;
        if (access.isPresent()) {
            YamlMap map = access.get();
            if (map.has(LunKeys.CHAP)) {
                chap = chap(map, LunKeys.CHAP, configDir, problems, warnings);
                if (exportsOk && exports.iscsi().isEmpty()) {
                    onlyExported(map, LunKeys.CHAP, LunKeys.ISCSI, "iSCSI", problems);
                }
            }
            if (map.has(LunKeys.HOSTS)) {
                hosts = names(map, LunKeys.HOSTS, LunKeys.HOSTS_ALLOWED, "an NQN", "host", problems);
                if (exportsOk && exports.nvme().isEmpty()) {
                    onlyExported(map, LunKeys.HOSTS, LunKeys.NVME, "NVMe/TCP", problems);
                }
            }
            if (map.has(LunKeys.INITIATORS)) {
                initiators = names(map, LunKeys.INITIATORS, LunKeys.INITIATORS_ALLOWED, "an iSCSI name", "initiator",
                        problems);
                if (exportsOk && exports.iscsi().isEmpty()) {
                    onlyExported(map, LunKeys.INITIATORS, LunKeys.ISCSI, "iSCSI", problems);
                }
            }
            if (map.has(LunKeys.DHCHAP)) {
                dhchap = DhchapReader.read(map, configDir, hosts, problems, warnings);
                if (exportsOk && exports.nvme().isEmpty()) {
                    onlyExported(map, LunKeys.DHCHAP, LunKeys.NVME, "NVMe/TCP", problems);
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

    /** "access.chap: only allowed for a LUN exported over iSCSI; this LUN has export.iscsi: false". */
    private static void onlyExported(YamlMap access, Key<?> key, Key<?> export, String protocol, Problems problems) {
        problems.add(access.line(key), access.keyPath(key), "only allowed for a LUN exported over " + protocol
                + "; this LUN has " + LunKeys.EXPORT.name() + "." + export.name() + ": false");
    }

    /** The dotted path of a key of {@code access:} in claims. */
    static String path(Key<?> key) {
        return LunKeys.ACCESS.name() + "." + key.name();
    }

    /** The claims a validated LUN makes, as if it had been read from its file again (for cross-checks). */
    static List<AccessClaim> claims(LunConfig lun) {
        List<AccessClaim> claims = new ArrayList<>();
        AccessConfig config = lun.access();
        Path file = ExportReader.source(lun);
        lun.iscsi().ifPresent(e -> claims.add(new AccessClaim("iSCSI target " + e.target(), path(LunKeys.CHAP), file, 0,
                config.chap().map(ChapConfig::credentials),
                config.chap().map(ChapConfig::describe).orElse("no CHAP"))));
        lun.nvme().ifPresent(e -> claims.add(new AccessClaim("NVMe subsystem " + e.subsystem(), path(LunKeys.HOSTS),
                file,
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
        exports.iscsi().ifPresent(e -> claims.add(new AccessClaim("iSCSI target " + e.target(), path(LunKeys.CHAP),
                problems.file(), line(lun, access, LunKeys.CHAP), config.chap().map(ChapConfig::credentials),
                config.chap().map(ChapConfig::describe).orElse("no CHAP"))));
        exports.nvme().ifPresent(e -> claims.add(new AccessClaim("NVMe subsystem " + e.subsystem(), path(LunKeys.HOSTS),
                problems.file(), line(lun, access, LunKeys.HOSTS), Set.copyOf(config.hosts()),
                config.hosts().isEmpty() ? "no hosts list (any host)" : "hosts " + config.hosts())));
        exports.iscsi().ifPresent(e -> claims.add(initiatorsClaim(e, config, problems.file(),
                line(lun, access, LunKeys.INITIATORS))));
        exports.nvme().ifPresent(e -> claims.add(dhchapClaim(e, config, problems.file(),
                line(lun, access, LunKeys.DHCHAP))));
        exports.nvme().ifPresent(e -> claims.add(tlsClaim(e, config, problems.file(), line(lun, access, LunKeys.TLS))));
        return claims;
    }

    /** The initiator list belongs to the target (RFC 7143 §11.13.5 0202 is about the target), like CHAP. */
    private static AccessClaim initiatorsClaim(IscsiExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("iSCSI target " + e.target(), path(LunKeys.INITIATORS), file, line,
                Set.copyOf(config.initiators()), config.initiators().isEmpty() ? "no initiators list (any initiator)"
                : "initiators " + config.initiators());
    }

    /** DH-HMAC-CHAP keys belong to the subsystem: one controller authenticates for all its namespaces. */
    private static AccessClaim dhchapClaim(NvmeExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("NVMe subsystem " + e.subsystem(), path(LunKeys.DHCHAP), file, line,
                config.dhchap().map(DhchapConfig::credentials), config.dhchap()
                .map(d -> d.bidirectional() ? "bidirectional DH-HMAC-CHAP" : "DH-HMAC-CHAP").orElse("no dhchap"));
    }

    /**
     * TLS belongs to the subsystem: the PSK identity names the subsystem NQN (NVMe/TCP Transport §3.6.1.3) and the
     * discovery log entry of the subsystem carries one TREQ; so one mode and one PSK per subsystem.
     */
    private static AccessClaim tlsClaim(NvmeExport e, AccessConfig config, Path file, int line) {
        return new AccessClaim("NVMe subsystem " + e.subsystem(), path(LunKeys.TLS), file, line,
                config.tls().credentials(),
                TlsReader.shown(config.tls()));
    }

    private static int line(YamlMap lun, Optional<YamlMap> access, Key<?> key) {
        int keyLine = access.map(m -> m.line(key)).orElse(0);
        return keyLine > 0 ? keyLine : lun.line(LunKeys.ACCESS);
    }

    /** The CHAP map {@code key} of {@code parent}: {@code access.chap}, or {@code discovery-chap} server-wide. */
    static Optional<ChapConfig> chap(YamlMap parent, Key<?> key, Path configDir, Problems problems,
                                     List<String> warnings) {
        Optional<YamlMap> parsed = YamlMap.section(parent, key, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap chap = parsed.get();
        Key<String> mutualUserKey = LunKeys.CHAP_MUTUAL_USER;
        Key<String> mutualFileKey = LunKeys.CHAP_MUTUAL_SECRET_FILE;
        Optional<String> user = chap.required(LunKeys.CHAP_USER);
        Optional<String> secret = secret(chap, LunKeys.CHAP_SECRET_FILE, configDir, problems, warnings, true);
        Optional<String> mutualUser = chap.value(mutualUserKey);
        Optional<String> mutualSecret = secret(chap, mutualFileKey, configDir, problems, warnings, false);
        if (chap.has(mutualUserKey) != chap.has(mutualFileKey)) {
            Key<?> given = chap.has(mutualUserKey) ? mutualUserKey : mutualFileKey;
            Key<?> missing = chap.has(mutualUserKey) ? mutualFileKey : mutualUserKey;
            problems.add(chap.line(given), chap.keyPath(given), "given without " + missing.name() + "; allowed: "
                    + PAIR_ALLOWED);
            return Optional.empty();
        }
        if (secret.isPresent() && secret.equals(mutualSecret)) {
            chap.problem(mutualFileKey, chap.text(mutualFileKey) + " holds the same secret as "
                    + chap.text(LunKeys.CHAP_SECRET_FILE) + "; allowed: a different secret for each direction (RFC 7143"
                    + " §9.2.1: a secret that authenticates initiators must not also authenticate targets)");
            return Optional.empty();
        }
        if (user.isEmpty() || secret.isEmpty() || chap.has(mutualUserKey) && (mutualUser.isEmpty()
                || mutualSecret.isEmpty())) {
            return Optional.empty();
        }
        // Both paths were read without a problem above (their secrets are present): text() is the value as written.
        Optional<Path> secretFile = Optional.of(resolve(configDir, chap.text(LunKeys.CHAP_SECRET_FILE)));
        Optional<Path> mutualSecretFile = mutualSecret.map(s -> resolve(configDir, chap.text(mutualFileKey)));
        return Optional.of(new ChapConfig(user.get(), secret.get(), mutualUser, mutualSecret, secretFile,
                mutualSecretFile));
    }

    /**
     * Reads the secret named by {@code key}: a regular file of 12..255 bytes of UTF-8 text without control
     * characters after stripping one trailing newline ({@code \n} or {@code \r\n}). Problems say the file and the
     * length, never the content. A file others may read gets a warning.
     */
    static Optional<String> secret(YamlMap chap, Key<String> key, Path configDir, Problems problems,
                                   List<String> warnings, boolean required) {
        Optional<String> given = required ? chap.required(key) : chap.value(key);
        if (given.isEmpty()) {
            return Optional.empty();
        }
        String shown = given.get();
        boolean dhchap = key.allowed().equals(DhchapReader.ALLOWED);
        String allowedText = key.allowed();
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
        if (dhchap) {
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

    /**
     * A list of names under {@code key} (host NQNs, NVMe Base §4.5; initiator names, RFC 3720 §3.2.6): each valid by
     * the key's declared type, at least one, none twice. Empty after a problem.
     *
     * @param noun what an entry is ("an NQN"); {@code one} what it names ("host")
     */
    private static List<String> names(YamlMap access, Key<String> key, String allowed, String noun, String one,
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
                problems.add(line, access.keyPath(key), YamlMap.describe(entry) + " is not " + noun + "; allowed: "
                        + allowed);
                continue;
            }
            try {
                String nqn = key.type().parser().parse(scalar);
                Integer earlier = firstLine.putIfAbsent(nqn, line);
                if (earlier != null) {
                    problems.add(line, access.keyPath(key), nqn + " is listed twice (first on line " + earlier
                            + "); allowed: each " + one + " once");
                }
                hosts.add(nqn);
            } catch (InvalidValue e) {
                problems.add(line, access.keyPath(key), e);
            }
        }
        return problems.count() > before ? List.of() : List.copyOf(hosts);
    }
}
