package io.blocktarget.block;

/**
 * Shape of a block device.
 *
 * @param logicalBlockSize  bytes per LBA: power of two, 512 .. 65536
 * @param physicalBlockSize bytes per physical block: power of two, >= logical, <= 32 MiB
 * @param blockCount        number of logical blocks, > 0
 */
public record BlockGeometry(int logicalBlockSize, int physicalBlockSize, long blockCount) {
    public static final int MIN_LOGICAL_BLOCK_SIZE = 512;
    public static final int MAX_LOGICAL_BLOCK_SIZE = 64 * 1024;
    public static final int MAX_PHYSICAL_BLOCK_SIZE = 32 * 1024 * 1024;

    public BlockGeometry {
        if (Integer.bitCount(logicalBlockSize) != 1
                || logicalBlockSize < MIN_LOGICAL_BLOCK_SIZE || logicalBlockSize > MAX_LOGICAL_BLOCK_SIZE) {
            throw new IllegalArgumentException("logical block size " + logicalBlockSize
                    + " is not a power of two in 512..65536");
        }
        if (Integer.bitCount(physicalBlockSize) != 1
                || physicalBlockSize < logicalBlockSize || physicalBlockSize > MAX_PHYSICAL_BLOCK_SIZE) {
            throw new IllegalArgumentException("physical block size " + physicalBlockSize
                    + " is not a power of two in " + logicalBlockSize + "..33554432");
        }
        if (blockCount <= 0 || blockCount > Long.MAX_VALUE / logicalBlockSize) {
            throw new IllegalArgumentException("block count " + blockCount + " out of range");
        }
    }

    /** log2(logicalBlockSize): byte offset = lba << shift. */
    public int logicalBlockShift() {
        return Integer.numberOfTrailingZeros(logicalBlockSize);
    }

    /** Logical blocks per physical block (a power of two). */
    public int logicalBlocksPerPhysicalBlock() {
        return physicalBlockSize / logicalBlockSize;
    }

    /** Capacity in bytes. */
    public long sizeBytes() {
        return blockCount << logicalBlockShift();
    }

    /**
     * True when {@code [lba, lba + count)} lies within the device. Overflow-safe for any
     * {@code long} inputs: a negative lba or count, or an lba + count past 2^63, is out of range.
     */
    public boolean contains(long lba, long count) {
        return lba >= 0 && count >= 0 && lba <= blockCount && count <= blockCount - lba;
    }
}
