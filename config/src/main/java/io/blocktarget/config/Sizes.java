package io.blocktarget.config;

import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as written in the configuration: {@code 4096}, {@code 16KiB}, {@code 8 GiB}; binary units only. */
final class Sizes {
    static final long KIB = 1L << 10;
    static final long MIB = 1L << 20;
    static final long GIB = 1L << 30;
    static final long TIB = 1L << 40;

    static final String UNITS = "B, KiB, MiB, GiB or TiB";
    static final String ALLOWED = "an integer number of bytes, optionally followed by a unit "
            + UNITS + " (powers of 1024), e.g. 4096, 16KiB or 8 GiB";

    private static final Pattern SIZE = Pattern.compile("([0-9]+) ?([A-Za-z]*)");
    private static final String[] UNIT_NAMES = {"B", "KiB", "MiB", "GiB", "TiB"};

    /** What the parser takes as text, as a JSON Schema (ECMA-262) pattern; a plain number is a JSON integer. */
    static final String SIZE_TEXT = "^ *[0-9]+ ?(B|KiB|MiB|GiB|TiB)? *$";

    static final ValueType<Long> SIZE_TYPE = ValueType.text("a size", ALLOWED, Sizes::parse).withSchema(schema());

    private Sizes() {
    }

    /** The JSON Schema of a size: a number of bytes, or its text with a unit ({@code 16KiB}). */
    static java.util.Map<String, Object> schema() {
        return ValueType.schema("type", java.util.List.of("integer", "string"), "minimum", 0, "pattern", SIZE_TEXT);
    }

    /** Parses a size; the message of the {@link InvalidValue} names the text as written. */
    static long parse(String text) throws InvalidValue {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new InvalidValue(text + " is not a size", ALLOWED);
        }
        long unit = unit(m.group(2));
        if (unit == 0) {
            throw new InvalidValue(text + ": " + m.group(2) + " is not a unit", ALLOWED);
        }
        BigInteger bytes = new BigInteger(m.group(1)).multiply(BigInteger.valueOf(unit));
        if (bytes.bitLength() > 63) {
            throw new InvalidValue(text + " does not fit in 64 bits",
                    "at most " + Long.MAX_VALUE + " bytes (8 EiB - 1)");
        }
        return bytes.longValueExact();
    }

    /** Bytes per unit, 0 when {@code name} is not a unit (decimal KB, MB, ... are rejected: ambiguous). */
    private static long unit(String name) {
        if (name.isEmpty()) {
            return 1;
        }
        for (int i = 0; i < UNIT_NAMES.length; i++) {
            if (UNIT_NAMES[i].equals(name)) {
                return 1L << (10 * i);
            }
        }
        return 0;
    }

    /**
     * Human form in the largest unit not exceeding the value: "512 B", "16 KiB", "1 GiB"; "1.5 KiB" when one decimal
     * is exact, else rounded to one decimal and marked "~7.8 GiB". Units stop at TiB, like the parser's.
     */
    static String format(long bytes) {
        int i = UNIT_NAMES.length - 1;
        while (i > 0 && bytes < 1L << (10 * i)) {
            i--;
        }
        long unit = 1L << (10 * i);
        if (bytes % unit == 0) {
            return bytes / unit + " " + UNIT_NAMES[i];
        }
        boolean exact = (bytes % unit) * 10 % unit == 0;
        return String.format(Locale.ROOT, "%s%.1f %s", exact ? "" : "~", (double) bytes / unit, UNIT_NAMES[i]);
    }

    static boolean isPowerOfTwo(long value) {
        return value > 0 && Long.bitCount(value) == 1;
    }

    /** The size as the parser reads it back exactly: "16KiB", "1GiB" when a unit divides it, else the byte count. */
    static String exact(long bytes) {
        for (int i = UNIT_NAMES.length - 1; i > 0; i--) {
            long unit = 1L << (10 * i);
            if (bytes >= unit && bytes % unit == 0) {
                return bytes / unit + UNIT_NAMES[i];
            }
        }
        return Long.toString(bytes);
    }
}
