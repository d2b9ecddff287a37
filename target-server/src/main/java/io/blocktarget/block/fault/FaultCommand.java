package io.blocktarget.block.fault;

import io.blocktarget.block.IoKind;

/**
 * What a fault rule looks at in a command; built by a command set's pre-dispatch hook (or by the device decorator)
 * only when the LUN has rules.
 *
 * @param protocol  who asks
 * @param kind      the operation kind
 * @param opcode    the protocol's operation code; -1 for the device decorator
 * @param lba       first LBA, -1 when the command addresses none (Flush, INQUIRY)
 * @param blocks    number of logical blocks, 0 when none
 * @param initiator IQN (SCSI) or host NQN (NVMe); null for the device decorator
 * @param queue     NVMe QID, -1 otherwise
 * @param portal    the id of the portal it came through (iSCSI TPGT, NVMe PORTID); 0 when unknown (the device
 *                  decorator, a command without a connection)
 * @param query     the data placement query the command is (issue 32), or null
 */
public record FaultCommand(Protocol protocol, IoKind kind, int opcode, long lba, long blocks, String initiator,
                           int queue, int portal, FaultQuery query) {

    /** Through no known portal. */
    public FaultCommand(Protocol protocol, IoKind kind, int opcode, long lba, long blocks, String initiator,
                        int queue) {
        this(protocol, kind, opcode, lba, blocks, initiator, queue, 0);
    }

    /** A command that is no data placement query. */
    public FaultCommand(Protocol protocol, IoKind kind, int opcode, long lba, long blocks, String initiator,
                        int queue, int portal) {
        this(protocol, kind, opcode, lba, blocks, initiator, queue, portal, null);
    }

    /** Where a command is seen. */
    public enum Protocol {
        SCSI,
        NVME,
        /** The block device decorator: kind and LBAs only. */
        DEVICE
    }

    /** The device decorator's view of a read or write. */
    public static FaultCommand device(IoKind kind, long lba, long blocks) {
        return new FaultCommand(Protocol.DEVICE, kind, -1, lba, blocks, null, -1);
    }
}
