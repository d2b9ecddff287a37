package io.blocktarget.config;

import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * How to read one scalar value: its noun for type errors ("a size"), what is allowed, and the parser.
 *
 * @param noun    e.g. "a size", used in "a list is not a size"
 * @param allowed what the user may write, e.g. "true or false"
 * @param parser  converts the scalar or throws {@link InvalidValue}
 */
record ValueType<T>(String noun, String allowed, Parser<T> parser) {

    @FunctionalInterface
    interface Parser<T> {
        T parse(ScalarNode node) throws InvalidValue;
    }

    /** YAML 1.2 core schema booleans only: {@code yes}/{@code no}/{@code on} are strings there. */
    static final ValueType<Boolean> BOOLEAN = new ValueType<>("a boolean", "true or false", node -> {
        if (Tag.BOOL.equals(node.getTag())) {
            return Boolean.parseBoolean(node.getValue().toLowerCase(Locale.ROOT));
        }
        throw new InvalidValue(node.getValue() + " is not a boolean", "true or false");
    });

    /**
     * An integer in {@code min..max}, decimal or 0x-hex (NSIDs are usually written in hex).
     *
     * @param allowed e.g. "0..65535 (0 disables the listener)"
     */
    static ValueType<Long> integer(long min, long max, String allowed) {
        return text("an integer", allowed, text -> {
            String digits = text.strip();
            BigInteger value;
            try {
                value = digits.startsWith("0x") || digits.startsWith("0X")
                        ? new BigInteger(digits.substring(2), 16)
                        : new BigInteger(digits, 10);
            } catch (NumberFormatException e) {
                throw new InvalidValue(text + " is not an integer", allowed);
            }
            if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
                throw new InvalidValue(text + " is out of range", allowed);
            }
            return value.longValueExact();
        });
    }

    /** A file system path as written (resolved later against the config directory); blank or unparsable is wrong. */
    static ValueType<String> path(String allowed) {
        return text("a path", allowed, text -> {
            if (text.isBlank()) {
                throw new InvalidValue("an empty path", allowed);
            }
            try {
                Path.of(text);
            } catch (InvalidPathException e) {
                throw new InvalidValue(text + " is not a path: " + e.getReason(), allowed);
            }
            return text;
        });
    }

    /** A value given as text: any scalar, checked by {@code check}. */
    static <T> ValueType<T> text(String noun, String allowed, TextParser<T> check) {
        return new ValueType<>(noun, allowed, node -> check.parse(node.getValue()));
    }

    @FunctionalInterface
    interface TextParser<T> {
        T parse(String text) throws InvalidValue;
    }
}
