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
                problems.add(0, "", "the file is empty; allowed: a map with at least " + LunKeys.BACKEND.name()
                        + ": and " + LunKeys.SIZE.name() + ":" + ","
                        + " e.g. " + LunKeys.BACKEND.name() + ": ram and " + LunKeys.SIZE.name() + ": 1GiB");
            }
            return Result.failed();
        }
        Optional<YamlMap> parsed = YamlMap.of(root.get(), "", LunKeys.LUN, problems);
        if (parsed.isEmpty()) {
            return Result.failed();
        }
        YamlMap map = parsed.get();
        Optional<BackendKind> backend = map.required(LunKeys.BACKEND);
        boolean readOnly = map.value(LunKeys.READ_ONLY).orElse(false);
        Optional<Long> logical = map.value(LunKeys.LOGICAL_BLOCK_SIZE);
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
        LunFeatures features = LunFeatures.NONE.withFaults(FaultReader.read(map, server.portalNames(), problems));
        features = features.withPaths(PathsReader.read(map, server.portalNames(), problems));
        features = features.withKnobs(KnobsReader.read(map, logical, physical, problems));
        features = features.withAtomic(AtomicReader.read(map, backend, logical, problems));
        features = features.withZoned(ZonedReader.read(map, backend, logical, physical, size, problems));
        features = features.withPlacement(PlacementReader.read(map, logical, size, problems));
        if (features.placement().isPresent() && exports.nvme().filter(e -> e.nsid() > 0xFFFF).isPresent()) {
            // FDP: the namespace is an endurance group of its own, ENDGID = NSID, a 16-bit field
            problems.add(map.line(LunKeys.PLACEMENT), map.keyPath(LunKeys.PLACEMENT), "NVMe namespace "
                    + exports.nvme().get().nsid() + " cannot carry data placement (its endurance group identifier is"
                    + " its NSID, at most 65535); allowed: " + LunKeys.EXPORT.name() + "." + LunKeys.NVME.name() + "."
                    + LunKeys.NVME_NSID.name() + " 1..65535 with placement, or no placement");
        }
        if (features.placement().isPresent() && map.has(LunKeys.ZONED)) {
            // a zoned device places data by zone: the host already chooses where each write lands
            problems.add(map.line(LunKeys.PLACEMENT), map.keyPath(LunKeys.PLACEMENT), "a zoned LUN cannot have data placement (its zones already place the"
                    + " data); allowed: " + LunKeys.PLACEMENT.name() + " or " + LunKeys.ZONED.name() + ", not both");
        }
        if (features.zoned().filter(z -> z.conventionalZones() > 0).isPresent() && exports.nvme().isPresent()) {
            // NVMe ZNS knows sequential-write-required zones only (ZNS 1.1 §2.1): such a LUN cannot be a namespace
            problems.add(map.line(LunKeys.ZONED), map.keyPath(LunKeys.ZONED) + "." + LunKeys.CONVENTIONAL_ZONES.name(),
                    features.zoned().get().conventionalZones() + " conventional zones, but the LUN is exported over"
                    + " NVMe too, whose Zoned Namespaces have none; allowed: 0, or " + LunKeys.EXPORT.name() + ": {"
                    + LunKeys.NVME.name() + ": false}");
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
        if (!map.has(LunKeys.PHYSICAL_BLOCK_SIZE)) {
            return logical.map(lbs -> lbs == LunKeys.MIN_LOGICAL_BLOCK_SIZE
                    ? LunKeys.DEFAULT_PHYSICAL_BLOCK_SIZE_FOR_512 : lbs);
        }
        Optional<Long> physical = map.value(LunKeys.PHYSICAL_BLOCK_SIZE);
        if (physical.isPresent() && logical.isPresent() && physical.get() < logical.get()) {
            map.problem(LunKeys.PHYSICAL_BLOCK_SIZE, map.text(LunKeys.PHYSICAL_BLOCK_SIZE)
                    + " is smaller than the logical block size (" + Sizes.format(logical.get()) + "); allowed: "
                    + LunKeys.PBS_ALLOWED);
            return Optional.empty();
        }
        return physical;
    }

    /** The keys declared for the file backend only ({@code onlyWhen(backend, file)}). */
    private static void rejectFileKeys(YamlMap map, BackendKind backend) {
        for (Key<?> key : LunKeys.LUN.onlyWhen(LunKeys.BACKEND.name(), BackendKind.FILE.configName())) {
            if (map.has(key)) {
                map.problem(key, "only allowed with " + LunKeys.BACKEND.name() + ": " + BackendKind.FILE.configName()
                        + "; this LUN has " + LunKeys.BACKEND.name() + ": " + backend.configName());
            }
        }
    }

    private static Optional<FileBackendConfig> fileBackend(YamlMap map, Path configDir) {
        Optional<String> path = map.required(LunKeys.PATH);
        boolean create = map.value(LunKeys.CREATE).orElse(false);
        boolean directIo = map.value(LunKeys.DIRECT_IO).orElse(false);
        return path.map(p -> new FileBackendConfig(configDir.toAbsolutePath().resolve(p).normalize(), create, directIo));
    }

    /**
     * The LUN's size: given for ram and null; for file the size of an existing file or device (a given size must
     * match it), or the given size of the sparse file {@code create: true} makes.
     */
    private static Optional<Long> size(YamlMap map, Optional<BackendKind> backend, Optional<FileBackendConfig> file,
                                       Optional<Long> physical, Path configDir) {
        Optional<Long> given = map.has(LunKeys.SIZE) ? map.value(LunKeys.SIZE) : Optional.empty();
        if (file.isPresent()) {
            Path path = file.get().path();
            String shown = map.text(LunKeys.PATH);
            if (Files.isDirectory(path)) {
                map.problem(LunKeys.PATH, shown + " is a directory; allowed: " + LunKeys.PATH_ALLOWED);
                return Optional.empty();
            }
            if (Files.exists(path)) {
                return existingSize(map, path, shown, given, physical);
            }
            if (!file.get().create()) {
                map.problem(LunKeys.PATH, shown + " does not exist (" + path + "); allowed: an existing regular file"
                        + " or block device, or " + LunKeys.CREATE.name()
                        + ": true with a size to create a sparse file");
                return Optional.empty();
            }
            if (!map.has(LunKeys.SIZE)) {
                map.problem(LunKeys.SIZE, "missing; allowed: the size of the sparse file that " + LunKeys.CREATE.name()
                        + ": true makes, " + Sizes.ALLOWED);
                return Optional.empty();
            }
        } else if (backend.isPresent() && backend.get() != BackendKind.FILE && !map.has(LunKeys.SIZE)) {
            map.required(LunKeys.SIZE);
            return Optional.empty();
        }
        return given.flatMap(bytes -> checkMultiple(map, LunKeys.SIZE, map.text(LunKeys.SIZE), bytes, physical));
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
            map.problem(LunKeys.PATH, "cannot read the size of " + shown + ": " + YamlSource.describe(e)
                    + "; allowed: a readable regular file or block device");
            return Optional.empty();
        }
        if (given.isPresent() && given.get() != actual) {
            map.problem(LunKeys.SIZE, map.text(LunKeys.SIZE) + " differs from the size of " + shown + ", " + actual
                    + " bytes ("
                    + Sizes.format(actual) + "); allowed: the file's size, or no size");
            return Optional.empty();
        }
        return checkMultiple(map, LunKeys.PATH, shown + " with " + actual + " bytes", actual, physical);
    }

    private static long channelSize(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return channel.size();
        }
    }

    private static Optional<Long> checkMultiple(YamlMap map, Key<?> key, String shown, long bytes,
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
