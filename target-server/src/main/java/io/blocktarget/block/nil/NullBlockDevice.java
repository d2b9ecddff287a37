package io.blocktarget.block.nil;

import io.blocktarget.block.AbstractBlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ZeroBuffers;
import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Like Linux null_blk: reads return zeros (slices of the shared zero region, nothing allocated
 * but the slice objects), writes are discarded. Ranges, lengths and read-only are still checked, so
 * the command layers and transports can be measured and tested without a medium. Completes inline.
 */
public final class NullBlockDevice extends AbstractBlockDevice {
    public NullBlockDevice(String name, BlockGeometry geometry, boolean readOnly) {
        super(name, geometry, readOnly);
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        BlockIoException failure = checkReadRequest(lba, blockCount);
        if (failure != null) {
            callback.complete(null, failure);
        } else {
            callback.complete(ZeroBuffers.zeros(blockCount << geometry().logicalBlockShift()), null);
        }
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        callback.complete(null, checkWriteRequest(lba, data));
    }

    /** Nothing is stored: every write is all or nothing, so the physical block is (as every other unit would be). */
    @Override
    public int atomicUnitBlocks() {
        return geometry().logicalBlocksPerPhysicalBlock();
    }

    @Override
    public int powerFailAtomicUnitBlocks() {
        return atomicUnitBlocks();
    }

    /** Nothing is stored, so every write is trivially all or nothing (reads are zeros before and after). */
    @Override
    public int atomicWriteGranule() {
        return 1;
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        write(lba, data, fua, callback);
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        callback.complete(null, checkOpen());
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        callback.complete(null, checkUnmapRequest(ranges));
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        callback.complete(null, checkWriteZeroesRequest(lba, blockCount));
    }

    /** Nothing is stored: the new count is all there is to change. Completes inline. */
    @Override
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        BlockIoException failure = checkResize(newBlockCount);
        if (failure == null) {
            publishBlockCount(newBlockCount);
        }
        callback.complete(null, failure);
    }

    @Override
    public void close() {
        transitionToClosed();
    }
}
