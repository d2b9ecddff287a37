package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;

import java.util.Objects;

/**
 * One logical unit to serve: what the server hands the SCSI layer for each LUN exported over iSCSI.
 *
 * @param targetName the iSCSI target name (IQN) of the SCSI target device it belongs to
 * @param lun        LUN number within that target, 0..16383
 * @param name       the LUN's name from the config (unit serial number and designators derive from it: stable)
 * @param device     the backend
 */
public record LogicalUnitSpec(String targetName, long lun, String name, BlockDevice device) {
    public LogicalUnitSpec {
        Objects.requireNonNull(targetName, "targetName");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
    }
}
