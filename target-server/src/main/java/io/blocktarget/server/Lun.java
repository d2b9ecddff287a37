package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.LunState;
import io.blocktarget.config.LunConfig;

import java.util.Objects;

/**
 * A configured LUN, the open block device behind it and the device state both command sets share; what the transports
 * export.
 */
public record Lun(LunConfig config, BlockDevice device, LunState state) {
    public Lun {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(state, "state");
    }

    public String name() {
        return config.name();
    }
}
