package io.blocktarget.config;

/**
 * Advertised per-LUN knobs (optional commands, limits, identity). {@link #DEFAULTS} = the values the command sets
 * advertised before knobs existed.
 */
public record DeviceKnobs() {
    public static final DeviceKnobs DEFAULTS = new DeviceKnobs();
}
