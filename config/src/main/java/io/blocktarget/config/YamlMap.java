package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * One YAML mapping with a fixed set of allowed keys. Construction reports unknown and repeated keys;
 * the typed getters report wrong values — each problem at the line of the offending key or value.
 */
final class YamlMap {
    private final String path;
    private final Map<String, NodeTuple> entries;
    private final Problems problems;

    private YamlMap(String path, Map<String, NodeTuple> entries, Problems problems) {
        this.path = path;
        this.entries = entries;
        this.problems = problems;
    }

    /**
     * @param node        the node that should be a mapping
     * @param path        dotted key path of the node, "" for the document root
     * @param allowedKeys every key the mapping may have, in the order the user should read them
     * @param noun        what the mapping is, for the problem when it is not one, e.g. "a LUN definition"
     * @return empty (with a problem added) when {@code node} is not a mapping
     */
    static Optional<YamlMap> of(Node node, String path, List<String> allowedKeys, String noun, Problems problems) {
        if (!(node instanceof MappingNode mapping)) {
            problems.add(YamlSource.line(node), path,
                    describe(node) + " is not " + noun + "; allowed: a map with the keys " + String.join(", ", allowedKeys));
            return Optional.empty();
        }
        Map<String, NodeTuple> entries = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            Node keyNode = tuple.getKeyNode();
            int line = YamlSource.line(keyNode);
            if (!(keyNode instanceof ScalarNode scalar)) {
                problems.add(line, path, describe(keyNode) + " is not a key; allowed keys: " + String.join(", ", allowedKeys));
                continue;
            }
            String key = scalar.getValue();
            String keyPath = join(path, key);
            if (!allowedKeys.contains(key)) {
                problems.add(line, keyPath, "unknown key" + KeyPaths.hint(key, allowedKeys)
                        .map(h -> "; did you mean `" + h + "`?").orElse(";") + " allowed keys: "
                        + String.join(", ", allowedKeys));
            } else if (entries.containsKey(key)) {
                problems.add(line, keyPath, "given twice (first on line " + YamlSource.line(entries.get(key).getKeyNode())
                        + "); allowed: each key once");
            } else {
                entries.put(key, tuple);
            }
        }
        return Optional.of(new YamlMap(path, entries, problems));
    }

    /** The section {@code key} of {@code parent} as a map (its keys the declared ones); empty when absent or wrong. */
    static Optional<YamlMap> section(YamlMap parent, Key<?> key, Problems problems) {
        return parent.node(key.name()).flatMap(node -> of(node, parent.keyPath(key.name()), key.names(), key.noun(),
                problems));
    }

    /** A document (or one fault rule given alone) whose keys are {@code root}'s. */
    static Optional<YamlMap> of(Node node, String path, Key<?> root, Problems problems) {
        return of(node, path, root.names(), root.noun(), problems);
    }

    boolean has(Key<?> key) {
        return has(key.name());
    }

    int line(Key<?> key) {
        return line(key.name());
    }

    String keyPath(Key<?> key) {
        return keyPath(key.name());
    }

    Optional<Node> node(Key<?> key) {
        return node(key.name());
    }

    String text(Key<?> key) {
        return text(key.name());
    }

    void problem(Key<?> key, String message) {
        problem(key.name(), message);
    }

    /** The value of {@code key} by its declared type; its declared default when absent (if it has a fixed one). */
    <T> Optional<T> value(Key<T> key) {
        return key.defaultValue().isPresent() ? value(key.name(), key.type(), key.defaultValue().get())
                : value(key.name(), key.type());
    }

    /** The value of {@code key} by {@code type} (a check that depends on other keys), without a default. */
    <T> Optional<T> value(Key<?> key, ValueType<T> type) {
        return value(key.name(), type);
    }

    /** Like {@link #value(Key, ValueType)}, {@code fallback} when absent. */
    <T> Optional<T> value(Key<?> key, ValueType<T> type, T fallback) {
        return value(key.name(), type, fallback);
    }

    /** The value of a required key: missing is a problem. */
    <T> Optional<T> required(Key<T> key) {
        return required(key.name(), key.type());
    }

    <T> Optional<T> required(Key<?> key, ValueType<T> type) {
        return required(key.name(), type);
    }

    boolean has(String key) {
        return entries.containsKey(key);
    }

    /** Line of the key, 0 when the key is absent. */
    int line(String key) {
        NodeTuple tuple = entries.get(key);
        return tuple == null ? 0 : YamlSource.line(tuple.getKeyNode());
    }

    /** Dotted path of a key of this mapping, e.g. {@code export.iscsi.lun}. */
    String keyPath(String key) {
        return join(path, key);
    }

    Optional<Node> node(String key) {
        return Optional.ofNullable(entries.get(key)).map(NodeTuple::getValueNode);
    }

    /** The value of {@code key}; empty when absent or wrong (then the problem has been added). */
    <T> Optional<T> value(String key, ValueType<T> type) {
        return node(key).flatMap(node -> convert(key, node, type));
    }

    /** Like {@link #value} but {@code fallback} when the key is absent; empty only when the value is wrong. */
    <T> Optional<T> value(String key, ValueType<T> type, T fallback) {
        return has(key) ? value(key, type) : Optional.of(fallback);
    }

    /** Like {@link #value} but a missing key is a problem too. */
    <T> Optional<T> required(String key, ValueType<T> type) {
        if (!has(key)) {
            problems.add(0, keyPath(key), "missing; allowed: " + type.allowed());
            return Optional.empty();
        }
        return value(key, type);
    }

    /** The value of {@code key} as written, for messages; "" when absent or not a scalar. */
    String text(String key) {
        return node(key).filter(ScalarNode.class::isInstance).map(n -> ((ScalarNode) n).getValue()).orElse("");
    }

    /** Reports a problem about the value of {@code key} (at its line). */
    void problem(String key, String message) {
        NodeTuple tuple = entries.get(key);
        int line = tuple == null ? 0 : YamlSource.line(tuple.getValueNode());
        problems.add(line, keyPath(key), message);
    }

    void problem(String key, InvalidValue invalid) {
        problem(key, invalid.getMessage());
    }

    private <T> Optional<T> convert(String key, Node node, ValueType<T> type) {
        if (!(node instanceof ScalarNode scalar) || YamlSource.isEmpty(node)) {
            String what = YamlSource.isEmpty(node) ? "no value" : describe(node) + " is not " + type.noun();
            problem(key, what + "; allowed: " + type.allowed());
            return Optional.empty();
        }
        try {
            return Optional.of(type.parser().parse(scalar));
        } catch (InvalidValue e) {
            problem(key, e);
            return Optional.empty();
        }
    }

    /** How a node is named in a problem: the scalar's text, or what kind of node it is. */
    static String describe(Node node) {
        return switch (node) {
            case ScalarNode scalar when YamlSource.isEmpty(scalar) -> "an empty value";
            case ScalarNode scalar -> scalar.getValue();
            case SequenceNode ignored -> "a list";
            case MappingNode ignored -> "a map";
            default -> "this value";
        };
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }
}
