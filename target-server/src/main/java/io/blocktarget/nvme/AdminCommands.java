package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

/**
 * Admin command dispatch (Base §5) of an enabled controller. The discovery controller shares it: the
 * family handlers know which identify structures, log pages and features a discovery controller has.
 */
final class AdminCommands {
    private AdminCommands() {
    }

    /** {@code r}'s data, when it has some, is Set Features 1Eh's event types. */
    static void execute(Controller controller, NvmeRequest r) {
        // issue 32: the FDP queries Linux sends on the admin queue meet the fault rules of their namespace's LUN
        Namespace target = Fdp.faultTarget(controller, r.sqe());
        if (target != null && controller.io().faults().intercept(target, r,
                (s, d, c) -> dispatch(controller, s, d, c))) {
            return;
        }
        dispatch(controller, r.sqe(), r.dataOut(), r);
    }

    private static void dispatch(Controller controller, Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        AdminOpcode opcode = AdminOpcode.of(sqe.opcode()).orElse(null);
        if (opcode == null) {
            Replies.status(done, NvmeStatus.INVALID_OPCODE);
            return;
        }
        switch (opcode) {
            case IDENTIFY -> IdentifyCommands.execute(controller, sqe, done);
            case GET_LOG_PAGE -> LogPageCommands.execute(controller, sqe, done);
            case SET_FEATURES, GET_FEATURES -> controller.features().execute(sqe, dataOut, done);
            case ASYNC_EVENT_REQUEST -> {
                if (!controller.events().request(sqe.cid(), done)) {
                    Replies.status(done, NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED);
                }
            }
            case KEEP_ALIVE -> {
                if (controller.io().faults().keepAlive(sqe, done)) {
                    return; // a keep-alive-stall rule holds it: the timer is not restarted
                }
                controller.keepAlive();
                Replies.status(done, NvmeStatus.SUCCESS);
            }
            case ABORT -> controller.aborts().execute(sqe, done);
            default -> Replies.status(done, NvmeStatus.INVALID_OPCODE);
        }
    }
}
