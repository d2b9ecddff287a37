package io.blocktarget.config;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Loads and validates a configuration directory, or supplies the embedded default.
 *
 * <p>Layout: {@code DIR/blocktarget.yaml} (server-wide, optional) and {@code DIR/luns.d/NAME.yaml}, one file per
 * LUN, whose file name minus {@code .yaml} is the LUN name. Files are composed to YAML node trees (YAML 1.2 core
 * schema) so every problem names file, line and key. All problems of all files are collected and thrown together
 * as one {@link ConfigException}, sorted by file and line; nothing else is thrown.
 *
 * <p>The keys of both files — names, types, defaults, change rules, docs — are declared once in {@link ServerKeys},
 * {@link LunKeys} and {@link FaultKeys} ({@code docs/configuration.md} is generated from them). The LUN name (the file
 * name minus {@code .yaml}) is 1..63 of {@code [a-z0-9.-]}, starting with a letter or digit.
 * Sizes: an integer number of bytes, or an integer and a unit B, KiB, MiB, GiB, TiB ({@code 16KiB}, {@code 8 GiB}).
 *
 * <p>Warnings (not errors): RAM disks declaring more than the memory budget in total (they are thin, like brd), LUNs
 * exported on no protocol, files in luns.d that are not {@code *.yaml}, secret files every user may read.
 */
public final class ConfigLoader {
    public static final String SERVER_FILE = "blocktarget.yaml";
    public static final String LUNS_DIR = "luns.d";
    static final String SUFFIX = ".yaml";
    /** Persistent-reservation state the server keeps beside {@code NAME.yaml} (server.Lun). */
    static final String PR_SUFFIX = ".pr";

    private static final String DIR_ALLOWED = "a directory with an optional " + SERVER_FILE + " and a " + LUNS_DIR
            + " directory holding one NAME.yaml file per LUN";

    private ConfigLoader() {
    }

    /**
     * Loads {@code dir}. Problems name files as {@code dir.resolve(...)}, so a relative {@code dir} yields paths
     * relative to the working directory.
     *
     * @throws ConfigException with every problem of every file, sorted by file and line
     */
    public static BlocktargetConfig load(Path dir) throws ConfigException {
        List<ConfigProblem> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            String what = Files.exists(dir) ? "not a directory" : "no such directory";
            throw new ConfigException(List.of(new ConfigProblem(dir, 0, "", what + "; allowed: " + DIR_ALLOWED)));
        }
        ServerConfig server = readServer(dir, problems, warnings);
        List<LunConfig> luns = new ArrayList<>();
        List<ExportClaim> claims = new ArrayList<>();
        List<AccessClaim> accessClaims = new ArrayList<>();
        List<String> accessWarnings = new ArrayList<>();
        for (Path file : lunFiles(dir, problems, warnings)) {
            String fileName = file.getFileName().toString();
            String name = fileName.substring(0, fileName.length() - SUFFIX.length());
            Problems fileProblems = new Problems(file, problems);
            try {
                LunReader.Result result = LunReader.read(name, dir, server, fileProblems);
                result.lun().ifPresent(luns::add);
                claims.addAll(result.claims());
                accessClaims.addAll(result.accessClaims());
                accessWarnings.addAll(result.warnings());
            } catch (RuntimeException e) {
                fileProblems.add(0, "", "cannot be read: " + YamlSource.describe(e));
            }
        }
        problems.addAll(CrossChecks.duplicates(claims));
        problems.addAll(CrossChecks.accessConflicts(accessClaims));
        if (!problems.isEmpty()) {
            problems.sort(Comparator.comparing(ConfigProblem::file).thenComparingInt(ConfigProblem::line));
            throw new ConfigException(problems);
        }
        warnings.addAll(accessWarnings);
        warnings.addAll(CrossChecks.warnings(server, luns));
        return new BlocktargetConfig(server, luns, warnings);
    }

    /**
     * The configuration without files: sparse 1 GiB RAM disks {@code ram-512} (512/4096), {@code ram-4k}
     * (4096/4096), {@code ram-16k} (16384/16384) and {@code ram-64k} (65536/65536), each exported over iSCSI
     * (target iqn-prefix + name, LUN 0) and NVMe/TCP (subsystem nqn-prefix + name, NSID 1), default server settings.
     */
    public static BlocktargetConfig embeddedDefault() {
        ServerConfig server = ServerConfigReader.defaults(null, defaultMemoryBudget());
        List<LunConfig> luns = List.of(
                ramDisk(server, "ram-512", 512, 4096),
                ramDisk(server, "ram-4k", 4096, 4096),
                ramDisk(server, "ram-16k", 16384, 16384),
                ramDisk(server, "ram-64k", 65536, 65536));
        return new BlocktargetConfig(server, luns, CrossChecks.warnings(server, luns));
    }

    /**
     * Validates one LUN given as text — a {@code luns.d/NAME.yaml} document, or the control API's JSON body (JSON is
     * YAML 1.2) — by the same rules as a file of a config directory, and cross-checks it against {@code others} (the
     * LUNs it would join: no shared export address, no conflicting access settings). Problems name the key;
     * their file is {@code DIR/luns.d/NAME.yaml} (with a config dir) or {@code luns.d/NAME.yaml}, line numbers count
     * in {@code text}; a problem about the name itself has the key {@code file name}.
     *
     * @param configDir base of relative paths ({@code path}, secret files); empty: the working directory, and the
     *                  LUN's source is null (it lives in memory only)
     * @param others    the other LUNs of the server (not one named {@code name})
     * @throws ConfigException with every problem
     */
    public static LunConfig readLun(String name, String text, Optional<Path> configDir, ServerConfig server,
                                    List<LunConfig> others) throws ConfigException {
        List<ConfigProblem> problems = new ArrayList<>();
        Path dir = configDir.orElse(Path.of(""));
        String fileName;
        try {
            fileName = Names.lunName(name) + SUFFIX;
        } catch (InvalidValue e) {
            fileName = "NAME" + SUFFIX; // the invalid name is reported by the reader; it must not become a path
        }
        Path file = dir.resolve(LUNS_DIR).resolve(fileName);
        Problems fileProblems = new Problems(file, problems);
        LunReader.Result result;
        try {
            result = LunReader.read(name, text, dir, server, fileProblems);
        } catch (RuntimeException e) {
            fileProblems.add(0, "", "cannot be read: " + YamlSource.describe(e));
            throw new ConfigException(problems);
        }
        List<ExportClaim> claims = new ArrayList<>();
        List<AccessClaim> accessClaims = new ArrayList<>();
        for (LunConfig other : others) {
            claims.addAll(ExportReader.claims(other));
            accessClaims.addAll(AccessReader.claims(other));
            accessClaims.addAll(KnobsReader.claims(other));
        }
        claims.addAll(result.claims());
        accessClaims.addAll(result.accessClaims());
        // Others come first, so a clash is the new LUN's problem; clashes among the others are not its business.
        CrossChecks.duplicates(claims).stream().filter(p -> p.file().equals(file)).forEach(problems::add);
        CrossChecks.accessConflicts(accessClaims).stream().filter(p -> p.file().equals(file)).forEach(problems::add);
        if (!problems.isEmpty() || result.lun().isEmpty()) {
            if (problems.isEmpty()) {
                fileProblems.add(0, "", "not a LUN definition");
            }
            problems.sort(Comparator.comparingInt(ConfigProblem::line));
            throw new ConfigException(problems);
        }
        LunConfig lun = result.lun().get();
        if (configDir.isEmpty()) {
            lun = new LunConfig(lun.name(), null, lun.backend(), lun.size(), lun.logicalBlockSize(),
                    lun.physicalBlockSize(), lun.iscsi(), lun.nvme(), lun.readOnly(), lun.file(), lun.access(), lun.features());
        }
        return lun;
    }

    /**
     * One fault rule given as text (the control API's JSON body; JSON is YAML 1.2), by the rules of a {@code faults:}
     * entry; {@code defaultId} when it has no {@code id}. Problems name the key ({@code lba}, {@code action}).
     *
     * @throws ConfigException with every problem
     */
    public static FaultRuleConfig readFaultRule(String text, String defaultId) throws ConfigException {
        List<ConfigProblem> problems = new ArrayList<>();
        Problems sink = new Problems(Path.of("fault"), problems);
        Optional<FaultRuleConfig> rule;
        try {
            rule = YamlSource.compose(text, sink).flatMap(node -> FaultReader.rule(node, "", defaultId, sink));
        } catch (RuntimeException e) {
            sink.add(0, "", "cannot be read: " + YamlSource.describe(e));
            throw new ConfigException(problems);
        }
        if (rule.isEmpty() || !problems.isEmpty()) {
            if (problems.isEmpty()) {
                sink.add(0, "", "not a fault rule; allowed: a map with the keys " + String.join(", ", FaultKeys.FAULT_RULE.names()));
            }
            throw new ConfigException(problems);
        }
        return rule.get();
    }

    /**
     * {@code lun} with the capacity {@code size} (as written in a config file: {@code 2GiB}): a positive multiple of
     * its physical block size. A file LUN's file is grown (or followed) by the server, so its present size does not
     * bound the new one. A zoned LUN keeps its size ({@link #zonedResize}).
     *
     * @throws ConfigException naming the key {@code size}
     */
    public static LunConfig resized(LunConfig lun, String size) throws ConfigException {
        Path file = ExportReader.source(lun);
        String allowed = "a positive multiple of the physical block size (" + Sizes.format(lun.physicalBlockSize())
                + "), " + Sizes.ALLOWED;
        long bytes;
        try {
            bytes = Sizes.parse(size);
        } catch (InvalidValue e) {
            throw new ConfigException(List.of(new ConfigProblem(file, 0, "size", e.what() + "; allowed: " + allowed)));
        }
        if (bytes <= 0 || bytes % lun.physicalBlockSize() != 0) {
            String what = bytes <= 0 ? " is not positive" : " is not a multiple of the physical block size "
                    + Sizes.format(lun.physicalBlockSize());
            throw new ConfigException(List.of(new ConfigProblem(file, 0, "size", size + what + "; allowed: "
                    + allowed)));
        }
        if (lun.features().zoned().isPresent() && bytes != lun.size()) {
            throw new ConfigException(List.of(zonedResize(lun)));
        }
        return new LunConfig(lun.name(), lun.source(), lun.backend(), bytes, lun.logicalBlockSize(),
                lun.physicalBlockSize(), lun.iscsi(), lun.nvme(), lun.readOnly(), lun.file(), lun.access(), lun.features());
    }

    /**
     * The refusal of a new size for a zoned LUN (issue 13): its zones, write pointers and limits were laid out for
     * the size it has, and initiators cache the zone count (Linux revalidates zones only on a rescan).
     */
    public static ConfigProblem zonedResize(LunConfig lun) {
        return new ConfigProblem(ExportReader.source(lun), 0, "size", "a zoned LUN cannot be resized (zoned: its zone layout is fixed for"
                + " the LUN's life); allowed: its present size " + Sizes.format(lun.size())
                + ", or remove the LUN and add it with the new size");
    }

    /** Half of physical memory (of the container's limit, where the JVM sees one). */
    public static long defaultMemoryBudget() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sunOs && sunOs.getTotalMemorySize() > 0) {
            return sunOs.getTotalMemorySize() / 2;
        }
        return Runtime.getRuntime().maxMemory();
    }

    /** "512 B", "16 KiB", "1 GiB", "1.5 KiB"; "~7.8 GiB" when one decimal is not exact. */
    public static String formatSize(long bytes) {
        return Sizes.format(bytes);
    }

    /**
     * Parses a size as written in the configuration ({@code 4096}, {@code 16KiB}, {@code 8 GiB}), e.g. for a command
     * line option.
     *
     * @throws IllegalArgumentException saying what is wrong and what is allowed
     */
    public static long parseSize(String text) {
        try {
            return Sizes.parse(text);
        } catch (InvalidValue e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** The shortest exact text of a duration: {@code 10ms}, {@code 1500us}, {@code 5s}. */
    public static String formatDuration(long nanos) {
        return FaultReader.formatDuration(nanos);
    }

    /**
     * Parses a duration as the configuration writes it ({@code 10ms}, {@code 5s}; at most an hour), e.g. for
     * {@code path set --transition}.
     *
     * @throws IllegalArgumentException saying what is wrong and what is allowed
     */
    public static long parseDuration(String text) {
        try {
            return FaultReader.parseDuration(text);
        } catch (InvalidValue e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static ServerConfig readServer(Path dir, List<ConfigProblem> problems, List<String> warnings) {
        Path file = dir.resolve(SERVER_FILE);
        if (!Files.exists(file)) {
            return ServerConfigReader.defaults(null, defaultMemoryBudget());
        }
        Problems fileProblems = new Problems(file, problems);
        if (Files.isDirectory(file)) {
            fileProblems.add(0, "", "is a directory; allowed: a YAML file of server settings");
            return ServerConfigReader.defaults(file, defaultMemoryBudget());
        }
        try {
            return ServerConfigReader.read(YamlSource.read(file, fileProblems), fileProblems, warnings);
        } catch (RuntimeException e) {
            fileProblems.add(0, "", "cannot be read: " + YamlSource.describe(e));
            return ServerConfigReader.defaults(file, defaultMemoryBudget());
        }
    }

    /** The {@code *.yaml} files of luns.d sorted by name; hidden files are skipped, other files get a warning. */
    private static List<Path> lunFiles(Path dir, List<ConfigProblem> problems, List<String> warnings) {
        Path lunsDir = dir.resolve(LUNS_DIR);
        Problems dirProblems = new Problems(lunsDir, problems);
        if (!Files.isDirectory(lunsDir)) {
            dirProblems.add(0, "", (Files.exists(lunsDir) ? "not a directory" : "no such directory")
                    + "; allowed: a directory with one NAME.yaml file per LUN");
            return List.of();
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(lunsDir)) {
            for (Path entry : entries) {
                String fileName = entry.getFileName().toString();
                if (fileName.startsWith(".")) {
                    continue;
                }
                if (fileName.endsWith(PR_SUFFIX) && fileName.length() > PR_SUFFIX.length()) {
                    // the server's own persistent-reservation state (APTPL, SPC-5 §5.14.5) of NAME.yaml
                    String lun = fileName.substring(0, fileName.length() - PR_SUFFIX.length());
                    if (!Files.exists(entry.resolveSibling(lun + SUFFIX))) {
                        warnings.add(entry + ": ignored; persistent-reservation state of a LUN that has no "
                                + lun + SUFFIX + " (delete it once that LUN is gone for good)");
                    }
                } else if (!fileName.endsWith(SUFFIX)) {
                    warnings.add(entry + ": ignored; only NAME" + SUFFIX + " files define LUNs");
                } else if (Files.isDirectory(entry)) {
                    new Problems(entry, problems).add(0, "", "is a directory; allowed: a YAML file defining one LUN");
                } else {
                    files.add(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            dirProblems.add(0, "", "cannot list the directory: " + YamlSource.describe(e));
            return List.of();
        }
        if (files.isEmpty() && dirProblems.count() == 0) {
            dirProblems.add(0, "", "no LUN files; allowed: one NAME.yaml file per LUN, e.g. " + LUNS_DIR
                    + "/ram-4k.yaml with backend: ram, size: 1GiB, logical-block-size: 4KiB");
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString()));
        warnings.sort(Comparator.naturalOrder());
        return files;
    }

    private static LunConfig ramDisk(ServerConfig server, String name, int logical, int physical) {
        return new LunConfig(name, null, BackendKind.RAM, Sizes.GIB, logical, physical,
                Optional.of(new IscsiExport(server.iqnPrefix() + name, 0)),
                Optional.of(new NvmeExport(server.nqnPrefix() + name, 1)),
                false, Optional.empty(), AccessConfig.OPEN);
    }
}
