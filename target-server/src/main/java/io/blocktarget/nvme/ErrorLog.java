package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.LogPages;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.netty.buffer.ByteBuf;

/**
 * The Error Information log of one controller (Base §5.16.1.2): the last {@link #ENTRIES} commands that completed
 * with an error, newest first, each with its Error Count (1, 2, … over the controller's life: 0 marks an empty
 * entry), SQID, CID, status, LBA and NSID. ELPE in Identify Controller is {@link #ENTRIES} − 1. The lifetime count is
 * SMART's Number of Error Information Log Entries. Commands the host itself aborted (Abort, queue deletion) are not
 * errors and are not logged. Guarded by this object's monitor: errors are rare.
 */
final class ErrorLog {
    /** Entries kept: 64 × 64 bytes = one 4 KiB page. */
    static final int ENTRIES = 64;
    /** NVMe/TCP in the entry's TRTYPE (Base §5.16.1.2, the Discovery Log TRTYPE values). */
    private static final int TRTYPE_TCP = 3;
    /** Parameter Error Location: FFFFh, not specific to one field. */
    private static final int NO_PARAMETER = 0xFFFF;

    private final LogPages.ErrorEntry[] ring = new LogPages.ErrorEntry[ENTRIES];
    private long errorCount;

    /** Whether a completion with {@code status} is an error the log records. */
    static boolean records(NvmeStatus status) {
        return !status.isSuccess() && status != NvmeStatus.ABORTED_BY_REQUEST
                && status != NvmeStatus.ABORTED_SQ_DELETION;
    }

    /** The same for any Status Field (a fault rule's): by SCT and SC, whatever its DNR, CRD and M. */
    static boolean records(CqeStatus status) {
        int generic = NvmeStatus.StatusCodeType.GENERIC.code();
        return !status.isSuccess() && !(status.sct() == generic
                && (status.sc() == NvmeStatus.ABORTED_BY_REQUEST.sc()
                || status.sc() == NvmeStatus.ABORTED_SQ_DELETION.sc()));
    }

    void record(int sqid, int cid, NvmeStatus status, long lba, int nsid) {
        record(sqid, cid, status.toCqeStatus(), lba, nsid);
    }

    /** An entry whose Status Field (bits 15:1 of bytes 14..15, phase tag 0) is exactly {@code status}. */
    synchronized void record(int sqid, int cid, CqeStatus status, long lba, int nsid) {
        errorCount++;
        ring[(int) (errorCount % ENTRIES)] = new LogPages.ErrorEntry(errorCount, sqid, cid, status,
                NO_PARAMETER, lba, nsid, TRTYPE_TCP, 0, 0);
    }

    /** Errors logged over the controller's life. */
    synchronized long errorCount() {
        return errorCount;
    }

    /** The whole page: newest entry first, empty (zero) entries after the last one kept. */
    synchronized void encode(ByteBuf out) {
        int kept = (int) Math.min(errorCount, ENTRIES);
        for (int k = 0; k < kept; k++) {
            ring[(int) ((errorCount - k) % ENTRIES)].encode(out);
        }
        out.writeZero((ENTRIES - kept) * LogPages.ERROR_ENTRY_SIZE);
    }
}
