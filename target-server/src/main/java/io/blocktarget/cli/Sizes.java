package io.blocktarget.cli;

/** Human-readable binary sizes for the LUN table: exact when a unit divides, else one decimal. */
final class Sizes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private Sizes() {
    }

    static String format(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size " + bytes);
        }
        int unit = 0;
        long v = bytes;
        while (unit < UNITS.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            unit++;
        }
        if (v < 1024 || unit == UNITS.length - 1) {
            return v + " " + UNITS[unit];
        }
        // not a whole number of the next unit: one decimal of the largest unit below the value
        double d = bytes;
        int u = 0;
        while (u < UNITS.length - 1 && d >= 1024) {
            d /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", d, UNITS[u]);
    }
}
