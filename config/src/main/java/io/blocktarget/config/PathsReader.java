package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * {@code paths:} of a LUN file ({@link LunKeys#PATHS}): each key a portal of {@code blocktarget.yaml}, each value a
 * {@link PathState}; each portal once.
 */
final class PathsReader {
    private PathsReader() {
    }

    /** @param portals the server's portal names ({@link ServerConfig#portalNames()}) */
    static Map<String, PathState> read(YamlMap lun, List<String> portals, Problems problems) {
        Optional<Node> node = lun.node(LunKeys.PATHS);
        if (node.isEmpty()) {
            return Map.of();
        }
        String path = lun.keyPath(LunKeys.PATHS);
        String names = String.join(", ", portals);
        if (!(node.get() instanceof MappingNode mapping)) {
            lun.problem(LunKeys.PATHS, YamlMap.describe(node.get()) + " is not " + LunKeys.PATHS.noun() + "; allowed:"
                    + " a map of portal (" + names + ") to " + PathState.ALLOWED);
            return Map.of();
        }
        Map<String, PathState> paths = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            int line = YamlSource.line(tuple.getKeyNode());
            if (!(tuple.getKeyNode() instanceof ScalarNode key) || YamlSource.isEmpty(key)) {
                problems.add(line, path, YamlMap.describe(tuple.getKeyNode()) + " is not a portal; allowed: " + names);
                continue;
            }
            String portal = key.getValue();
            String keyPath = path + "." + portal;
            if (!portals.contains(portal)) {
                problems.add(line, keyPath, portal + " is not a portal of blocktarget.yaml" + KeyPaths.hint(portal,
                        portals).map(h -> "; did you mean `" + h + "`?").orElse(";") + " allowed: " + names);
                continue;
            }
            if (lines.containsKey(portal)) {
                problems.add(line, keyPath, "given twice (first on line " + lines.get(portal) + "); allowed: each"
                        + " portal once");
                continue;
            }
            lines.put(portal, line);
            Node value = tuple.getValueNode();
            int valueLine = YamlSource.line(value);
            if (!(value instanceof ScalarNode scalar) || YamlSource.isEmpty(value)) {
                problems.add(valueLine, keyPath, (YamlSource.isEmpty(value) ? "no value" : YamlMap.describe(value)
                        + " is not a path state") + "; allowed: " + PathState.ALLOWED);
                continue;
            }
            Optional<PathState> state = PathState.of(scalar.getValue());
            if (state.isEmpty()) {
                problems.add(valueLine, keyPath, scalar.getValue() + " is not a path state; allowed: "
                        + PathState.ALLOWED);
                continue;
            }
            paths.put(portal, state.get());
        }
        return paths;
    }

    /** {@code paths:} as written back: every entry, portal: state. */
    static Map<String, Object> document(Map<String, PathState> paths) {
        Map<String, Object> doc = new LinkedHashMap<>();
        paths.forEach((portal, state) -> doc.put(portal, state.word()));
        return doc;
    }
}
