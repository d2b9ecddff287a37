package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and writes the {@code zoned:} section of a LUN file ({@link ZonedConfig}):
 * <pre>
 * zoned:
 *   model: host-managed          # the only model (SCSI ZBC-2 host-managed, NVMe ZNS)
 *   zone-size: 64MiB             # required: a power of two, a multiple of the physical block size
 *   zone-capacity: 48MiB         # writable part of each sequential zone; default: zone-size
 *   conventional-zones: 1        # at the start; default 0
 *   max-open: 8                  # default 0: no limit
 *   max-active: 12               # default 0: no limit
 *   zone-append-max-bytes: 1MiB  # NVMe ZASL; default 0: as large as a transfer may be (MDTS)
 * </pre>
 * The LUN's size must be a whole number of zones; only RAM LUNs can be zoned (the file and null backends cannot keep
 * write pointers yet).
 */
final class ZonedReader {
    /** Zones a LUN may have: the per-zone state is kept on the heap (REPORT ZONES walks it). */
    static final long MAX_ZONES = 1L << 20;

    static final String LIMIT_ALLOWED = "0 (no limit) .. the number of sequential zones";

    private ZonedReader() {
    }

    /**
     * The section, checked against the LUN's backend, block sizes and size (each empty when the LUN file got it
     * wrong: then only what can be checked alone is). Empty when absent or wrong (problems added).
     */
    static Optional<ZonedConfig> read(YamlMap lun, Optional<BackendKind> backend, Optional<Long> logical,
                                      Optional<Long> physical, Optional<Long> size, Problems problems) {
        Optional<YamlMap> parsed = YamlMap.section(lun, LunKeys.ZONED, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        int before = problems.count();
        YamlMap map = parsed.get();
        backend.filter(b -> b != BackendKind.RAM).ifPresent(b -> problems.add(lun.line(LunKeys.ZONED),
                lun.keyPath(LunKeys.ZONED),
                "a zoned LUN needs " + LunKeys.BACKEND.name()
                        + ": ram (write pointers live in memory; file and null cannot keep them yet);"
                        + " this LUN has " + LunKeys.BACKEND.name() + ": " + b.configName() + "; allowed: "
                        + LunKeys.BACKEND.name() + ": ram, or no zoned section"));
        Optional<ZonedConfig.Model> model = map.value(LunKeys.ZONE_MODEL);
        long unit = physical.orElse(logical.orElse(512L));
        String unitName = physical.isPresent() ? "the physical block size (" + Sizes.format(unit) + ")"
                : "the physical block size";
        if (!map.has(LunKeys.ZONE_SIZE)) {
            problems.add(lun.line(LunKeys.ZONED), map.keyPath(LunKeys.ZONE_SIZE), "missing; allowed: a power of two,"
                    + " at least " + unitName
                    + ", e.g. 64MiB");
        }
        Optional<Long> zoneSize = map.value(LunKeys.ZONE_SIZE, ValueType.text("a size",
                "a power of two, at least " + unitName + ", e.g. 64MiB", text -> {
                    long bytes = Sizes.parse(text);
                    if (!Sizes.isPowerOfTwo(bytes)) {
                        throw new InvalidValue(text + " is not a power of two (Linux needs power-of-two zones)",
                                "a power of two, at least " + unitName + ", e.g. 64MiB");
                    }
                    if (bytes < unit) {
                        throw new InvalidValue(text + " is smaller than " + unitName,
                                "a power of two, at least " + unitName + ", e.g. 64MiB");
                    }
                    return bytes;
                }));
        long zones = 0;
        if (zoneSize.isPresent() && size.isPresent()) {
            long zs = zoneSize.get();
            if (size.get() % zs != 0) {
                long down = size.get() / zs * zs;
                map.problem(LunKeys.ZONE_SIZE, map.text(LunKeys.ZONE_SIZE) + " does not divide the LUN's size "
                        + Sizes.format(size.get()) + "; allowed: a size that is a whole number of zones"
                        + (down > 0 ? " (" + LunKeys.SIZE.name() + ": " + Sizes.exact(down) + " or "
                        + Sizes.exact(down + zs) + ")"
                        : " (" + LunKeys.SIZE.name() + ": at least " + Sizes.exact(zs) + ")"));
            } else if (size.get() / zs > MAX_ZONES) {
                map.problem(LunKeys.ZONE_SIZE, map.text(LunKeys.ZONE_SIZE) + " makes " + size.get() / zs
                        + " zones; allowed: at most "
                        + MAX_ZONES + " zones (a zone size of at least " + Sizes.exact(size.get() / MAX_ZONES) + ")");
            } else {
                zones = size.get() / zs;
            }
        }
        Optional<Long> capacity = zoneSize.isEmpty() ? Optional.empty()
                : map.value(LunKeys.ZONE_CAPACITY, LunKeys.ZONE_CAPACITY.type(), zoneSize.get());
        if (capacity.isPresent() && zoneSize.isPresent()) {
            String allowed = "a multiple of " + unitName + ", from it up to " + LunKeys.ZONE_SIZE.name() + " ("
                    + Sizes.format(zoneSize.get())
                    + "); ZBC-2 writes whole physical blocks";
            if (capacity.get() <= 0 || capacity.get() > zoneSize.get()) {
                map.problem(LunKeys.ZONE_CAPACITY, map.text(LunKeys.ZONE_CAPACITY) + " is out of range; allowed: "
                        + allowed);
                capacity = Optional.empty();
            } else if (capacity.get() % unit != 0) {
                map.problem(LunKeys.ZONE_CAPACITY, map.text(LunKeys.ZONE_CAPACITY) + " is not a multiple of " + unitName
                        + "; allowed: " + allowed);
                capacity = Optional.empty();
            }
        }
        long maxZones = zones > 0 ? zones : MAX_ZONES;
        Optional<Long> conventional = map.value(LunKeys.CONVENTIONAL_ZONES, ValueType.integer(0, maxZones - 1,
                "0 .. the number of zones - 1" + (zones > 0 ? " (" + (zones - 1) + ")" : "")
                        + ": at least one zone must be sequential"), 0L);
        long sequential = zones > 0 && conventional.isPresent() ? zones - conventional.get() : maxZones;
        String limitAllowed = LIMIT_ALLOWED + (zones > 0 && conventional.isPresent() ? " (" + sequential + ")" : "");
        Optional<Long> maxOpen = map.value(LunKeys.ZONE_MAX_OPEN, ValueType.integer(0, sequential, limitAllowed), 0L);
        Optional<Long> maxActive = map.value(LunKeys.ZONE_MAX_ACTIVE, ValueType.integer(0, sequential, limitAllowed),
                0L);
        if (maxOpen.isPresent() && maxActive.isPresent() && maxActive.get() > 0
                && (maxOpen.get() == 0 || maxOpen.get() > maxActive.get())) {
            if (map.has(LunKeys.ZONE_MAX_OPEN)) {
                map.problem(LunKeys.ZONE_MAX_OPEN, map.text(LunKeys.ZONE_MAX_OPEN) + " is more than "
                        + LunKeys.ZONE_MAX_ACTIVE.name() + " " + maxActive.get()
                        + "; allowed: 1 .. " + LunKeys.ZONE_MAX_ACTIVE.name()
                        + " (an open zone is active; ZNS requires MOR <= MAR)");
            } else {
                map.problem(LunKeys.ZONE_MAX_ACTIVE, map.text(LunKeys.ZONE_MAX_ACTIVE) + " without "
                        + LunKeys.ZONE_MAX_OPEN.name() + " (no limit on open zones);"
                        + " allowed: " + LunKeys.ZONE_MAX_OPEN.name() + " from 1 to "
                        + LunKeys.ZONE_MAX_ACTIVE.name() + " as well (an open zone is active; ZNS requires"
                        + " MOR <= MAR)");
            }
        }
        String appendAllowed = "0 (as large as one transfer) or a power of two from 4 KiB and at least the logical"
                + " block size";
        Optional<Long> appendMax = map.value(LunKeys.ZONE_APPEND_MAX_BYTES, ValueType.text("a size", appendAllowed,
                text -> {
            long bytes = Sizes.parse(text);
            if (bytes != 0 && (!Sizes.isPowerOfTwo(bytes) || bytes < 4096 || bytes < logical.orElse(512L))) {
                throw new InvalidValue(text + " is out of range (NVMe ZASL is a power of two of 4 KiB pages)",
                        appendAllowed);
            }
            return bytes;
        }), 0L);
        if (problems.count() > before) {
            return Optional.empty();
        }
        return Optional.of(new ZonedConfig(model.orElseThrow(), zoneSize.orElseThrow(), capacity.orElseThrow(),
                conventional.orElseThrow().intValue(), maxOpen.orElseThrow().intValue(),
                maxActive.orElseThrow().intValue(), appendMax.orElseThrow()));
    }

    /** The section as {@link LunWriter} writes it: defaults left out. */
    static Map<String, Object> document(ZonedConfig zoned) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put(LunKeys.ZONE_MODEL.name(), zoned.model().configName());
        doc.put(LunKeys.ZONE_SIZE.name(), Sizes.exact(zoned.zoneSize()));
        if (zoned.zoneCapacity() != zoned.zoneSize()) {
            doc.put(LunKeys.ZONE_CAPACITY.name(), Sizes.exact(zoned.zoneCapacity()));
        }
        putUnlessDefault(doc, LunKeys.CONVENTIONAL_ZONES, zoned.conventionalZones());
        putUnlessDefault(doc, LunKeys.ZONE_MAX_OPEN, zoned.maxOpen());
        putUnlessDefault(doc, LunKeys.ZONE_MAX_ACTIVE, zoned.maxActive());
        if (zoned.zoneAppendMaxBytes() != LunKeys.ZONE_APPEND_MAX_BYTES.defaultValue().orElseThrow()) {
            doc.put(LunKeys.ZONE_APPEND_MAX_BYTES.name(), Sizes.exact(zoned.zoneAppendMaxBytes()));
        }
        return doc;
    }

    private static void putUnlessDefault(Map<String, Object> doc, Key<Long> key, int value) {
        if (value != key.defaultValue().orElseThrow()) {
            doc.put(key.name(), value);
        }
    }
}
