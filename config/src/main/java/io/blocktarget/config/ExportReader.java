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
    static final int MAX_ISCSI_LUN = LunKeys.MAX_ISCSI_LUN;
    static final long MAX_NSID = LunKeys.MAX_NSID;

    /** Where one protocol differs: its keys (from the declaration), derived-name prefix and how a claim names it. */
    private record Protocol<E>(
            Key<Void> key, Key<String> nameKey, Key<Long> numberKey, ValueType.TextParser<String> nameCheck,
            Function<ServerConfig, String> prefix, String label, String numberLabel, Factory<E> factory) {

        String allowed() {
            List<Key<?>> extra = key.children().subList(2, key.children().size());
            String number = numberKey.name() + " (" + numberKey.allowed() + ")";
            return "false, true or a map with " + nameKey.name() + " (" + nameKey.noun() + ")"
                    + (extra.isEmpty() ? " and " + number : ", " + number + " and "
                    + String.join(", ", extra.stream().map(Key::name).toList()));
        }
    }

    @FunctionalInterface
    private interface Factory<E> {
        /** Empty when an extra key of {@code section} is wrong (its problem has been added). */
        Optional<E> create(String name, long number, Optional<YamlMap> section);
    }

    private static Protocol<IscsiExport> iscsi() {
        return new Protocol<>(LunKeys.ISCSI, LunKeys.ISCSI_TARGET, LunKeys.ISCSI_LUN, Names::iqn,
                ServerConfig::iqnPrefix, "iSCSI target", "LUN",
                (name, number, section) -> Optional.of(new IscsiExport(name, (int) number)));
    }

    private static Protocol<NvmeExport> nvme() {
        return new Protocol<>(LunKeys.NVME, LunKeys.NVME_SUBSYSTEM, LunKeys.NVME_NSID, Names::nqn,
                ServerConfig::nqnPrefix, "NVMe subsystem", "NSID", ExportReader::nvme);
    }

    private static Optional<NvmeExport> nvme(String name, long nsid, Optional<YamlMap> section) {
        if (section.isEmpty() || !section.get().has(LunKeys.NVME_UUID)) {
            return Optional.of(new NvmeExport(name, nsid));
        }
        return section.get().value(LunKeys.NVME_UUID).map(uuid -> new NvmeExport(name, nsid, Optional.of(uuid)));
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
        Optional<YamlMap> export = YamlMap.section(lun, LunKeys.EXPORT, problems);
        if (lun.has(LunKeys.EXPORT) && export.isEmpty()) {
            return new Exports(Optional.empty(), Optional.empty(), List.of());
        }
        List<ExportClaim> claims = new ArrayList<>();
        Context context = new Context(export, lun.line(LunKeys.EXPORT), name, nameOk, server, problems, claims);
        return new Exports(context.read(iscsi()), context.read(nvme()), claims);
    }

    /** The claim text of a namespace UUID, shared with the claims rebuilt from other LUNs. */
    static String uuidAddress(UUID uuid) {
        return "NVMe namespace UUID " + uuid;
    }

    /** The claims a validated LUN makes, as if it had been read from its file again (for cross-checks). */
    static List<ExportClaim> claims(LunConfig lun) {
        List<ExportClaim> claims = new ArrayList<>();
        Protocol<IscsiExport> iscsi = iscsi();
        Protocol<NvmeExport> nvme = nvme();
        lun.iscsi().ifPresent(e -> claims.add(new ExportClaim(iscsi.label() + " " + e.target() + " "
                + iscsi.numberLabel() + " " + e.lun(), source(lun), 0, path(iscsi.key()))));
        lun.nvme().ifPresent(e -> {
            claims.add(new ExportClaim(nvme.label() + " " + e.subsystem() + " " + nvme.numberLabel() + " " + e.nsid(),
                    source(lun), 0, path(nvme.key())));
            e.uuid().ifPresent(u -> claims.add(new ExportClaim(uuidAddress(u), source(lun), 0,
                    path(nvme.key()) + "." + LunKeys.NVME_UUID.name())));
        });
        return claims;
    }

    /** {@code export.iscsi}: the dotted path of a protocol's section. */
    private static String path(Key<?> protocol) {
        return LunKeys.EXPORT.name() + "." + protocol.name();
    }

    static java.nio.file.Path source(LunConfig lun) {
        return lun.source() != null ? lun.source() : java.nio.file.Path.of("LUN " + lun.name());
    }

    private record Context(Optional<YamlMap> export, int exportLine, String name, boolean nameOk,
                           ServerConfig server, Problems problems, List<ExportClaim> claims) {

        <E> Optional<E> read(Protocol<E> protocol) {
            Optional<Node> node = export.flatMap(m -> m.node(protocol.key()));
            String sectionPath = path(protocol.key());
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
                    .flatMap(n -> YamlMap.of(n, sectionPath, protocol.key(), problems));
            Optional<String> exportName = section.isPresent() && section.get().has(protocol.nameKey())
                    ? section.get().value(protocol.nameKey())
                    : derived(protocol);
            Optional<Long> number = section.isPresent()
                    ? section.get().value(protocol.numberKey())
                    : protocol.numberKey().defaultValue();
            if (exportName.isEmpty() || number.isEmpty()) {
                return Optional.empty();
            }
            Optional<E> created = protocol.factory().create(exportName.get(), number.get(), section);
            if (created.isEmpty()) {
                return Optional.empty();
            }
            int line = export.map(m -> m.line(protocol.key())).filter(l -> l > 0).orElse(exportLine);
            claims.add(new ExportClaim(protocol.label() + " " + exportName.get() + " " + protocol.numberLabel() + " "
                    + number.get(), problems.file(), line, sectionPath));
            if (created.get() instanceof NvmeExport nvme && nvme.uuid().isPresent()) {
                // Linux refuses two namespaces with one UUID in a subsystem ("duplicate IDs"); across subsystems
                // it would merge them into one multipath head.
                claims.add(new ExportClaim(uuidAddress(nvme.uuid().get()), problems.file(),
                        section.map(m -> m.line(LunKeys.NVME_UUID)).orElse(line),
                        sectionPath + "." + LunKeys.NVME_UUID.name()));
            }
            return created;
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
                problems.add(0, path(protocol.key()) + "." + protocol.nameKey().name(),
                        "the derived name " + e.what() + "; allowed: " + e.allowed()
                                + " (set it explicitly or shorten the prefix or LUN name)");
                return Optional.empty();
            }
        }
    }
}
