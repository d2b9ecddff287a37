package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.List;
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
    static final List<String> KEYS = List.of("model", "zone-size", "zone-capacity", "conventional-zones", "max-open",
            "max-active", "zone-append-max-bytes");
    /** Zones a LUN may have: the per-zone state is kept on the heap (REPORT ZONES walks it). */
    static final long MAX_ZONES = 1L << 20;

    private static final String MODEL_ALLOWED = "host-managed";
    private static final ValueType<ZonedConfig.Model> MODEL = ValueType.text("a zone model", MODEL_ALLOWED, text -> {
        for (ZonedConfig.Model model : ZonedConfig.Model.values()) {
            if (model.configName().equals(text)) {
                return model;
            }
        }
        throw new InvalidValue(text + " is not a zone model", MODEL_ALLOWED);
    });
    private static final String LIMIT_ALLOWED = "0 (no limit) .. the number of sequential zones";

    private ZonedReader() {
    }

    /**
     * The section, checked against the LUN's backend, block sizes and size (each empty when the LUN file got it
     * wrong: then only what can be checked alone is). Empty when absent or wrong (problems added).
     */
    static Optional<ZonedConfig> read(YamlMap lun, Optional<BackendKind> backend, Optional<Long> logical,
                                      Optional<Long> physical, Optional<Long> size, Problems problems) {
        Optional<YamlMap> parsed = lun.node("zoned")
                .flatMap(node -> YamlMap.of(node, "zoned", KEYS, "a zoned map", problems));
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        int before = problems.count();
        YamlMap map = parsed.get();
        backend.filter(b -> b != BackendKind.RAM).ifPresent(b -> problems.add(lun.line("zoned"), "zoned",
                "a zoned LUN needs backend: ram (write pointers live in memory; file and null cannot keep them yet);"
                        + " this LUN has backend: " + b.configName() + "; allowed: backend: ram, or no zoned section"));
        Optional<ZonedConfig.Model> model = map.value("model", MODEL, ZonedConfig.Model.HOST_MANAGED);
        long unit = physical.orElse(logical.orElse(512L));
        String unitName = physical.isPresent() ? "the physical block size (" + Sizes.format(unit) + ")"
                : "the physical block size";
        if (!map.has("zone-size")) {
            problems.add(lun.line("zoned"), "zoned.zone-size", "missing; allowed: a power of two, at least " + unitName
                    + ", e.g. 64MiB");
        }
        Optional<Long> zoneSize = map.value("zone-size", ValueType.text("a size",
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
                map.problem("zone-size", map.text("zone-size") + " does not divide the LUN's size "
                        + Sizes.format(size.get()) + "; allowed: a size that is a whole number of zones"
                        + (down > 0 ? " (size: " + Sizes.exact(down) + " or " + Sizes.exact(down + zs) + ")"
                        : " (size: at least " + Sizes.exact(zs) + ")"));
            } else if (size.get() / zs > MAX_ZONES) {
                map.problem("zone-size", map.text("zone-size") + " makes " + size.get() / zs + " zones; allowed: at most "
                        + MAX_ZONES + " zones (a zone size of at least " + Sizes.exact(size.get() / MAX_ZONES) + ")");
            } else {
                zones = size.get() / zs;
            }
        }
        Optional<Long> capacity = zoneSize.isEmpty() ? Optional.empty()
                : map.value("zone-capacity", Sizes.SIZE_TYPE, zoneSize.get());
        if (capacity.isPresent() && zoneSize.isPresent()) {
            String allowed = "a multiple of " + unitName + ", from it up to zone-size (" + Sizes.format(zoneSize.get())
                    + "); ZBC-2 writes whole physical blocks";
            if (capacity.get() <= 0 || capacity.get() > zoneSize.get()) {
                map.problem("zone-capacity", map.text("zone-capacity") + " is out of range; allowed: " + allowed);
                capacity = Optional.empty();
            } else if (capacity.get() % unit != 0) {
                map.problem("zone-capacity", map.text("zone-capacity") + " is not a multiple of " + unitName
                        + "; allowed: " + allowed);
                capacity = Optional.empty();
            }
        }
        long maxZones = zones > 0 ? zones : MAX_ZONES;
        Optional<Long> conventional = map.value("conventional-zones", ValueType.integer(0, maxZones - 1,
                "0 .. the number of zones - 1" + (zones > 0 ? " (" + (zones - 1) + ")" : "")
                        + ": at least one zone must be sequential"), 0L);
        long sequential = zones > 0 && conventional.isPresent() ? zones - conventional.get() : maxZones;
        String limitAllowed = LIMIT_ALLOWED + (zones > 0 && conventional.isPresent() ? " (" + sequential + ")" : "");
        Optional<Long> maxOpen = map.value("max-open", ValueType.integer(0, sequential, limitAllowed), 0L);
        Optional<Long> maxActive = map.value("max-active", ValueType.integer(0, sequential, limitAllowed), 0L);
        if (maxOpen.isPresent() && maxActive.isPresent() && maxActive.get() > 0
                && (maxOpen.get() == 0 || maxOpen.get() > maxActive.get())) {
            if (map.has("max-open")) {
                map.problem("max-open", map.text("max-open") + " is more than max-active " + maxActive.get()
                        + "; allowed: 1 .. max-active (an open zone is active; ZNS requires MOR <= MAR)");
            } else {
                map.problem("max-active", map.text("max-active") + " without max-open (no limit on open zones);"
                        + " allowed: max-open from 1 to max-active as well (an open zone is active; ZNS requires"
                        + " MOR <= MAR)");
            }
        }
        String appendAllowed = "0 (as large as one transfer) or a power of two from 4 KiB and at least the logical"
                + " block size";
        Optional<Long> appendMax = map.value("zone-append-max-bytes", ValueType.text("a size", appendAllowed, text -> {
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
        doc.put("model", zoned.model().configName());
        doc.put("zone-size", Sizes.exact(zoned.zoneSize()));
        if (zoned.zoneCapacity() != zoned.zoneSize()) {
            doc.put("zone-capacity", Sizes.exact(zoned.zoneCapacity()));
        }
        if (zoned.conventionalZones() != 0) {
            doc.put("conventional-zones", zoned.conventionalZones());
        }
        if (zoned.maxOpen() != 0) {
            doc.put("max-open", zoned.maxOpen());
        }
        if (zoned.maxActive() != 0) {
            doc.put("max-active", zoned.maxActive());
        }
        if (zoned.zoneAppendMaxBytes() != 0) {
            doc.put("zone-append-max-bytes", Sizes.exact(zoned.zoneAppendMaxBytes()));
        }
        return doc;
    }
}
