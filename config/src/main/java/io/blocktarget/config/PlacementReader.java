package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes the {@code placement:} section of a LUN file ({@link PlacementConfig}):
 * <pre>
 * placement:
 *   reclaim-unit-size: 64MiB   # a multiple of the logical block size; NVMe RUNS, Linux write_stream_granularity
 *   handles: 8                 # 1..126 NVMe placement handles (Linux max_write_streams)
 *   streams: 6                 # 1..63 SCSI permanent streams (sd maps its five lifetime hints onto 1..5)
 *   over-provisioning: 7%      # spare media of the model, 0%..100%
 * </pre>
 * {@code placement: {}} takes every default; an absent section advertises nothing (today's device, byte for byte).
 */
final class PlacementReader {
    /**
     * Reclaim units a LUN may have: the model keeps about 30 bytes per unit even at its coarsest mapping, and this bound
     * keeps it within the block layer's per-LUN table limit at any over-provisioning (100 %: 47 bytes per unit).
     */
    static final long MAX_RECLAIM_UNITS = 1L << 19;
    /** The most logical blocks a reclaim unit may hold (the model counts them in an int): 2^30. */
    static final long MAX_RECLAIM_UNIT_BLOCKS = 1L << 30;

    static final String PERCENT_ALLOWED = "a percentage from 0% to 100% with at most two decimals, e.g. 7% or 12.5%";
    private static final Pattern PERCENT = Pattern.compile(" *([0-9]{1,3})(?:\\.([0-9]{1,2}))? ?% *");
    /** What the parser takes, as a JSON Schema pattern. */
    static final String PERCENT_TEXT = "^ *[0-9]{1,3}(\\.[0-9]{1,2})? ?% *$";

    /** {@code 7%}, {@code 12.5%} as basis points (1/100 %). */
    static final ValueType<Long> PERCENT_TYPE = ValueType.text("a percentage", PERCENT_ALLOWED, text -> {
        Matcher m = PERCENT.matcher(text);
        if (!m.matches()) {
            throw new InvalidValue(text + " is not a percentage", PERCENT_ALLOWED);
        }
        String fraction = m.group(2) == null ? "0" : (m.group(2) + "0").substring(0, 2);
        long basisPoints = Long.parseLong(m.group(1)) * 100 + Long.parseLong(fraction);
        if (basisPoints > 10_000) {
            throw new InvalidValue(text + " is out of range", PERCENT_ALLOWED);
        }
        return basisPoints;
    }).withSchema(ValueType.schema("type", "string", "pattern", PERCENT_TEXT));

    private PlacementReader() {
    }

    /**
     * The section, checked against the LUN's logical block size and size (each empty when the LUN file got it wrong:
     * then only what can be checked alone is). Empty when absent or wrong (problems added).
     */
    static Optional<PlacementConfig> read(YamlMap lun, Optional<Long> logical, Optional<Long> size,
                                          Problems problems) {
        if (!lun.has(LunKeys.PLACEMENT)) {
            return Optional.empty();
        }
        Optional<YamlMap> parsed = YamlMap.section(lun, LunKeys.PLACEMENT, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap map = parsed.get();
        int before = problems.count();
        Key<Long> unitKey = LunKeys.PLACEMENT_RECLAIM_UNIT_SIZE;
        Optional<Long> unit = map.value(unitKey);
        if (unit.isPresent() && logical.isPresent()) {
            long lbs = logical.get();
            long bytes = unit.get();
            String allowed = "a positive multiple of the logical block size (" + Sizes.format(lbs) + "), e.g. "
                    + Sizes.format(lbs * 16384) + " (NVMe RUNS, Linux write_stream_granularity)";
            if (bytes <= 0 || bytes % lbs != 0) {
                map.problem(unitKey, map.text(unitKey) + " is not a multiple of the logical block size ("
                        + Sizes.format(lbs) + "); allowed: " + allowed);
            } else if (bytes / lbs > MAX_RECLAIM_UNIT_BLOCKS) {
                map.problem(unitKey, map.text(unitKey) + " is more than " + MAX_RECLAIM_UNIT_BLOCKS
                        + " logical blocks; allowed: " + allowed + ", at most " + Sizes.exact(MAX_RECLAIM_UNIT_BLOCKS
                        * lbs));
            } else if (size.isPresent() && (size.get() + bytes - 1) / bytes > MAX_RECLAIM_UNITS) {
                long least = (size.get() + MAX_RECLAIM_UNITS - 1) / MAX_RECLAIM_UNITS;
                long fitting = (least + lbs - 1) / lbs * lbs;
                map.problem(unitKey, map.text(unitKey) + " makes " + (size.get() + bytes - 1) / bytes
                        + " reclaim units of the LUN's " + Sizes.exact(size.get()) + " bytes; allowed: at most "
                        + MAX_RECLAIM_UNITS + " reclaim units (a reclaim unit of at least " + Sizes.exact(fitting)
                        + ")");
            }
        }
        Optional<Long> handles = map.value(LunKeys.PLACEMENT_HANDLES);
        Optional<Long> streams = map.value(LunKeys.PLACEMENT_STREAMS);
        Optional<Long> overProvisioning = map.value(LunKeys.PLACEMENT_OVER_PROVISIONING);
        if (problems.count() > before || unit.isEmpty() || handles.isEmpty() || streams.isEmpty()
                || overProvisioning.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PlacementConfig(unit.get(), handles.get().intValue(), streams.get().intValue(),
                overProvisioning.get().intValue()));
    }

    /** The section as {@link LunWriter} writes it: every key, defaults too (scripts read the section back as it is). */
    static Map<String, Object> document(PlacementConfig placement) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put(LunKeys.PLACEMENT_RECLAIM_UNIT_SIZE.name(), Sizes.exact(placement.reclaimUnitBytes()));
        doc.put(LunKeys.PLACEMENT_HANDLES.name(), placement.handles());
        doc.put(LunKeys.PLACEMENT_STREAMS.name(), placement.streams());
        doc.put(LunKeys.PLACEMENT_OVER_PROVISIONING.name(), percent(placement.overProvisioningBasisPoints()));
        return doc;
    }

    /** Basis points as the key is written: {@code 7%}, {@code 12.5%}, {@code 0.05%}. */
    static String percent(int basisPoints) {
        int whole = basisPoints / 100;
        int fraction = basisPoints % 100;
        if (fraction == 0) {
            return whole + "%";
        }
        return fraction % 10 == 0 ? whole + "." + fraction / 10 + "%" : String.format("%d.%02d%%", whole, fraction);
    }
}
