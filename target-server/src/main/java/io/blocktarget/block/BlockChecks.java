package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * The range and length checks every backend applies before touching data, in one place so the SCSI
 * and NVMe layers see the same {@link BlockError} for the same request whatever the backend.
 *
 * <p>Each method returns {@code null} when the request is valid, otherwise the failure to report.
 * Order: a length that cannot be expressed is INVALID_LENGTH before the range is looked at; a
 * negative LBA or a range past the last block (including lba + count past 2^63) is LBA_OUT_OF_RANGE.
 * All arithmetic is overflow-safe for any {@code long} input.
 */
public final class BlockChecks {
    private BlockChecks() {
    }

    /** A read of {@code blockCount} blocks must fit one buffer (at most 2^31-1 bytes) and the device. */
    public static BlockIoException checkRead(BlockGeometry geometry, long lba, int blockCount) {
        if (blockCount < 0) {
            return new BlockIoException(BlockError.INVALID_LENGTH, "negative block count " + blockCount);
        }
        if (blockCount > (Integer.MAX_VALUE >>> geometry.logicalBlockShift())) {
            return new BlockIoException(BlockError.INVALID_LENGTH, blockCount + " blocks of "
                    + geometry.logicalBlockSize() + " bytes exceed one buffer (2^31-1 bytes)");
        }
        return checkRange(geometry, lba, blockCount);
    }

    /** Write data must be a positive multiple of the logical block size and fit the device. */
    public static BlockIoException checkWrite(BlockGeometry geometry, long lba, ByteBuf data) {
        int length = data.readableBytes();
        if (length == 0 || (length & (geometry.logicalBlockSize() - 1)) != 0) {
            return new BlockIoException(BlockError.INVALID_LENGTH, "data length " + length
                    + " is not a positive multiple of the logical block size " + geometry.logicalBlockSize());
        }
        return checkRange(geometry, lba, length >>> geometry.logicalBlockShift());
    }

    /** {@code [lba, lba + blockCount)} within the device; a count of 0 is valid at any lba <= blockCount. */
    public static BlockIoException checkRange(BlockGeometry geometry, long lba, long blockCount) {
        if (blockCount < 0) {
            return new BlockIoException(BlockError.INVALID_LENGTH, "negative block count " + blockCount);
        }
        if (!geometry.contains(lba, blockCount)) {
            return new BlockIoException(BlockError.LBA_OUT_OF_RANGE, "blocks [" + lba + ", +" + blockCount
                    + ") outside the device of " + geometry.blockCount() + " blocks");
        }
        return null;
    }

    /** Every range checked before any is applied (SBC-4 §5.30: UNMAP is all or nothing on a bad descriptor). */
    public static BlockIoException checkRanges(BlockGeometry geometry, List<BlockRange> ranges) {
        for (BlockRange range : ranges) {
            BlockIoException failure = checkRange(geometry, range.lba(), range.count());
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /** The failure of a write, unmap or write-zeroes on a read-only device. */
    public static BlockIoException writeProtected(String deviceName) {
        return new BlockIoException(BlockError.WRITE_PROTECTED, deviceName + " is read-only");
    }

    /** The failure of any operation on a closed device. */
    public static BlockIoException closed(String deviceName) {
        return new BlockIoException(BlockError.CLOSED, deviceName + " is closed");
    }
}
