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
 * @param query     the data placement query the command is, or null
 */
public record FaultCommand(Protocol protocol, IoKind kind, int opcode, long lba, long blocks, String initiator,
                           int queue, FaultQuery query) {

    /** A command that is no data placement query. */
    public FaultCommand(Protocol protocol, IoKind kind, int opcode, long lba, long blocks, String initiator,
                        int queue) {
        this(protocol, kind, opcode, lba, blocks, initiator, queue, null);
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
