package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Objects;

/**
 * A {@link BlockDevice} that counts what its delegate does into the LUN's {@link LunStats} (DESIGN §10: per-LUN
 * metrics). Wrapped around every backend where the server opens it; everything else passes straight through.
 * Per operation: one {@code nanoTime} at submission and one at completion, a few plain adds into the completing
 * thread's shard ({@link ShardedCounters}), and the completion wrapper.
 */
public final class CountingBlockDevice extends ForwardingBlockDevice {
    private final LunStats stats;
    private boolean released; // guarded by this; close() may be called more than once

    private CountingBlockDevice(BlockDevice delegate, LunStats stats) {
        super(delegate);
        this.stats = stats;
    }

    /** Wraps {@code device}, counting into the stats of its LUN ({@link BlockDevice#name()}). */
    public static CountingBlockDevice wrap(BlockDevice device) {
        Objects.requireNonNull(device, "device");
        return new CountingBlockDevice(device, LunStats.acquire(device.name()));
    }

    public LunStats stats() {
        return stats;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        long start = System.nanoTime();
        long bytes = (long) blockCount * delegate.geometry().logicalBlockSize();
        delegate.read(lba, blockCount, (result, failure) -> {
            stats.record(LunStats.Op.READ, bytes, start, failure);
            callback.complete(result, failure);
        });
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        long start = System.nanoTime();
        long bytes = data.readableBytes();
        delegate.write(lba, data, fua, (result, failure) -> {
            stats.record(LunStats.Op.WRITE, bytes, start, failure);
            callback.complete(result, failure);
        });
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        long start = System.nanoTime();
        long bytes = data.readableBytes();
        delegate.writeAtomic(lba, data, fua, (result, failure) -> {
            stats.record(LunStats.Op.WRITE, bytes, start, failure);
            callback.complete(result, failure);
        });
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        long start = System.nanoTime();
        delegate.flush((result, failure) -> {
            stats.record(LunStats.Op.FLUSH, 0, start, failure);
            callback.complete(result, failure);
        });
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        long start = System.nanoTime();
        delegate.unmap(ranges, (result, failure) -> {
            stats.record(LunStats.Op.UNMAP, 0, start, failure);
            callback.complete(result, failure);
        });
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        long start = System.nanoTime();
        delegate.writeZeroes(lba, blockCount, (result, failure) -> {
            stats.record(LunStats.Op.WRITE_ZEROES, 0, start, failure);
            callback.complete(result, failure);
        });
    }

    /** Closes the backend and gives up this device's hold on the LUN's stats (once, however often called). */
    @Override
    public void close() {
        try {
            delegate.close();
        } finally {
            releaseOnce();
        }
    }

    private synchronized void releaseOnce() {
        if (!released) {
            released = true;
            stats.release();
        }
    }

    @Override
    public String toString() {
        return "Counting[" + delegate + "]";
    }
}
