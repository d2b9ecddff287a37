package io.blocktarget.block.fault;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.Zones;
import io.netty.buffer.ByteBuf;

/**
 * The backend outcomes of fault rules (DESIGN §10), the ones that need the data: a read returning one flipped bit,
 * a write of which only a prefix persists. Both command sets see them because they live on the device. While the LUN
 * has no device-level rule every operation goes straight through: one volatile read.
 *
 * <p>The flipped bit is in a copy: a read may hand out slices of the backend's memory, which must not change.
 */
public final class FaultBlockDevice extends ForwardingBlockDevice {
    private final LunFaults faults;

    private FaultBlockDevice(BlockDevice device, LunFaults faults) {
        super(device);
        this.faults = faults;
    }

    /** {@code device} applying {@code faults} (itself when it already does). */
    public static BlockDevice wrap(BlockDevice device, LunFaults faults) {
        return device instanceof FaultBlockDevice f && f.faults == faults ? device : new FaultBlockDevice(device, faults);
    }

    public LunFaults faults() {
        return faults;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        FaultHit hit = faults.deviceRules() ? faults.device(FaultCommand.device(IoKind.READ, lba, blockCount)) : null;
        if (hit == null || !(hit.action() instanceof FaultAction.CorruptRead)) {
            delegate.read(lba, blockCount, callback);
            return;
        }
        int lbs = geometry().logicalBlockSize();
        delegate.read(lba, blockCount, (data, failure) -> {
            if (failure != null) {
                callback.complete(null, failure);
                return;
            }
            ByteBuf copy;
            try {
                copy = data.copy();
            } finally {
                data.release();
            }
            // the middle of the first block inside the range: past any header a verifier writes at the start
            int at = copy.readerIndex() + (int) ((hit.firstLba() - lba) * lbs) + lbs / 2;
            copy.setByte(at, copy.getByte(at) ^ 0x01);
            callback.complete(copy, null);
        });
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        FaultHit hit = faults.deviceRules()
                ? faults.device(FaultCommand.device(IoKind.WRITE, lba, data.readableBytes() >>> geometry().logicalBlockShift()))
                : null;
        if (hit == null || !(hit.action() instanceof FaultAction.TornWrite torn)) {
            delegate.write(lba, data, fua, callback);
            return;
        }
        long blocks = data.readableBytes() >>> geometry().logicalBlockShift();
        long persist = torn.persistBlocks() == 0 ? blocks / 2 : Math.min(torn.persistBlocks(), blocks - 1);
        BlockIoException torn_ = new BlockIoException(BlockError.WRITE_ERROR,
                "torn write: " + persist + " of " + blocks + " blocks at LBA " + lba + " persisted (fault rule "
                        + hit.rule().rule().id() + ")");
        if (persist <= 0) {
            callback.complete(null, torn_);
            return;
        }
        ByteBuf prefix = data.slice(data.readerIndex(), (int) (persist << geometry().logicalBlockShift()));
        delegate.write(lba, prefix, fua, (ok, failure) -> callback.complete(null, failure != null ? failure : torn_));
    }

    /**
     * Zone Append (ZNS §3.4.1) of the zone {@code zoneIndex} of {@code zones} (this device's), under the device rules
     * of kind {@code zone-append}: an append does not pass {@link #write} (it lands at the write pointer, which only
     * {@link Zones} knows), so the command set hands it here. A torn-write rule appends a prefix (the write pointer
     * moves past it, as on a device that lost power mid-command) and fails with WRITE_ERROR; the rule is matched on
     * the blocks the command names from the zone's start LBA.
     */
    public void append(Zones zones, int zoneIndex, ByteBuf data, boolean fua, IoCallback<Long> callback) {
        long blocks = data.readableBytes() >>> geometry().logicalBlockShift();
        long zslba = zones.zone(zoneIndex).start();
        FaultHit hit = faults.deviceRules() ? faults.device(FaultCommand.device(IoKind.ZONE_APPEND, zslba, blocks))
                : null;
        if (hit == null || !(hit.action() instanceof FaultAction.TornWrite torn) || blocks == 0) {
            zones.append(zoneIndex, data, fua, callback);
            return;
        }
        long persist = torn.persistBlocks() == 0 ? blocks / 2 : Math.min(torn.persistBlocks(), blocks - 1);
        if (persist <= 0) {
            callback.complete(null, new BlockIoException(BlockError.WRITE_ERROR, "torn zone append: 0 of " + blocks
                    + " blocks appended to the zone at LBA " + zslba + " (fault rule " + hit.rule().rule().id() + ")"));
            return;
        }
        ByteBuf prefix = data.slice(data.readerIndex(), (int) (persist << geometry().logicalBlockShift()));
        zones.append(zoneIndex, prefix, fua, (lba, failure) -> callback.complete(null, failure != null ? failure
                : new BlockIoException(BlockError.WRITE_ERROR, "torn zone append: " + persist + " of " + blocks
                        + " blocks appended at LBA " + lba + " (fault rule " + hit.rule().rule().id() + ")")));
    }
}
