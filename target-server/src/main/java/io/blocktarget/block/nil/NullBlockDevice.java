package io.blocktarget.block.nil;

import io.blocktarget.block.BlockChecks;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ZeroBuffers;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Like Linux null_blk: reads return zeros (slices of the shared zero region, nothing allocated
 * but the slice objects), writes are discarded. Ranges, lengths and read-only are still checked, so
 * the command layers and transports can be measured and tested without a medium. Completes inline.
 */
public final class NullBlockDevice implements BlockDevice {
    private enum State { OPEN, CLOSED }

    private final String name;
    private final BlockGeometry geometry;
    private final boolean readOnly;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    public NullBlockDevice(String name, BlockGeometry geometry, boolean readOnly) {
        this.name = Objects.requireNonNull(name, "name");
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        this.readOnly = readOnly;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public BlockGeometry geometry() {
        return geometry;
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        BlockIoException failure = BlockChecks.checkRead(geometry, lba, blockCount);
        if (failure == null) {
            failure = open();
        }
        if (failure != null) {
            callback.complete(null, failure);
        } else {
            callback.complete(ZeroBuffers.zeros(blockCount << geometry.logicalBlockShift()), null);
        }
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        BlockIoException failure = BlockChecks.checkWrite(geometry, lba, data);
        callback.complete(null, failure != null ? failure : writable());
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        callback.complete(null, open());
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        BlockIoException failure = BlockChecks.checkRanges(geometry, ranges);
        callback.complete(null, failure != null ? failure : writable());
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        BlockIoException failure = BlockChecks.checkRange(geometry, lba, blockCount);
        callback.complete(null, failure != null ? failure : writable());
    }

    @Override
    public void close() {
        state.set(State.CLOSED);
    }

    private BlockIoException open() {
        return state.get() == State.CLOSED ? BlockChecks.closed(name) : null;
    }

    private BlockIoException writable() {
        return readOnly ? BlockChecks.writeProtected(name) : open();
    }
}
