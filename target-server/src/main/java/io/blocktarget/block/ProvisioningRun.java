package io.blocktarget.block;

/**
 * A run of logical blocks that share one provisioning state: mapped (backed by memory or file space, or not known to
 * be otherwise) or deallocated (nothing behind it: it reads as zeros). SCSI GET LBA STATUS (SBC-4 §5.7) reports these.
 *
 * @param mapped whether the blocks are mapped; false = deallocated
 * @param blocks how many blocks the run has, at least 1
 */
public record ProvisioningRun(boolean mapped, long blocks) {
    public ProvisioningRun {
        if (blocks < 1) {
            throw new IllegalArgumentException("a run of " + blocks + " blocks");
        }
    }
}
