package io.blocktarget.block.zoned;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.Zones;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Optional;

/**
 * A host-managed zoned device over a backend that completes inline (the RAM disk): every read, write, write-zeroes
 * and unmap is checked against its {@link Zones} before it reaches the backend, so each command of either protocol
 * that stores or reads blocks follows the zone rules without knowing them. See {@link Zones} for the rules and the
 * threading.
 *
 * <p>Unmap / deallocate: passed through (blocks read as zeros afterwards, write pointers stay) except into READ_ONLY
 * or OFFLINE zones. Resize is refused: the zone layout is fixed for the LUN's life.
 */
public final class ZonedBlockDevice extends ForwardingBlockDevice {
    private final Zones zones;

    public ZonedBlockDevice(BlockDevice media, ZoneLayout layout) {
        super(media);
        this.zones = new Zones(layout, media);
    }

    @Override
    public Optional<Zones> zones() {
        return Optional.of(zones);
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        BlockError error = zones.checkRead(lba, blockCount);
        if (error != null) {
            callback.complete(null, new BlockIoException(error, name() + ": read of " + blockCount + " blocks at LBA "
                    + lba + ": " + error));
            return;
        }
        delegate.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        zones.write(lba, data, fua, callback);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        zones.writeZeroes(lba, blockCount, callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        for (BlockRange range : ranges) {
            BlockError error = writableOrNull(range.lba(), range.count());
            if (error != null) {
                callback.complete(null, new BlockIoException(error, name() + ": unmap of " + range + ": " + error));
                return;
            }
        }
        delegate.unmap(ranges, callback);
    }

    private BlockError writableOrNull(long lba, long count) {
        if (count <= 0 || lba < 0 || lba >= zones.blockCount() || count > zones.blockCount() - lba) {
            return null;   // the backend refuses it
        }
        int last = zones.zoneIndex(lba + count - 1);
        for (int i = zones.zoneIndex(lba); i <= last; i++) {
            ZoneCondition c = zones.zone(i).condition();
            if (c == ZoneCondition.READ_ONLY) {
                return BlockError.ZONE_READ_ONLY;
            }
            if (c == ZoneCondition.OFFLINE) {
                return BlockError.ZONE_OFFLINE;
            }
        }
        return null;
    }

    @Override
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH,
                name() + ": a zoned LUN cannot be resized (its zone layout is fixed)"));
    }
}
