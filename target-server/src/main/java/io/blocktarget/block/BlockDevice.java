package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * The protocol-neutral block device SPI that the SCSI and NVMe command sets run on (DESIGN.md §2).
 *
 * <p>Every operation validates its LBA range against {@link #geometry()} overflow-safely and
 * completes exactly once through its {@link IoCallback} (see there for threading). Operations never
 * throw for I/O outcomes; they throw only for programming errors (null arguments).
 *
 * <p>Buffer ownership: {@link #read} hands the receiver a buffer it must release. {@link #write}
 * does not take ownership of {@code data}: the caller keeps it alive (does not release it) until the
 * callback has run, and releases it afterwards.
 */
public interface BlockDevice extends AutoCloseable {

    /** The LUN name, for logs. */
    String name();

    BlockGeometry geometry();

    boolean readOnly();

    /**
     * True when completed writes may sit in a volatile cache until {@link #flush} (the file backend's
     * page cache): SCSI reports WCE = 1 in the caching mode page and NVMe VWC present, so initiators
     * send SYNCHRONIZE CACHE / Flush. RAM and null devices have nothing to flush.
     */
    default boolean volatileWriteCache() {
        return false;
    }

    /**
     * Reads {@code blockCount} logical blocks starting at {@code lba}. On success the buffer holds
     * exactly {@code blockCount * logicalBlockSize} readable bytes; it may be a composite of slices
     * of backend memory (no copy) and is owned by the receiver. Fails with LBA_OUT_OF_RANGE or
     * INVALID_LENGTH (more than 2^31-1 bytes) or READ_ERROR.
     */
    void read(long lba, int blockCount, IoCallback<ByteBuf> callback);

    /**
     * Writes {@code data.readableBytes()} bytes (a positive multiple of the logical block size)
     * starting at {@code lba}. The reader index of {@code data} is not changed. With {@code fua}
     * the data is durable (as after {@link #flush}) before completion. Fails with LBA_OUT_OF_RANGE,
     * INVALID_LENGTH, WRITE_PROTECTED, OUT_OF_SPACE or WRITE_ERROR.
     */
    void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback);

    /**
     * The write atomicity every plain {@link #write} (and unmap / write zeroes) of this backend has, in logical blocks:
     * a write that lies within one aligned unit of this many blocks is applied all or nothing with respect to
     * concurrent reads and writes of any thread and either protocol — a read sees none or all of it, and two such
     * writes of the same blocks never mix (NVM Command Set §2.1.4.1; what NVMe's NAWUN / NABSN claim). At least 1:
     * every backend applies one logical block whole (AWUN / NAWUN are 0's based: a single-block write is always
     * atomic). The backends give the physical block: RAM by never changing memory a reader holds, file by ordering
     * overlapping I/O, null trivially.
     */
    default int atomicUnitBlocks() {
        return 1;
    }

    /**
     * As {@link #atomicUnitBlocks()}, across a power loss or a crash of the server (NAWUPF / NABSPF): a unit is then
     * found all old or all new. A RAM disk keeps nothing across either, so it claims as much as {@link
     * #atomicUnitBlocks()}; a file keeps what the kernel wrote back, page by page, so it claims 1. Linux takes this
     * one for NVMe's {@code physical_block_size} (nvme_update_disk_info caps it at the power-fail atomic unit).
     */
    default int powerFailAtomicUnitBlocks() {
        return 1;
    }

    /**
     * Logical blocks an atomic write ({@link #writeAtomic}) must hold exclusively around its range: the command sets
     * round the range lock of an atomic write out to multiples of it, so no other write, unmap or write zeroes of
     * the same allocation unit runs while the unit is replaced. 0 (the default): this backend cannot apply a write
     * all or nothing, and a LUN configuration asking for atomic writes on it is refused at load.
     */
    default int atomicWriteGranule() {
        return 0;
    }

    /**
     * Like {@link #write}, but all or nothing: a concurrent {@link #read} of any overlapping range (any thread,
     * either protocol) returns either none or all of {@code data}, and a failed atomic write leaves the blocks as they
     * were (SBC-4 §4.29 atomic writes; NVM Command Set §2.1.4 atomic operations). The caller holds the range lock
     * exclusively over the range rounded out to {@link #atomicWriteGranule()}. Decorators that change writes (a
     * torn-write fault) must leave this path whole. Backends with granule 0 fail it with INVALID_LENGTH.
     */
    default void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH,
                name() + ": this backend cannot apply a write all or nothing"));
    }

    /** Makes every completed write durable (file: fsync). */
    void flush(IoCallback<Void> callback);

    /**
     * Deallocates the ranges; afterwards they read as zeros. Memory / file space is released where
     * whole allocation units are covered, partial units are zeroed. All ranges are checked before
     * any is applied.
     */
    void unmap(List<BlockRange> ranges, IoCallback<Void> callback);

    /** Writes zeros to {@code [lba, lba + blockCount)}; may deallocate (reads return zeros either way). */
    void writeZeroes(long lba, long blockCount, IoCallback<Void> callback);

    /**
     * The blocks of this device marked unreadable until rewritten (NVMe Write Uncorrectable), when the device keeps
     * such a set ({@link UncorrectableBlockDevice}); decorators forward it. Empty: the fault is not offered.
     */
    default java.util.Optional<UncorrectableBlocks> uncorrectableBlocks() {
        return java.util.Optional.empty();
    }

    /**
     * The zone state of a host-managed zoned device (the zoned backend, block.zoned); decorators forward it.
     * Empty: a conventional device, and neither command set pays anything for zones.
     */
    default java.util.Optional<Zones> zones() {
        return java.util.Optional.empty();
    }

    /**
     * Changes the capacity to {@code newBlockCount} logical blocks (block size unchanged); {@link #geometry()} reports
     * the new count once the callback has run, and commands range-check against it from then on. Growing exposes
     * blocks that read as zeros; shrinking discards the blocks past the new end (RAM: their memory returns to the
     * budget). Fails with INVALID_LENGTH when the count is out of range or the backend cannot take the size, and
     * WRITE_ERROR when the medium refuses. Backends that cannot resize fail every call.
     */
    default void resize(long newBlockCount, IoCallback<Void> callback) {
        callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH, name() + ": this backend cannot be resized"));
    }

    /**
     * The provisioning state of the blocks from {@code lba}: the run of blocks starting there that share it, at most
     * {@code maxBlocks} long. {@code [lba, lba + maxBlocks)} lies within the device (the caller checked). The default,
     * for a backend that cannot tell, is one mapped run: SBC-4's "mapped or unknown" (PROVISIONING STATUS 0h).
     * Deallocation follows the backend's allocation unit (RAM: a chunk), so a block unmapped alone may stay mapped.
     */
    default ProvisioningRun provisioning(long lba, long maxBlocks) {
        return new ProvisioningRun(true, maxBlocks);
    }

    /** Backend memory or file space this device holds now, in bytes (RAM: chunks allocated); 0 when unknown. */
    default long allocatedBytes() {
        return 0;
    }

    /** Flushes (file backend) and releases resources; pending operations fail with CLOSED. */
    @Override
    void close();
}
