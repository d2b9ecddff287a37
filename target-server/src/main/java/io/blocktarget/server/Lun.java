package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.config.LunConfig;

import java.util.Objects;

/** A configured LUN and the open block device behind it; what the transports export. */
public record Lun(LunConfig config, BlockDevice device) {
    public Lun {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(device, "device");
    }

    public String name() {
        return config.name();
    }
}
