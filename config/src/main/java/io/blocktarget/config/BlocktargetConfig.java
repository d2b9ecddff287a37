package io.blocktarget.config;

import java.util.List;
import java.util.Objects;

/**
 * A whole, validated configuration: the server settings and the LUNs sorted by name.
 *
 * @param server   server-wide settings
 * @param luns     every LUN, sorted by name
 * @param warnings things that are allowed but worth telling the operator, e.g. RAM disks whose
 *                 declared sizes add up to more than the memory budget (they are thin, like brd)
 */
public record BlocktargetConfig(ServerConfig server, List<LunConfig> luns, List<String> warnings) {
    public BlocktargetConfig {
        Objects.requireNonNull(server, "server");
        luns = List.copyOf(luns);
        warnings = List.copyOf(warnings);
    }

    public BlocktargetConfig withServer(ServerConfig newServer) {
        return new BlocktargetConfig(newServer, luns, warnings);
    }
}
