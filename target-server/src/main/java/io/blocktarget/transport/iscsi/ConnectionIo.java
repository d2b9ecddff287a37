package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

/** What the task layer needs from its connection: sequence numbers, sending, Reject and the fatal path. */
interface ConnectionIo extends io.blocktarget.block.fault.FaultConnection {
    /** The StatSN for a response that carries status, then advances it (§4.2.2.2). */
    int nextStatSN();

    /** The StatSN for PDUs that do not consume one (R2T, NOP-In ping). */
    int statSN();

    int expCmdSN();

    int maxCmdSN();

    /** Sends one PDU; the frame takes over its data buffer. */
    void send(TargetPdu pdu);

    /** Sends a Reject (§11.17) carrying the header of {@code offending}; the caller still owns it. */
    void reject(RejectReason reason, InitiatorPdu offending);

    /** Tier-3 error: log once, close (DESIGN §6). */
    void fatal(String reason);

    EventExecutor executor();

    ByteBufAllocator alloc();

    /** Fault rules' connection faults; a connection applies them (IscsiConnection), others do not. */
    @Override
    default boolean applyFault(io.blocktarget.block.fault.FaultAction.ConnectionFault fault,
                               io.blocktarget.block.fault.ActiveRule rule) {
        return false;
    }
}
