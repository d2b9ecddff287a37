package io.blocktarget.block;

/**
 * What a command does to the device, whatever protocol carried it: the vocabulary fault rules match on and the trace
 * records beside the protocol's own opcode name. One SCSI or NVMe opcode maps to exactly one kind.
 */
public enum IoKind {
    /** READ(6/10/12/16), NVMe Read. */
    READ,
    /** WRITE(6/10/12/16), WRITE AND VERIFY, NVMe Write. */
    WRITE,
    /** SYNCHRONIZE CACHE, NVMe Flush. */
    FLUSH,
    /** UNMAP, WRITE SAME with UNMAP, NVMe Dataset Management (deallocate). */
    UNMAP,
    /** WRITE SAME without UNMAP, NVMe Write Zeroes. */
    WRITE_ZEROES,
    /** COMPARE AND WRITE, NVMe Compare (fused or not). */
    COMPARE,
    /** VERIFY, NVMe Verify. */
    VERIFY,
    /** EXTENDED COPY, NVMe Copy. */
    COPY,
    /** WRITE ATOMIC(16), an NVMe Write within the namespace's atomic limits. */
    ATOMIC_WRITE,
    /** ZBC zone commands, NVMe Zone Management Send / Receive. */
    ZONE_MANAGEMENT,
    /** NVMe Zone Append. */
    ZONE_APPEND,
    /** Everything else that reaches a device (INQUIRY, Identify, reservations, ...). */
    OTHER;

    /** The lower-case, dash-separated name used in LUN files, the API and the trace ({@code write-zeroes}). */
    public String configName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
