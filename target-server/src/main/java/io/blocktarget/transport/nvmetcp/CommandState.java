package io.blocktarget.transport.nvmetcp;

import io.blocktarget.state.StateMachine;

/**
 * Life of one command on a connection (NVMe/TCP §3.4): a capsule arrives (NEW), host-to-controller data not in
 * the capsule is pulled by R2T/H2CData (AWAITING_H2C_DATA), the NVMe layer runs it (EXECUTING), controller-to-host
 * data and the response go out (SENDING_C2H), then its slot and CID are free again (DONE). An Abort of a command
 * waiting for data completes it at once and frees its CID; its TTAG stays reserved while the data of the R2T already
 * sent still arrives and is dropped (DRAINING), so the host's PDU stream stays valid. A command of a fused operation
 * (Base §3.4.2) whose data is here waits for the other one's (AWAITING_FUSED): the two reach the NVMe layer together.
 * When the connection closes, a command the NVMe layer does not hold ends at once and one it holds when it completes:
 * every command ends in DONE (the teardown check).
 */
enum CommandState {
    NEW,
    AWAITING_H2C_DATA,
    AWAITING_FUSED,
    DRAINING,
    EXECUTING,
    SENDING_C2H,
    DONE;

    /** The legal moves (one table, checked and counted by {@link StateMachine}); DONE is final. */
    static final StateMachine<CommandState> MACHINE = StateMachine.of("NVMe/TCP command", CommandState.class, NEW)
            // NEW -> DONE: completed by the transport itself (bad SGL, data digest error) without executing
            .allow(NEW, AWAITING_H2C_DATA, AWAITING_FUSED, EXECUTING, DONE)
            .allow(AWAITING_H2C_DATA, AWAITING_FUSED, EXECUTING, DRAINING, DONE)
            .allow(AWAITING_FUSED, EXECUTING, DONE)
            .allow(DRAINING, DONE)
            .allow(EXECUTING, SENDING_C2H, DONE)
            .allow(SENDING_C2H, DONE)
            .terminal(DONE)
            .build();
}
