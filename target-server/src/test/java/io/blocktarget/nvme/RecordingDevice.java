package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real RAM device that claims a volatile write cache (as the file backend does) and records which
 * operations reached it, so tests can see FUA and flushes the NVMe layer issues.
 */
final class RecordingDevice implements BlockDevice {
    final List<String> operations = new CopyOnWriteArrayList<>();
    private final BlockDevice delegate;

    RecordingDevice(BlockDevice delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public BlockGeometry geometry() {
        return delegate.geometry();
    }

    @Override
    public boolean readOnly() {
        return delegate.readOnly();
    }

    @Override
    public boolean volatileWriteCache() {
        return true;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        operations.add("read " + lba + "+" + blockCount);
        delegate.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        operations.add("write " + lba + (fua ? " fua" : ""));
        delegate.write(lba, data, fua, callback);
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        operations.add("flush");
        delegate.flush(callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        operations.add("unmap " + ranges);
        delegate.unmap(ranges, callback);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        operations.add("writeZeroes " + lba + "+" + blockCount);
        delegate.writeZeroes(lba, blockCount, callback);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
