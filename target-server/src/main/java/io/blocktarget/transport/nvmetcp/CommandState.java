package io.blocktarget.transport.nvmetcp;

import java.util.EnumSet;
import java.util.Set;

/**
 * Life of one command on a connection (NVMe/TCP §3.4): a capsule arrives (NEW), host-to-controller data not in
 * the capsule is pulled by R2T/H2CData (AWAITING_H2C_DATA), the NVMe layer runs it (EXECUTING), controller-to-host
 * data and the response go out (SENDING_C2H), then its slot and CID are free again (DONE). An Abort of a command
 * waiting for data completes it at once and frees its CID; its TTAG stays reserved while the data of the R2T already
 * sent still arrives and is dropped (DRAINING), so the host's PDU stream stays valid. A command of a fused operation
 * (Base §3.4.2) whose data is here waits for the other one's (AWAITING_FUSED): the two reach the NVMe layer together.
 */
enum CommandState {
    NEW,
    AWAITING_H2C_DATA,
    AWAITING_FUSED,
    DRAINING,
    EXECUTING,
    SENDING_C2H,
    DONE;

    private Set<CommandState> next() {
        return switch (this) {
            // NEW -> DONE: completed by the transport itself (bad SGL, data digest error) without executing
            case NEW -> EnumSet.of(AWAITING_H2C_DATA, AWAITING_FUSED, EXECUTING, DONE);
            case AWAITING_H2C_DATA -> EnumSet.of(AWAITING_FUSED, EXECUTING, DRAINING, DONE);
            case AWAITING_FUSED -> EnumSet.of(EXECUTING, DONE);
            case DRAINING -> EnumSet.of(DONE);
            case EXECUTING -> EnumSet.of(SENDING_C2H, DONE);
            case SENDING_C2H -> EnumSet.of(DONE);
            case DONE -> EnumSet.noneOf(CommandState.class);
        };
    }

    CommandState checkTransition(CommandState to) {
        if (!next().contains(to)) {
            throw new IllegalStateException("command " + this + " -> " + to);
        }
        return to;
    }
}
