package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Optional;

/**
 * A device whose {@link UncorrectableBlocks} read as unrecoverable media errors (READ_ERROR: NVMe Unrecovered Read
 * Error, SCSI MEDIUM ERROR / UNRECOVERED READ ERROR) until a successful write, write zeroes or deallocate covers
 * them (NVM Command Set §3.2.7: Write Uncorrectable marks blocks invalid "until the logical block is rewritten").
 * Both command sets see the same state because it lives on the device. While no block is marked every operation
 * goes straight to the backend: one volatile read, no allocation.
 */
public final class UncorrectableBlockDevice extends ForwardingBlockDevice {
    private final UncorrectableBlocks blocks = new UncorrectableBlocks();

    private UncorrectableBlockDevice(BlockDevice backend) {
        super(backend);
    }

    /** {@code device} with an uncorrectable-block set (itself when it already has one). */
    public static BlockDevice wrap(BlockDevice device) {
        return device.uncorrectableBlocks().isPresent() ? device : new UncorrectableBlockDevice(device);
    }

    @Override
    public Optional<UncorrectableBlocks> uncorrectableBlocks() {
        return Optional.of(blocks);
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        if (!blocks.isEmpty()) {
            long bad = blocks.firstIn(lba, blockCount);
            // an out-of-range request keeps the backend's answer (LBA_OUT_OF_RANGE / INVALID_LENGTH)
            if (bad >= 0 && BlockChecks.checkRead(geometry(), lba, blockCount) == null) {
                callback.complete(null, new BlockIoException(BlockError.READ_ERROR,
                        "unrecovered read error at LBA " + bad + " (marked uncorrectable)"));
                return;
            }
        }
        delegate.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            delegate.write(lba, data, fua, callback);
            return;
        }
        long count = data.readableBytes() >>> geometry().logicalBlockShift();
        delegate.write(lba, data, fua, clearing(lba, count, callback));
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            delegate.writeAtomic(lba, data, fua, callback);
            return;
        }
        long count = data.readableBytes() >>> geometry().logicalBlockShift();
        delegate.writeAtomic(lba, data, fua, clearing(lba, count, callback));
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            delegate.unmap(ranges, callback);
            return;
        }
        delegate.unmap(ranges, (result, failure) -> {
            if (failure == null) {
                ranges.forEach(r -> blocks.clear(r.lba(), r.count()));
            }
            callback.complete(result, failure);
        });
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            delegate.writeZeroes(lba, blockCount, callback);
            return;
        }
        delegate.writeZeroes(lba, blockCount, clearing(lba, blockCount, callback));
    }

    private IoCallback<Void> clearing(long lba, long count, IoCallback<Void> callback) {
        return (result, failure) -> {
            if (failure == null) {
                blocks.clear(lba, count);
            }
            callback.complete(result, failure);
        };
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
