package io.blocktarget.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
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

    /** Where one protocol differs: key names, name syntax, number range and default, derived-name prefix. */
    private record Protocol<E>(
            String key, String nameKey, String numberKey, ValueType<String> nameType,
            ValueType.TextParser<String> nameCheck, ValueType<Long> numberType,
            long defaultNumber, Function<ServerConfig, String> prefix, String label, String numberLabel,
            Factory<E> factory) {

        String allowed() {
            return "false, true or a map with " + nameKey + " (" + nameType.noun() + ") and " + numberKey
                    + " (" + numberType.allowed() + ")";
        }
    }

    @FunctionalInterface
    private interface Factory<E> {
        E create(String name, long number);
    }

    private static final Protocol<IscsiExport> ISCSI = new Protocol<>("iscsi", "target", "lun", Names.IQN_TYPE, Names::iqn,
            ValueType.integer(0, MAX_ISCSI_LUN, "0.." + MAX_ISCSI_LUN), 0, ServerConfig::iqnPrefix,
            "iSCSI target", "LUN", (name, number) -> new IscsiExport(name, (int) number));
    private static final Protocol<NvmeExport> NVME = new Protocol<>("nvme", "subsystem", "nsid", Names.NQN_TYPE, Names::nqn,
            ValueType.integer(1, MAX_NSID, "1..4294967294 (0xFFFFFFFE)"), 1, ServerConfig::nqnPrefix,
            "NVMe subsystem", "NSID", NvmeExport::new);

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
                            List.of(protocol.nameKey(), protocol.numberKey()), "an export", problems));
            Optional<String> exportName = section.isPresent() && section.get().has(protocol.nameKey())
                    ? section.get().value(protocol.nameKey(), protocol.nameType())
                    : derived(protocol);
            Optional<Long> number = section.isPresent()
                    ? section.get().value(protocol.numberKey(), protocol.numberType(), protocol.defaultNumber())
                    : Optional.of(protocol.defaultNumber());
            if (exportName.isEmpty() || number.isEmpty()) {
                return Optional.empty();
            }
            int line = export.map(m -> m.line(protocol.key())).filter(l -> l > 0).orElse(exportLine);
            claims.add(new ExportClaim(protocol.label() + " " + exportName.get() + " " + protocol.numberLabel() + " "
                    + number.get(), problems.file(), line, "export." + protocol.key()));
            return Optional.of(protocol.factory().create(exportName.get(), number.get()));
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
