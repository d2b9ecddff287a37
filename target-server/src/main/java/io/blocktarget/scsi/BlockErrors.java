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
            // SBC-4 §4.7.3.6: thin provisioning out of resources on a write
            case OUT_OF_SPACE -> SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
            case READ_ERROR -> SenseReason.UNRECOVERED_READ_ERROR;
            case WRITE_ERROR -> SenseReason.WRITE_ERROR;
            // the server is shutting the LUN down
            case CLOSED -> SenseReason.LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE;
        };
    }
}
