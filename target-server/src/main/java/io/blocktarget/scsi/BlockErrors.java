package io.blocktarget.scsi;

import io.blocktarget.block.BlockError;
import io.blocktarget.protocol.scsi.SenseReason;

/** The one place a block-layer failure becomes a SCSI sense reason (DESIGN §6). */
final class BlockErrors {
    private BlockErrors() {
    }

    static SenseReason reason(BlockError error) {
        return switch (error) {
            case LBA_OUT_OF_RANGE -> SenseReason.LBA_OUT_OF_RANGE;
            // the device server checks lengths before the backend does: this is a transfer we let through
            case INVALID_LENGTH -> SenseReason.INVALID_FIELD_IN_CDB;
            case WRITE_PROTECTED -> SenseReason.WRITE_PROTECTED;
            // SBC-4 §4.7.3.6: permanent exhaustion of a thin LUN's backing store (the file system is full)
            case OUT_OF_SPACE -> SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
            // SAM-5 §5.3.1: BUSY = the logical unit is temporarily unable to process the command, reissue it
            // later. A buffer or the RAM budget ran short; TASK SET FULL would claim another task holds the
            // resources (not so for one large write), INSUFFICIENT RESOURCES (ILLEGAL REQUEST) blames the
            // request, and MEDIUM ERROR the medium.
            case INSUFFICIENT_RESOURCES -> SenseReason.BUSY_STATUS;
            case READ_ERROR -> SenseReason.UNRECOVERED_READ_ERROR;
            case WRITE_ERROR -> SenseReason.WRITE_ERROR;
            // the server is shutting the LUN down
            case CLOSED -> SenseReason.LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE;
        };
    }
}
