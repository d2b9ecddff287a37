package io.blocktarget.block.lun;

/**
 * The state of one path to a LUN — the LUN as seen through one portal — which both command sets report and enforce:
 * SCSI as the target port group's asymmetric access state (SPC-5 §5.16.2.4), NVMe as the ANA group's state (NVMe Base
 * 2.x §8.1.1). The server maps the configuration's {@code paths:} words to these (one place); each command set maps
 * these to its wire codes in one place (scsi {@code Alua}, nvme {@code Ana}).
 */
public enum AccessState {
    OPTIMIZED,
    NON_OPTIMIZED,
    /** SCSI unavailable, NVMe inaccessible. */
    INACCESSIBLE,
    /** SCSI standby, NVMe inaccessible. */
    STANDBY,
    /** SCSI unavailable, NVMe inaccessible. */
    UNAVAILABLE,
    /** SCSI offline, NVMe persistent loss. */
    PERSISTENT_LOSS,
    /** SCSI transitioning, NVMe change. */
    TRANSITIONING;

    /** Commands that move data may be executed on the path (active/optimized or active/non-optimized). */
    public boolean active() {
        return this == OPTIMIZED || this == NON_OPTIMIZED;
    }
}
