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
    CLOSED,

    // Zoned devices (Zones): what a zone refuses, whatever protocol asked. The SCSI
    // column is ZBC-2 (sense key / ASC / ASCQ), the NVMe column the ZNS Command Set 1.1 status (SCT 1h).

    /** A write into a sequential-write-required zone not at its write pointer, or not a multiple of the write
     *  granularity (ZBC-2: ILLEGAL REQUEST / UNALIGNED WRITE COMMAND 21h/04h; ZNS: Zone Invalid Write BCh). */
    ZONE_UNALIGNED_WRITE,
    /** A write that crosses the end of a zone's capacity (into the next zone or the gap after the capacity) or
     *  runs from a conventional into a sequential zone (ZBC-2: WRITE BOUNDARY VIOLATION 21h/05h; ZNS: Zone
     *  Boundary Error B8h). */
    ZONE_BOUNDARY_ERROR,
    /** A write into a FULL zone (ZBC-2: ILLEGAL REQUEST / INVALID FIELD IN CDB, as libzbc's
     *  tests expect; ZNS: Zone Is Full B9h). */
    ZONE_FULL,
    /** Write or zone operation on a READ ONLY zone (ZBC-2: DATA PROTECT / ZONE IS READ ONLY 27h/08h; ZNS: Zone Is
     *  Read Only BAh). */
    ZONE_READ_ONLY,
    /** Any access to an OFFLINE zone (ZBC-2: DATA PROTECT / ZONE IS OFFLINE 2Ch/0Eh; ZNS: Zone Is Offline BBh). */
    ZONE_OFFLINE,
    /** Opening a zone (explicitly, or implicitly by a write) would exceed max-open and no implicitly open zone can
     *  be closed to make room (ZBC-2: DATA PROTECT / INSUFFICIENT ZONE RESOURCES 55h/0Eh; ZNS: Too Many Open
     *  Zones BEh). */
    ZONE_TOO_MANY_OPEN,
    /** Activating an EMPTY zone would exceed max-active (ZBC-2 has no active limit: INSUFFICIENT ZONE RESOURCES
     *  as for open; ZNS: Too Many Active Zones BDh). */
    ZONE_TOO_MANY_ACTIVE,
    /** The zone operation does not apply to the zone's condition, e.g. open of a FULL zone (ZNS: Invalid Zone
     *  State Transition BFh; ZBC-2 completes such requests with GOOD and changes nothing). */
    ZONE_INVALID_STATE_TRANSITION,
    /** A read that touches the part of a zone past its capacity (ZBC-2: ILLEGAL REQUEST / ATTEMPT TO ACCESS GAP
     *  ZONE 21h/09h; ZNS: reads there are the host's error, Zone Boundary Error B8h fits). */
    ZONE_GAP_ACCESS,
    /** Restricted reads only (URSWRZ = 0 / ZNS without read-across): a read past the write pointer of a
     *  sequential zone (ZBC-2: ILLEGAL REQUEST / ATTEMPT TO READ INVALID DATA 21h/06h). */
    ZONE_INVALID_READ,
    /** Restricted reads only: a read that crosses a zone boundary (ZBC-2: ILLEGAL REQUEST / READ BOUNDARY
     *  VIOLATION 21h/07h; ZNS: Zone Boundary Error B8h when RAZB = 0). */
    ZONE_READ_BOUNDARY
}
