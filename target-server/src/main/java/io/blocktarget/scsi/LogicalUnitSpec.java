package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.LunFeatures;

import java.util.Objects;

/**
 * One logical unit to serve: what the server hands the SCSI layer for each LUN exported over iSCSI.
 *
 * @param targetName the iSCSI target name (IQN) of the SCSI target device it belongs to
 * @param lun        LUN number within that target, 0..16383
 * @param name       the LUN's name from the config (unit serial number and designators derive from it: stable)
 * @param device     the backend
 * @param state      the device's shared state (the same instance the NVMe namespace of this LUN uses)
 * @param features   the LUN's round-2 config sections; the knobs feed {@link UnitLimits} and the INQUIRY identity
 */
public record LogicalUnitSpec(String targetName, long lun, String name, BlockDevice device, LunState state,
                              LunFeatures features) {
    public LogicalUnitSpec {
        Objects.requireNonNull(targetName, "targetName");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(features, "features");
    }

    /** A logical unit without round-2 sections: today's behaviour. */
    public LogicalUnitSpec(String targetName, long lun, String name, BlockDevice device, LunState state) {
        this(targetName, lun, name, device, state, LunFeatures.NONE);
    }

    /** A logical unit whose device no other command set exports (tests, SCSI-only LUNs): a state of its own. */
    public LogicalUnitSpec(String targetName, long lun, String name, BlockDevice device) {
        this(targetName, lun, name, device, new LunState(name));
    }
}
