package io.blocktarget.block;

/**
 * Why a block operation failed. The SCSI and NVMe layers each map these to their own status in one
 * table (SenseReason / NvmeStatus); backends never see those.
 */
public enum BlockError {
    /** LBA range outside the device (SCSI LBA OUT OF RANGE, NVMe LBA Out of Range). */
    LBA_OUT_OF_RANGE,
    /** Transfer length not expressible (more than 2^31-1 bytes in one buffer) or data not a multiple of the block size. */
    INVALID_LENGTH,
    /** Write to a read-only device (SCSI DATA PROTECT / WRITE PROTECTED, NVMe Namespace Is Write Protected). */
    WRITE_PROTECTED,
    /** The file system under a file backend is full (ENOSPC / EDQUOT): the thin LUN's backing store is
     *  exhausted until someone frees space (SCSI SPACE ALLOCATION FAILED WRITE PROTECT, NVMe Capacity Exceeded). */
    OUT_OF_SPACE,
    /**
     * A resource the operation needs for a moment is not available — a buffer (OutOfMemoryError, Netty's
     * direct memory limit) or the RAM disks' shared {@code MemoryBudget} — and retrying later may succeed.
     * Not the medium's fault: never a media error (SCSI BUSY, NVMe Command Interrupted without DNR).
     */
    INSUFFICIENT_RESOURCES,
    /** The medium failed to read (SCSI MEDIUM ERROR / UNRECOVERED READ ERROR, NVMe Unrecovered Read Error). */
    READ_ERROR,
    /** The medium failed to write (SCSI MEDIUM ERROR / WRITE ERROR, NVMe Write Fault). */
    WRITE_ERROR,
    /** The device was closed while the operation was pending. */
    CLOSED
}
