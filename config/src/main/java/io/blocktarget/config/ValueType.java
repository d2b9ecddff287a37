package io.blocktarget.config;

import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * How to read one scalar value: its noun for type errors ("a size"), what is allowed, and the parser.
 *
 * @param noun    e.g. "a size", used in "a list is not a size"
 * @param allowed what the user may write, e.g. "true or false"
 * @param parser  converts the scalar or throws {@link InvalidValue}
 * @param schema  the JSON Schema (draft 2020-12) of what the parser may accept: the syntax only, never stricter than
 *                the parser (ranges that depend on other keys are the reader's)
 */
record ValueType<T>(String noun, String allowed, Parser<T> parser, Map<String, Object> schema) {
    ValueType {
        schema = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(schema));
    }

    /** Any text: {@code {"type": "string"}}. */
    ValueType(String noun, String allowed, Parser<T> parser) {
        this(noun, allowed, parser, Map.of("type", "string"));
    }

    /** The same type with {@code schema} as its JSON Schema. */
    ValueType<T> withSchema(Map<String, Object> value) {
        return new ValueType<>(noun, allowed, parser, value);
    }

    /** The same type with another text for "allowed" (what the reader says in a problem). */
    ValueType<T> withAllowed(String value) {
        return new ValueType<>(noun, value, parser, schema);
    }

    /** A JSON object in key order: {@code schema("type", "string", "minLength", 1)}. */
    static Map<String, Object> schema(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** Decimal, or hex with 0x: the text of an integer given as a string (YAML {@code "0x10"}, JSON {@code "7"}). */
    static final String INTEGER_TEXT = "^ *(-?[0-9]+|0[xX][0-9a-fA-F]+) *$";

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
    }, Map.of("type", "boolean"));

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
        }).withSchema(schema("type", List.of("integer", "string"), "minimum", min, "maximum", max,
                "pattern", INTEGER_TEXT));
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
        }).withSchema(schema("type", "string", "minLength", 1));
    }

    /**
     * One of {@code values}, written as {@code name} gives them ({@code enum} in the schema).
     *
     * @param noun e.g. "a trigger", used in "x is not a trigger"
     */
    static <E> ValueType<E> oneOf(String noun, List<E> values, java.util.function.Function<E, String> name) {
        return oneOf(noun, values, name, String.join(", ", values.stream().map(name).toList()));
    }

    /** Like {@link #oneOf(String, List, java.util.function.Function)}, {@code allowed} saying what is allowed. */
    static <E> ValueType<E> oneOf(String noun, List<E> values, java.util.function.Function<E, String> name,
                                  String allowed) {
        List<String> names = values.stream().map(name).toList();
        return text(noun, allowed, text -> {
            for (E v : values) {
                if (name.apply(v).equals(text)) {
                    return v;
                }
            }
            throw new InvalidValue(text + " is not " + noun, allowed);
        }).withSchema(schema("enum", names));
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
