package io.blocktarget.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The round-2 sections of a LUN file (DESIGN.md §10), kept apart from the geometry and exports of {@link LunConfig}
 * so that each section is one record with its own reader. {@link #NONE} is what a file without any of them means:
 * today's behaviour.
 *
 * @param knobs  advertised knobs ({@code commands:}, limits, identity); {@link DeviceKnobs#DEFAULTS} when absent
 * @param atomic {@code atomic:}; empty = no atomicity beyond one logical block
 * @param zoned  {@code zoned:}; empty = a conventional (not zoned) device
 * @param faults {@code faults:}; empty = no fault rule
 * @param placement {@code placement:}; empty = no data placement advertised
 * @param paths  {@code paths:} as written, portal name to state, in file order; a portal not in it is optimized
 */
public record LunFeatures(DeviceKnobs knobs, Optional<AtomicConfig> atomic, Optional<ZonedConfig> zoned,
                          java.util.List<FaultRuleConfig> faults, Optional<PlacementConfig> placement,
                          java.util.Map<String, PathState> paths) {

    public static final LunFeatures NONE = new LunFeatures(DeviceKnobs.DEFAULTS, Optional.empty(), Optional.empty(),
            java.util.List.of(), Optional.empty(), java.util.Map.of());

    public LunFeatures {
        Objects.requireNonNull(knobs, "knobs");
        Objects.requireNonNull(atomic, "atomic");
        Objects.requireNonNull(zoned, "zoned");
        Objects.requireNonNull(placement, "placement");
        faults = java.util.List.copyOf(faults);
        paths = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(paths));
    }

    public LunFeatures withKnobs(DeviceKnobs value) {
        return new LunFeatures(value, atomic, zoned, faults, placement, paths);
    }

    public LunFeatures withAtomic(Optional<AtomicConfig> value) {
        return new LunFeatures(knobs, value, zoned, faults, placement, paths);
    }

    public LunFeatures withZoned(Optional<ZonedConfig> value) {
        return new LunFeatures(knobs, atomic, value, faults, placement, paths);
    }

    public LunFeatures withFaults(java.util.List<FaultRuleConfig> value) {
        return new LunFeatures(knobs, atomic, zoned, value, placement, paths);
    }

    public LunFeatures withPlacement(Optional<PlacementConfig> value) {
        return new LunFeatures(knobs, atomic, zoned, faults, value, paths);
    }

    public LunFeatures withPaths(java.util.Map<String, PathState> value) {
        return new LunFeatures(knobs, atomic, zoned, faults, placement, value);
    }

    /** The state on portal {@code portal}: as {@code paths:} gives it, else optimized. */
    public PathState path(String portal) {
        return paths.getOrDefault(portal, PathState.OPTIMIZED);
    }
}
