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
    /** Thin provisioning exhausted: the memory budget or the file system is full
     *  (SCSI SPACE ALLOCATION FAILED WRITE PROTECT, NVMe Capacity Exceeded). */
    OUT_OF_SPACE,
    /** The medium failed to read (SCSI MEDIUM ERROR / UNRECOVERED READ ERROR, NVMe Unrecovered Read Error). */
    READ_ERROR,
    /** The medium failed to write (SCSI MEDIUM ERROR / WRITE ERROR, NVMe Write Fault). */
    WRITE_ERROR,
    /** The device was closed while the operation was pending. */
    CLOSED
}
