package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;

/**
 * Data transfer direction of a command: opcode bits 1:0 (Base §5 / NVM Command Set "Opcodes"), and for Fabrics
 * commands bits 1:0 of the FCTYPE (Base §6.1: Connect 01h is host to controller, Property Get 04h none).
 */
enum TransferDirection {
    NONE, HOST_TO_CONTROLLER, CONTROLLER_TO_HOST, BIDIRECTIONAL;

    /** values() clones its array; this runs once per command. */
    private static final TransferDirection[] BY_BITS = values();

    static TransferDirection of(Sqe sqe) {
        int bits = (sqe.isFabrics() ? sqe.fctype() : sqe.opcode()) & 0x3;
        return BY_BITS[bits];
    }
}
