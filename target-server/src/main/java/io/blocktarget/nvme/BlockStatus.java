package io.blocktarget.nvme;

import io.blocktarget.block.BlockError;
import io.blocktarget.protocol.nvme.NvmeStatus;

/** The one table from a block backend's failure to the NVMe status of the command (NVM Command Set §4.1.1). */
final class BlockStatus {
    private BlockStatus() {
    }

    static NvmeStatus of(BlockError error) {
        return switch (error) {
            case LBA_OUT_OF_RANGE -> NvmeStatus.LBA_OUT_OF_RANGE;
            // a length the backend cannot express in one buffer: the command's NLB is what is wrong
            case INVALID_LENGTH -> NvmeStatus.INVALID_FIELD;
            case WRITE_PROTECTED -> NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED;
            case OUT_OF_SPACE -> NvmeStatus.CAPACITY_EXCEEDED;
            // a buffer or the RAM budget ran short: Command Interrupted tells the host to retry (DNR = 0,
            // Base 2.0 §4.2.3.1); not a Media and Data Integrity error, so SMART's media errors stay put
            case INSUFFICIENT_RESOURCES -> NvmeStatus.COMMAND_INTERRUPTED;
            case READ_ERROR -> NvmeStatus.UNRECOVERED_READ_ERROR;
            case WRITE_ERROR -> NvmeStatus.WRITE_FAULT;
            // the server is shutting the LUN down: not ready, retryable elsewhere (no DNR)
            case CLOSED -> NvmeStatus.NAMESPACE_NOT_READY;
            // ZNS 1.1 §3.3.1 (the zone model's table is on BlockError)
            case ZONE_UNALIGNED_WRITE -> NvmeStatus.ZONE_INVALID_WRITE;
            case ZONE_BOUNDARY_ERROR, ZONE_GAP_ACCESS, ZONE_READ_BOUNDARY -> NvmeStatus.ZONE_BOUNDARY_ERROR;
            case ZONE_FULL -> NvmeStatus.ZONE_IS_FULL;
            case ZONE_READ_ONLY -> NvmeStatus.ZONE_IS_READ_ONLY;
            case ZONE_OFFLINE -> NvmeStatus.ZONE_IS_OFFLINE;
            case ZONE_TOO_MANY_OPEN -> NvmeStatus.TOO_MANY_OPEN_ZONES;
            case ZONE_TOO_MANY_ACTIVE -> NvmeStatus.TOO_MANY_ACTIVE_ZONES;
            case ZONE_INVALID_STATE_TRANSITION -> NvmeStatus.INVALID_ZONE_STATE_TRANSITION;
            // reads past the write pointer are refused only with restricted reads, which ZNS has no name for
            case ZONE_INVALID_READ -> NvmeStatus.ZONE_BOUNDARY_ERROR;
        };
    }
}
