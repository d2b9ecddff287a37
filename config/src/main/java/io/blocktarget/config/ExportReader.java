package io.blocktarget.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * The {@code export:} map of a LUN file. Each protocol is exported unless set to {@code false}; a missing
 * target / subsystem name is derived from the server's prefix and the LUN name.
 */
final class ExportReader {
    static final List<String> KEYS = List.of("iscsi", "nvme");

    /** SAM-5 §4.7.7 flat space addressing, as Linux uses it: 14-bit LUNs. */
    static final int MAX_ISCSI_LUN = 16383;
    /** NVMe Base §3.2.1: 0 and FFFFFFFFh are never the NSID of a namespace. */
    static final long MAX_NSID = 0xFFFF_FFFEL;

    static final String UUID_ALLOWED = "a UUID in RFC 4122 text form, 8-4-4-4-12 hex digits, e.g."
            + " 91fdba0d-f87b-4c25-b80f-db7be1418b9e, not the nil UUID";
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    /**
     * RFC 4122 §3 text form only: {@code UUID.fromString} also takes short groups ("1-2-3-4-5"). The nil UUID is
     * refused: NVMe Base §5.1.13.2.3 reads an all-zero UUID field as "no UUID".
     */
    static final ValueType<UUID> UUID_TYPE = ValueType.text("a UUID", UUID_ALLOWED, text -> {
        if (!UUID_TEXT.matcher(text).matches()) {
            throw new InvalidValue(text + " is not a UUID", UUID_ALLOWED);
        }
        UUID uuid = UUID.fromString(text);
        if (uuid.getMostSignificantBits() == 0 && uuid.getLeastSignificantBits() == 0) {
            throw new InvalidValue(text + " is the nil UUID", UUID_ALLOWED);
        }
        return uuid;
    });

    /** Where one protocol differs: key names, name syntax, number range and default, derived-name prefix. */
    private record Protocol<E>(
            String key, String nameKey, String numberKey, List<String> extraKeys, ValueType<String> nameType,
            ValueType.TextParser<String> nameCheck, ValueType<Long> numberType,
            long defaultNumber, Function<ServerConfig, String> prefix, String label, String numberLabel,
            Factory<E> factory) {

        String allowed() {
            String number = numberKey + " (" + numberType.allowed() + ")";
            return "false, true or a map with " + nameKey + " (" + nameType.noun() + ")"
                    + (extraKeys.isEmpty() ? " and " + number : ", " + number + " and " + String.join(", ", extraKeys));
        }
    }

    @FunctionalInterface
    private interface Factory<E> {
        /** Empty when an extra key of {@code section} is wrong (its problem has been added). */
        Optional<E> create(String name, long number, Optional<YamlMap> section);
    }

    private static final Protocol<IscsiExport> ISCSI = new Protocol<>("iscsi", "target", "lun", List.of(),
            Names.IQN_TYPE, Names::iqn, ValueType.integer(0, MAX_ISCSI_LUN, "0.." + MAX_ISCSI_LUN), 0,
            ServerConfig::iqnPrefix, "iSCSI target", "LUN",
            (name, number, section) -> Optional.of(new IscsiExport(name, (int) number)));
    private static final Protocol<NvmeExport> NVME = new Protocol<>("nvme", "subsystem", "nsid", List.of("uuid"),
            Names.NQN_TYPE, Names::nqn, ValueType.integer(1, MAX_NSID, "1..4294967294 (0xFFFFFFFE)"), 1,
            ServerConfig::nqnPrefix, "NVMe subsystem", "NSID", ExportReader::nvme);

    private static Optional<NvmeExport> nvme(String name, long nsid, Optional<YamlMap> section) {
        if (section.isEmpty() || !section.get().has("uuid")) {
            return Optional.of(new NvmeExport(name, nsid));
        }
        return section.get().value("uuid", UUID_TYPE).map(uuid -> new NvmeExport(name, nsid, Optional.of(uuid)));
    }

    /** What a LUN file exports; {@code claims} are checked for duplicates across files. */
    record Exports(Optional<IscsiExport> iscsi, Optional<NvmeExport> nvme, List<ExportClaim> claims) {
    }

    private ExportReader() {
    }

    /**
     * @param lun    the LUN file's mapping
     * @param name   the LUN name, used for derived names
     * @param nameOk whether the LUN name is valid (a derived name from an invalid one is not reported again)
     */
    static Exports read(YamlMap lun, String name, boolean nameOk, ServerConfig server, Problems problems) {
        Optional<YamlMap> export = lun.node("export")
                .flatMap(node -> YamlMap.of(node, "export", KEYS, "an export map", problems));
        if (lun.has("export") && export.isEmpty()) {
            return new Exports(Optional.empty(), Optional.empty(), List.of());
        }
        List<ExportClaim> claims = new ArrayList<>();
        Context context = new Context(export, lun.line("export"), name, nameOk, server, problems, claims);
        return new Exports(context.read(ISCSI), context.read(NVME), claims);
    }

    /** The claim text of a namespace UUID, shared with the claims rebuilt from other LUNs. */
    static String uuidAddress(UUID uuid) {
        return "NVMe namespace UUID " + uuid;
    }

    /** The claims a validated LUN makes, as if it had been read from its file again (for cross-checks). */
    static List<ExportClaim> claims(LunConfig lun) {
        List<ExportClaim> claims = new ArrayList<>();
        lun.iscsi().ifPresent(e -> claims.add(new ExportClaim(ISCSI.label() + " " + e.target() + " "
                + ISCSI.numberLabel() + " " + e.lun(), source(lun), 0, "export.iscsi")));
        lun.nvme().ifPresent(e -> {
            claims.add(new ExportClaim(NVME.label() + " " + e.subsystem() + " " + NVME.numberLabel() + " " + e.nsid(),
                    source(lun), 0, "export.nvme"));
            e.uuid().ifPresent(u -> claims.add(new ExportClaim(uuidAddress(u), source(lun), 0, "export.nvme.uuid")));
        });
        return claims;
    }

    static java.nio.file.Path source(LunConfig lun) {
        return lun.source() != null ? lun.source() : java.nio.file.Path.of("LUN " + lun.name());
    }

    private record Context(Optional<YamlMap> export, int exportLine, String name, boolean nameOk,
                           ServerConfig server, Problems problems, List<ExportClaim> claims) {

        <E> Optional<E> read(Protocol<E> protocol) {
            Optional<Node> node = export.flatMap(m -> m.node(protocol.key()));
            if (node.isPresent() && !(node.get() instanceof MappingNode)) {
                if (!Tag.BOOL.equals(node.get().getTag())) {
                    export.get().problem(protocol.key(), YamlMap.describe(node.get()) + " is not an export; allowed: "
                            + protocol.allowed());
                    return Optional.empty();
                }
                if (!Boolean.parseBoolean(((ScalarNode) node.get()).getValue().toLowerCase(Locale.ROOT))) {
                    return Optional.empty();
                }
            }
            Optional<YamlMap> section = node.filter(MappingNode.class::isInstance)
                    .flatMap(n -> YamlMap.of(n, "export." + protocol.key(),
                            keys(protocol), "an export", problems));
            Optional<String> exportName = section.isPresent() && section.get().has(protocol.nameKey())
                    ? section.get().value(protocol.nameKey(), protocol.nameType())
                    : derived(protocol);
            Optional<Long> number = section.isPresent()
                    ? section.get().value(protocol.numberKey(), protocol.numberType(), protocol.defaultNumber())
                    : Optional.of(protocol.defaultNumber());
            if (exportName.isEmpty() || number.isEmpty()) {
                return Optional.empty();
            }
            Optional<E> created = protocol.factory().create(exportName.get(), number.get(), section);
            if (created.isEmpty()) {
                return Optional.empty();
            }
            int line = export.map(m -> m.line(protocol.key())).filter(l -> l > 0).orElse(exportLine);
            claims.add(new ExportClaim(protocol.label() + " " + exportName.get() + " " + protocol.numberLabel() + " "
                    + number.get(), problems.file(), line, "export." + protocol.key()));
            if (created.get() instanceof NvmeExport nvme && nvme.uuid().isPresent()) {
                // Linux refuses two namespaces with one UUID in a subsystem ("duplicate IDs"); across subsystems
                // it would merge them into one multipath head.
                claims.add(new ExportClaim(uuidAddress(nvme.uuid().get()), problems.file(),
                        section.map(m -> m.line("uuid")).orElse(line), "export.nvme.uuid"));
            }
            return created;
        }

        private static List<String> keys(Protocol<?> protocol) {
            List<String> keys = new ArrayList<>(List.of(protocol.nameKey(), protocol.numberKey()));
            keys.addAll(protocol.extraKeys());
            return keys;
        }

        /** prefix + LUN name; only its length can still be wrong when prefix and name are valid. */
        private Optional<String> derived(Protocol<?> protocol) {
            String derived = protocol.prefix().apply(server) + name;
            if (!nameOk) {
                return Optional.empty();
            }
            try {
                return Optional.of(protocol.nameCheck().parse(derived));
            } catch (InvalidValue e) {
                problems.add(0, "export." + protocol.key() + "." + protocol.nameKey(),
                        "the derived name " + e.what() + "; allowed: " + e.allowed()
                                + " (set it explicitly or shorten the prefix or LUN name)");
                return Optional.empty();
            }
        }
    }
}
