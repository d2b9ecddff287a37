package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link BlockDevice} that passes every operation to the device it wraps. Decorators (per-LUN counting,
 * uncorrectable blocks, test devices) extend it and override only what they change, so an SPI method added later
 * (as {@link #resize}, {@link #allocatedBytes} and {@link #uncorrectableBlocks} were) reaches the backend through
 * every decorator instead of falling to the interface's default.
 */
public abstract class ForwardingBlockDevice implements BlockDevice {
    protected final BlockDevice delegate;
    /** The device at the bottom of the decorator chain: the one whose geometry every decorator reports. */
    private final BlockDevice innermost;

    protected ForwardingBlockDevice(BlockDevice delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.innermost = delegate instanceof ForwardingBlockDevice f ? f.innermost : delegate;
    }

    /** The device this one wraps. */
    public BlockDevice delegate() {
        return delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    /**
     * The backend's geometry, asked of it directly: no decorator changes it (final here), and the I/O path asks for it
     * two or three times per command, each a chain of megamorphic calls through every decorator when forwarded.
     */
    @Override
    public final BlockGeometry geometry() {
        return innermost.geometry();
    }

    @Override
    public boolean readOnly() {
        return delegate.readOnly();
    }

    @Override
    public boolean volatileWriteCache() {
        return delegate.volatileWriteCache();
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        delegate.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        delegate.write(lba, data, fua, callback);
    }

    @Override
    public int atomicUnitBlocks() {
        return delegate.atomicUnitBlocks();
    }

    @Override
    public int powerFailAtomicUnitBlocks() {
        return delegate.powerFailAtomicUnitBlocks();
    }

    @Override
    public int atomicWriteGranule() {
        return delegate.atomicWriteGranule();
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        delegate.writeAtomic(lba, data, fua, callback);
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        delegate.flush(callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        delegate.unmap(ranges, callback);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        delegate.writeZeroes(lba, blockCount, callback);
    }

    @Override
    public Optional<UncorrectableBlocks> uncorrectableBlocks() {
        return delegate.uncorrectableBlocks();
    }

    @Override
    public Optional<Zones> zones() {
        return delegate.zones();
    }

    @Override
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        delegate.resize(newBlockCount, callback);
    }

    @Override
    public ProvisioningRun provisioning(long lba, long maxBlocks) {
        return delegate.provisioning(lba, maxBlocks);
    }

    @Override
    public long allocatedBytes() {
        return delegate.allocatedBytes();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
