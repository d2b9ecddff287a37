package io.blocktarget.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

/**
 * Validated server settings as the document of a {@code blocktarget.yaml}: the inverse of the reader, keys from
 * {@link ServerKeys}. Reading what it writes (from the same directory) yields equal settings; paths are written
 * absolute.
 */
public final class ServerWriter {
    private ServerWriter() {
    }

    /** The keys whose value is not the default, in the declaration's order. */
    public static Map<String, Object> document(ServerConfig server) {
        return document(server, false);
    }

    /** The YAML text of {@link #document}. */
    public static String yaml(ServerConfig server) {
        DumpSettings settings = DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build();
        return new Dump(settings).dumpToString(document(server));
    }

    /** @param all every key, defaults too (what {@link ConfigDiff#server} compares) */
    static Map<String, Object> document(ServerConfig server, boolean all) {
        Map<String, Object> doc = new LinkedHashMap<>();
        put(doc, all, ServerKeys.BIND, server.bindAddress());
        if (all || server.portals().isEmpty()) {   // portals: replaces them (the reader refuses both)
            put(doc, all, ServerKeys.ISCSI_PORT, (long) server.iscsiPort());
            put(doc, all, ServerKeys.NVME_PORT, (long) server.nvmePort());
        }
        put(doc, all, ServerKeys.DISCOVERY_PORT, (long) server.discoveryPort());
        if (all || server.memoryBudget() != ConfigLoader.defaultMemoryBudget()) {
            doc.put(ServerKeys.MEMORY_BUDGET.name(), Sizes.exact(server.memoryBudget()));
        }
        put(doc, all, ServerKeys.IQN_PREFIX, server.iqnPrefix());
        put(doc, all, ServerKeys.NQN_PREFIX, server.nqnPrefix());
        put(doc, all, ServerKeys.EVENT_LOOPS, (long) server.eventLoops());
        put(doc, all, ServerKeys.POLL, server.poll());
        if (all || server.pollWindowNanos() != ServerKeys.POLL_WINDOW.defaultValue().orElseThrow()) {
            doc.put(ServerKeys.POLL_WINDOW.name(), server.pollWindowNanos() == ServerConfig.POLL_WINDOW_AUTO
                    ? ServerKeys.POLL_WINDOW_AUTO : FaultReader.formatDuration(server.pollWindowNanos()));
        }
        ControlConfig control = server.control();
        if (all || !control.socket().equals(ControlConfig.defaults().socket())) {
            doc.put(ServerKeys.CONTROL_SOCKET.name(), control.socket().map(Path::toString)
                    .orElse(ServerConfigReader.SOCKET_OFF));
        }
        control.listen().ifPresent(l -> doc.put(ServerKeys.CONTROL_LISTEN.name(), l.toString()));
        control.tokenFile().ifPresent(f -> doc.put(ServerKeys.CONTROL_TOKEN_FILE.name(), f.toString()));
        server.discoveryChap().ifPresent(chap -> doc.put(ServerKeys.DISCOVERY_CHAP.name(),
                LunWriter.chap(chap, ServerKeys.DISCOVERY_CHAP.name(), all)));
        if (!server.portals().isEmpty()) {
            doc.put(ServerKeys.PORTALS.name(), server.portals().stream().map(p -> {
                Map<String, Object> portal = new LinkedHashMap<>();
                portal.put(ServerKeys.PORTAL_NAME.name(), p.name());
                portal.put(ServerKeys.PORTAL_ADDRESS.name(), p.address());
                portal.put(ServerKeys.PORTAL_ISCSI_PORT.name(), p.iscsiPort());
                portal.put(ServerKeys.PORTAL_NVME_PORT.name(), p.nvmePort());
                return portal;
            }).toList());
        }
        return doc;
    }

    private static <T> void put(Map<String, Object> doc, boolean all, Key<T> key, T value) {
        if (all || !key.defaultValue().map(value::equals).orElse(false)) {
            doc.put(key.name(), value instanceof Long l && l <= Integer.MAX_VALUE ? (Object) l.intValue() : value);
        }
    }
}
