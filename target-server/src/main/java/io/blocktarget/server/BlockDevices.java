package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.CountingBlockDevice;
import io.blocktarget.block.FlushDroppingBlockDevice;
import io.blocktarget.block.UncorrectableBlockDevice;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.file.UringFileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.FileBackendConfig;
import io.blocktarget.config.LunConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;

/** Maps a validated {@link LunConfig} to an open backend: the only place that knows every backend kind. */
final class BlockDevices {
    private BlockDevices() {
    }

    static BlockDevice open(LunConfig lun, MemoryBudget budget, Executor fileIoExecutor) throws IOException {
        BlockGeometry geometry = new BlockGeometry(lun.logicalBlockSize(), lun.physicalBlockSize(), lun.blockCount());
        // every backend keeps an uncorrectable-block set (NVMe Write Uncorrectable; SCSI reads see it too), and is
        // counted outermost (per-LUN metrics see every outcome, the uncorrectable reads included); the test-only
        // switch that makes flush and FUA no-ops (LinuxDurabilityIT's control run) sits right on the backend
        return CountingBlockDevice.wrap(UncorrectableBlockDevice.wrap(FlushDroppingBlockDevice.wrapIfNamed(
                switch (lun.backend()) {
            case RAM -> zoned(lun, new RamBlockDevice(lun.name(), geometry, lun.readOnly(), budget));
            case NULL -> new NullBlockDevice(lun.name(), geometry, lun.readOnly());
            case FILE -> {
                FileBackendConfig file = lun.file().orElseThrow(
                        () -> new IllegalStateException("validated file LUN without file options: " + lun.name()));
                Path parent = file.path().toAbsolutePath().getParent();
                if (file.create() && parent != null && !Files.exists(parent)) {
                    Files.createDirectories(parent); // `create: true` makes the whole path, as mkdir -p would
                }
                // O_DIRECT files and block devices submit on their event loop's io_uring where it has one
                yield UringFileBlockDevice.select(FileBlockDevice.open(lun.name(), file.path(), geometry,
                        new FileBlockDevice.Options(file.create(), file.directIo(), lun.readOnly()), fileIoExecutor),
                        file.directIo());
            }
        }, System.getProperty(FlushDroppingBlockDevice.PROPERTY))));
    }

    /** True when {@code lun} is served best on io_uring event loops: an O_DIRECT file or a block device. */
    static boolean wantsIoUring(LunConfig lun) {
        return lun.backend() == BackendKind.FILE
                && lun.file().map(f -> UringFileBlockDevice.wanted(f.path(), f.directIo())).orElse(false);
    }

    /**
     * A RAM LUN with {@code zoned:} becomes a {@link ZonedBlockDevice} over it (the config allows zones on RAM only).
     * Write granularity 1: the model is shared by SCSI and NVMe, and ZNS has no physical-block rule for writes (Linux's
     * sd keeps to the physical block on its own: zone_write_granularity); reads unrestricted (URSWRZ), which Linux's
     * sd requires of host-managed disks.
     */
    private static BlockDevice zoned(LunConfig lun, BlockDevice ram) {
        return lun.features().zoned().<BlockDevice>map(z -> {
            long lbs = lun.logicalBlockSize();
            return new ZonedBlockDevice(ram, new ZoneLayout(z.zoneSize() / lbs, z.zoneCapacity() / lbs,
                    z.conventionalZones(), z.maxOpen(), z.maxActive(), z.zoneAppendMaxBytes() / lbs, 1, true));
        }).orElse(ram);
    }
}
