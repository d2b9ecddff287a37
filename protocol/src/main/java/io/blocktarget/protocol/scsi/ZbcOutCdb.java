package io.blocktarget.protocol.scsi;

/**
 * ZBC OUT (ZBC-2 §5.2, §5.3, §5.5, §5.6, operation code 94h): CLOSE ZONE, FINISH ZONE, OPEN ZONE, RESET WRITE POINTER.
 *
 * @param action    the service action
 * @param zoneId    ZONE ID: the starting LBA of the (first) zone; ignored with ALL
 * @param zoneCount ZONE COUNT (ZBC-2): zones from ZONE ID on; 0 means 1
 * @param all       ALL: every zone the action applies to
 */
public record ZbcOutCdb(Action action, long zoneId, int zoneCount, boolean all) implements Cdb {

    public enum Action {
        CLOSE_ZONE(0x01, ScsiOpcode.ZBC_OUT_CLOSE_ZONE),
        FINISH_ZONE(0x02, ScsiOpcode.ZBC_OUT_FINISH_ZONE),
        OPEN_ZONE(0x03, ScsiOpcode.ZBC_OUT_OPEN_ZONE),
        RESET_WRITE_POINTER(0x04, ScsiOpcode.ZBC_OUT_RESET_WRITE_POINTER);

        private final int serviceAction;
        private final ScsiOpcode opcode;

        Action(int serviceAction, ScsiOpcode opcode) {
            this.serviceAction = serviceAction;
            this.opcode = opcode;
        }

        public int serviceAction() {
            return serviceAction;
        }

        public ScsiOpcode opcode() {
            return opcode;
        }
    }

    /** Zones the command names without ALL: ZONE COUNT, with 0 read as 1. */
    public int zones() {
        return Math.max(1, zoneCount);
    }
}
