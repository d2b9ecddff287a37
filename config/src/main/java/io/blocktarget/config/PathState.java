package io.blocktarget.config;

import java.util.Locale;

/**
 * The state of one path — a LUN as seen through one portal — as {@code paths:} of a LUN file and {@code blocktarget
 * path set} write it. The server maps each to a SCSI asymmetric access state (SPC-5 §5.16.2.4) and an NVMe ANA state
 * (NVMe Base 2.x §8.1.1); docs/multipath.md has the table.
 */
public enum PathState {
    /** Active/optimized; ANA Optimized. */
    OPTIMIZED,
    /** Active/non-optimized; ANA Non-Optimized. */
    NON_OPTIMIZED,
    /** SCSI unavailable; ANA Inaccessible. */
    INACCESSIBLE,
    /** SCSI standby; ANA Inaccessible. */
    STANDBY,
    /** SCSI unavailable; ANA Inaccessible. */
    UNAVAILABLE,
    /** SCSI offline; ANA Persistent Loss. */
    PERSISTENT_LOSS,
    /** SCSI transitioning; ANA Change. */
    TRANSITIONING;

    /** Every word, in declaration order, as the docs list them. */
    public static final String ALLOWED = "optimized, non-optimized, inaccessible, standby, unavailable,"
            + " persistent-loss or transitioning";

    /** As written in files and on the command line, e.g. {@code non-optimized}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The state {@code word} names; empty when it names none. */
    public static java.util.Optional<PathState> of(String word) {
        for (PathState s : values()) {
            if (s.word().equals(word)) {
                return java.util.Optional.of(s);
            }
        }
        return java.util.Optional.empty();
    }
}
