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
            // ZBC-2 §4.4.3 (the zone model's table is on BlockError)
            case ZONE_UNALIGNED_WRITE -> SenseReason.UNALIGNED_WRITE_COMMAND;
            case ZONE_BOUNDARY_ERROR -> SenseReason.WRITE_BOUNDARY_VIOLATION;
            // libzbc's "WRITE full zone" test: a full zone has no valid write pointer to be unaligned to
            case ZONE_FULL -> SenseReason.INVALID_FIELD_IN_CDB;
            case ZONE_READ_ONLY -> SenseReason.ZONE_IS_READ_ONLY;
            case ZONE_OFFLINE -> SenseReason.ZONE_IS_OFFLINE;
            // ZBC-2 has one resource error for both limits
            case ZONE_TOO_MANY_OPEN, ZONE_TOO_MANY_ACTIVE -> SenseReason.INSUFFICIENT_ZONE_RESOURCES;
            // a zone operation that does not apply is GOOD in ZBC-2; the ZBC handler never lets this reach here
            case ZONE_INVALID_STATE_TRANSITION -> SenseReason.INVALID_FIELD_IN_CDB;
            case ZONE_GAP_ACCESS -> SenseReason.ATTEMPT_TO_ACCESS_GAP_ZONE;
            case ZONE_INVALID_READ -> SenseReason.ATTEMPT_TO_READ_INVALID_DATA;
            case ZONE_READ_BOUNDARY -> SenseReason.READ_BOUNDARY_VIOLATION;
        };
    }
}
