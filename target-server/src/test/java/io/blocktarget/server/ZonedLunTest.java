package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.Io;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A LUN file's {@code zoned:} section becomes a zoned device with the layout in logical blocks. */
class ZonedLunTest {
    private static final ServerConfig SERVER = ConfigLoader.embeddedDefault().server();

    private static BlockDevice open(String yaml) throws Exception {
        LunConfig lun = ConfigLoader.readLun("z", yaml, Optional.empty(), SERVER, List.of());
        return BlockDevices.open(lun, new MemoryBudget(1L << 30), Runnable::run);
    }

    @Test
    void zonedSectionMakesAZonedDevice() throws Exception {
        try (BlockDevice d = open("""
                backend: ram
                size: 256MiB
                logical-block-size: 16KiB
                export: { nvme: false }
                zoned:
                  zone-size: 16MiB
                  zone-capacity: 12MiB
                  conventional-zones: 1
                  max-open: 4
                  max-active: 6
                  zone-append-max-bytes: 1MiB
                """)) {
            assertThat(d.zones()).isPresent();
            assertThat(d.zones().get().layout()).isEqualTo(new ZoneLayout(1024, 768, 1, 4, 6, 64, 1, true));
            assertThat(d.zones().get().zoneCount()).isEqualTo(16);
            // the decorator is in the chain the command sets see (behind counting and uncorrectable blocks)
            Io.write(d, 1024, new byte[16384]);
            assertThat(Io.<Void>failureOf(cb -> d.write(1024, io.netty.buffer.Unpooled.wrappedBuffer(new byte[16384]),
                    false, cb))).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);
        }
    }

    @Test
    void withoutTheSectionTheDeviceIsNotZoned() throws Exception {
        try (BlockDevice d = open("backend: ram\nsize: 16MiB\n")) {
            assertThat(d.zones()).isEmpty();
        }
    }
}
