package io.blocktarget.block;

/**
 * A range of logical blocks, e.g. one SCSI UNMAP block descriptor or one NVMe DSM range.
 *
 * @param lba   first logical block
 * @param count number of blocks, >= 0 (0 is a no-op, as SBC-4 §5.30 and NVMe allow)
 */
public record BlockRange(long lba, long count) {
}
