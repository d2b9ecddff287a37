package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A device whose {@link UncorrectableBlocks} read as unrecoverable media errors (READ_ERROR: NVMe Unrecovered Read
 * Error, SCSI MEDIUM ERROR / UNRECOVERED READ ERROR) until a successful write, write zeroes or deallocate covers
 * them (NVM Command Set §3.2.7: Write Uncorrectable marks blocks invalid "until the logical block is rewritten").
 * Both command sets see the same state because it lives on the device. While no block is marked every operation
 * goes straight to the backend: one volatile read, no allocation.
 */
public final class UncorrectableBlockDevice implements BlockDevice {
    private final BlockDevice backend;
    private final UncorrectableBlocks blocks = new UncorrectableBlocks();

    private UncorrectableBlockDevice(BlockDevice backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
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
    public String name() {
        return backend.name();
    }

    @Override
    public BlockGeometry geometry() {
        return backend.geometry();
    }

    @Override
    public boolean readOnly() {
        return backend.readOnly();
    }

    @Override
    public boolean volatileWriteCache() {
        return backend.volatileWriteCache();
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
        backend.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            backend.write(lba, data, fua, callback);
            return;
        }
        long count = data.readableBytes() >>> geometry().logicalBlockShift();
        backend.write(lba, data, fua, clearing(lba, count, callback));
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        backend.flush(callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            backend.unmap(ranges, callback);
            return;
        }
        backend.unmap(ranges, (result, failure) -> {
            if (failure == null) {
                ranges.forEach(r -> blocks.clear(r.lba(), r.count()));
            }
            callback.complete(result, failure);
        });
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        if (blocks.isEmpty()) {
            backend.writeZeroes(lba, blockCount, callback);
            return;
        }
        backend.writeZeroes(lba, blockCount, clearing(lba, blockCount, callback));
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
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        backend.resize(newBlockCount, callback);
    }

    @Override
    public long allocatedBytes() {
        return backend.allocatedBytes();
    }

    @Override
    public void close() {
        backend.close();
    }

    @Override
    public String toString() {
        return backend.toString();
    }
}
