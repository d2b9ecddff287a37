package io.blocktarget.block.fault;

/**
 * A command a rule hit.
 *
 * @param rule     the rule that hit
 * @param action   what to do
 * @param firstLba the first LBA of the command inside the rule's range (0 when the command has none): the SCSI
 *                 INFORMATION field and the LBA of the NVMe Error Information log entry
 */
public record FaultHit(ActiveRule rule, FaultAction action, long firstLba) {
}
