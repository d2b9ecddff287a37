package io.blocktarget.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;

/** Reads one {@code luns.d/NAME.yaml}: a LUN is built only when the file has no problem at all. */
final class LunReader {
    static final List<String> KEYS = List.of("backend", "size", "logical-block-size", "physical-block-size",
            "read-only", "export", "access", "path", "create", "direct-io", "atomic", "zoned", "commands", "limits",
            "rotational", "identity", "faults", "session", "removable", "sanitize-duration");
    private static final List<String> FILE_KEYS = List.of("path", "create", "direct-io");

    static final int MIN_LOGICAL_BLOCK_SIZE = 512;
    static final int MAX_LOGICAL_BLOCK_SIZE = 64 * 1024;
    static final int MAX_PHYSICAL_BLOCK_SIZE = 32 * 1024 * 1024;
    /** The physical block size of a 512-byte-sector LUN unless given: 512e, like nearly all disks sold today. */
    static final int DEFAULT_PHYSICAL_BLOCK_SIZE_FOR_512 = 4096;

    private static final String BACKEND_ALLOWED = "ram, file or null";
    private static final ValueType<BackendKind> BACKEND = ValueType.text("a backend", BACKEND_ALLOWED, text -> {
        for (BackendKind kind : BackendKind.values()) {
            if (kind.configName().equals(text)) {
                return kind;
            }
        }
        throw new InvalidValue(text + " is not a backend", BACKEND_ALLOWED);
    });
    private static final String LBS_ALLOWED = "a power of two from 512 B to 64 KiB";
    private static final ValueType<Long> LBS = blockSize(LBS_ALLOWED, MIN_LOGICAL_BLOCK_SIZE, MAX_LOGICAL_BLOCK_SIZE);
    private static final String PBS_ALLOWED = "a power of two from the logical block size to 32 MiB";
    private static final ValueType<Long> PBS = blockSize(PBS_ALLOWED, MIN_LOGICAL_BLOCK_SIZE, MAX_PHYSICAL_BLOCK_SIZE);
    private static final String PATH_ALLOWED = "a path to a regular file or block device, relative to the config directory"
            + " or absolute";
    private static final ValueType<String> PATH = ValueType.path(PATH_ALLOWED);

    /**
     * What one file yields: the LUN when the file had no problem, its export claims either way, and its access claims
     * and warnings when its {@code access:} map had no problem.
     */
    record Result(Optional<LunConfig> lun, List<ExportClaim> claims, List<AccessClaim> accessClaims,
                  List<String> warnings) {
        static Result failed() {
            return new Result(Optional.empty(), List.of(), List.of(), List.of());
        }
    }

    private LunReader() {
    }

    /**
     * @param name      the file name minus {@code .yaml}
     * @param configDir base of relative {@code path}s
     */
    static Result read(String name, Path configDir, ServerConfig server, Problems problems) {
        int before = problems.count();
        return read(name, YamlSource.read(problems.file(), problems), problems.count() > before, configDir, server,
                problems);
    }

    /**
     * Reads a LUN definition given as text (the control API's JSON body: JSON is YAML 1.2), as if it were the file
     * {@code problems.file()}.
     */
    static Result read(String name, String text, Path configDir, ServerConfig server, Problems problems) {
        int before = problems.count();
        return read(name, YamlSource.compose(text, problems), problems.count() > before, configDir, server, problems);
    }

    private static Result read(String name, Optional<Node> root, boolean unreadable, Path configDir,
                               ServerConfig server, Problems problems) {
        int before = problems.count();
        boolean nameOk = true;
        try {
            Names.lunName(name);
        } catch (InvalidValue e) {
            problems.add(0, "file name", e);
            nameOk = false;
        }
        if (root.isEmpty()) {
            if (!unreadable) {
                problems.add(0, "", "the file is empty; allowed: a map with at least backend: and size:,"
                        + " e.g. backend: ram and size: 1GiB");
            }
            return Result.failed();
        }
        Optional<YamlMap> parsed = YamlMap.of(root.get(), "", KEYS, "a LUN definition", problems);
        if (parsed.isEmpty()) {
            return Result.failed();
        }
        YamlMap map = parsed.get();
        Optional<BackendKind> backend = map.required("backend", BACKEND);
        boolean readOnly = map.value("read-only", ValueType.BOOLEAN, false).orElse(false);
        Optional<Long> logical = map.value("logical-block-size", LBS, (long) MIN_LOGICAL_BLOCK_SIZE);
        Optional<Long> physical = physicalBlockSize(map, logical);
        Optional<FileBackendConfig> file = backend.filter(b -> b == BackendKind.FILE)
                .flatMap(b -> fileBackend(map, configDir));
        backend.filter(b -> b != BackendKind.FILE).ifPresent(b -> rejectFileKeys(map, b));
        Optional<Long> size = size(map, backend, file, physical, configDir);
        int beforeExports = problems.count();
        ExportReader.Exports exports = ExportReader.read(map, name, nameOk, server, problems);
        AccessReader.Access access = AccessReader.read(map, configDir, exports, problems.count() == beforeExports,
                problems);

        // Round-2 sections (LunFeatures): one reader each.
        LunFeatures features = LunFeatures.NONE.withFaults(FaultReader.read(map, problems));
        features = features.withKnobs(KnobsReader.read(map, logical, physical, problems));
        features = features.withAtomic(AtomicReader.read(map, backend, logical, problems));
        features = features.withZoned(ZonedReader.read(map, backend, logical, physical, size, problems));
        if (features.zoned().filter(z -> z.conventionalZones() > 0).isPresent() && exports.nvme().isPresent()) {
            // NVMe ZNS knows sequential-write-required zones only (ZNS 1.1 §2.1): such a LUN cannot be a namespace
            problems.add(map.line("zoned"), "zoned.conventional-zones", features.zoned().get().conventionalZones()
                    + " conventional zones, but the LUN is exported over NVMe too, whose Zoned Namespaces have none;"
                    + " allowed: 0, or export: {nvme: false}");
        }

        if (problems.count() > before) {
            return new Result(Optional.empty(), exports.claims(), access.claims(), access.warnings());
        }
        LunConfig lun = new LunConfig(name, problems.file(), backend.orElseThrow(), size.orElseThrow(),
                logical.orElseThrow().intValue(), physical.orElseThrow().intValue(), exports.iscsi(), exports.nvme(),
                readOnly, file, access.config().orElseThrow(), features);
        List<AccessClaim> claims = new java.util.ArrayList<>(access.claims());
        claims.addAll(KnobsReader.claims(lun, problems.file(), key -> KnobsReader.line(map, key, problems)));
        return new Result(Optional.of(lun), exports.claims(), claims, access.warnings());
    }

    /** Given: checked against the logical block size. Absent: 4096 for 512-byte LUNs (512e), else the logical size. */
    private static Optional<Long> physicalBlockSize(YamlMap map, Optional<Long> logical) {
        if (!map.has("physical-block-size")) {
            return logical.map(lbs -> lbs == MIN_LOGICAL_BLOCK_SIZE ? DEFAULT_PHYSICAL_BLOCK_SIZE_FOR_512 : lbs);
        }
        Optional<Long> physical = map.value("physical-block-size", PBS);
        if (physical.isPresent() && logical.isPresent() && physical.get() < logical.get()) {
            map.problem("physical-block-size", map.text("physical-block-size") + " is smaller than the logical block size ("
                    + Sizes.format(logical.get()) + "); allowed: " + PBS_ALLOWED);
            return Optional.empty();
        }
        return physical;
    }

    private static ValueType<Long> blockSize(String allowed, long min, long max) {
        return ValueType.text("a block size", allowed, text -> {
            long bytes = Sizes.parse(text);
            if (!Sizes.isPowerOfTwo(bytes)) {
                throw new InvalidValue(text + " is not a power of two", allowed);
            }
            if (bytes < min || bytes > max) {
                throw new InvalidValue(text + " is out of range", allowed);
            }
            return bytes;
        });
    }

    private static void rejectFileKeys(YamlMap map, BackendKind backend) {
        for (String key : FILE_KEYS) {
            if (map.has(key)) {
                map.problem(key, "only allowed with backend: file; this LUN has backend: " + backend.configName());
            }
        }
    }

    private static Optional<FileBackendConfig> fileBackend(YamlMap map, Path configDir) {
        Optional<String> path = map.required("path", PATH);
        boolean create = map.value("create", ValueType.BOOLEAN, false).orElse(false);
        boolean directIo = map.value("direct-io", ValueType.BOOLEAN, false).orElse(false);
        return path.map(p -> new FileBackendConfig(configDir.toAbsolutePath().resolve(p).normalize(), create, directIo));
    }

    /**
     * The LUN's size: given for ram and null; for file the size of an existing file or device (a given size must
     * match it), or the given size of the sparse file {@code create: true} makes.
     */
    private static Optional<Long> size(YamlMap map, Optional<BackendKind> backend, Optional<FileBackendConfig> file,
                                       Optional<Long> physical, Path configDir) {
        Optional<Long> given = map.has("size") ? map.value("size", Sizes.SIZE_TYPE) : Optional.empty();
        if (file.isPresent()) {
            Path path = file.get().path();
            String shown = map.text("path");
            if (Files.isDirectory(path)) {
                map.problem("path", shown + " is a directory; allowed: " + PATH_ALLOWED);
                return Optional.empty();
            }
            if (Files.exists(path)) {
                return existingSize(map, path, shown, given, physical);
            }
            if (!file.get().create()) {
                map.problem("path", shown + " does not exist (" + path + "); allowed: an existing regular file or"
                        + " block device, or create: true with a size to create a sparse file");
                return Optional.empty();
            }
            if (!map.has("size")) {
                map.problem("size", "missing; allowed: the size of the sparse file that create: true makes, "
                        + Sizes.ALLOWED);
                return Optional.empty();
            }
        } else if (backend.isPresent() && backend.get() != BackendKind.FILE && !map.has("size")) {
            map.required("size", Sizes.SIZE_TYPE);
            return Optional.empty();
        }
        return given.flatMap(bytes -> checkMultiple(map, "size", map.text("size"), bytes, physical));
    }

    private static Optional<Long> existingSize(YamlMap map, Path path, String shown, Optional<Long> given,
                                               Optional<Long> physical) {
        long actual;
        try {
            actual = Files.isRegularFile(path)
                    ? Files.size(path)
                    // A block device: FileChannel.size() asks the kernel (BLKGETSIZE64), Files.size() says 0.
                    : channelSize(path);
        } catch (IOException | RuntimeException e) {
            map.problem("path", "cannot read the size of " + shown + ": " + YamlSource.describe(e)
                    + "; allowed: a readable regular file or block device");
            return Optional.empty();
        }
        if (given.isPresent() && given.get() != actual) {
            map.problem("size", map.text("size") + " differs from the size of " + shown + ", " + actual + " bytes ("
                    + Sizes.format(actual) + "); allowed: the file's size, or no size");
            return Optional.empty();
        }
        return checkMultiple(map, "path", shown + " with " + actual + " bytes", actual, physical);
    }

    private static long channelSize(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return channel.size();
        }
    }

    private static Optional<Long> checkMultiple(YamlMap map, String key, String shown, long bytes,
                                                Optional<Long> physical) {
        String allowed = physical.map(p -> "a positive multiple of the physical block size (" + Sizes.format(p) + ")")
                .orElse("a positive multiple of the physical block size");
        if (bytes <= 0) {
            map.problem(key, shown + " is not positive; allowed: " + allowed);
            return Optional.empty();
        }
        if (physical.isPresent() && bytes % physical.get() != 0) {
            map.problem(key, shown + " is not a multiple of the physical block size " + Sizes.format(physical.get())
                    + "; allowed: " + allowed);
            return Optional.empty();
        }
        return Optional.of(bytes);
    }
}
