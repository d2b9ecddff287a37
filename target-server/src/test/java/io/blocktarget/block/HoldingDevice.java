package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * A device whose reads complete only when the test says so ({@link #releaseAll}): a command held in flight without
 * sleeps, to test draining. Everything else goes straight to the wrapped device.
 */
public final class HoldingDevice implements BlockDevice {
    private final BlockDevice inner;
    private final List<Runnable> held = new ArrayList<>();

    public HoldingDevice(BlockDevice inner) {
        this.inner = inner;
    }

    /** Reads waiting for {@link #releaseAll}. */
    public synchronized int heldCount() {
        return held.size();
    }

    /** Completes every held read, in order. */
    public void releaseAll() {
        List<Runnable> now;
        synchronized (this) {
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(Runnable::run);
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public BlockGeometry geometry() {
        return inner.geometry();
    }

    @Override
    public boolean readOnly() {
        return inner.readOnly();
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        inner.read(lba, blockCount, (data, failure) -> {
            synchronized (this) {
                held.add(() -> callback.complete(data, failure));
            }
        });
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        inner.write(lba, data, fua, callback);
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        inner.flush(callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        inner.unmap(ranges, callback);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        inner.writeZeroes(lba, blockCount, callback);
    }

    @Override
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        inner.resize(newBlockCount, callback);
    }

    @Override
    public void close() {
        inner.close();
    }
}
