package io.blocktarget.block.fault;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.IoKind;
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
}
