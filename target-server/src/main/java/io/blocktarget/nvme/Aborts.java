package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.Sqe;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Abort command (Base §5.1) of one controller. What can be aborted is what has not reached a backend: an
 * outstanding Asynchronous Event Request, and a command the transport still holds while it waits for the host's
 * data (R2T outstanding), on any queue; both complete with Command Abort Requested and the Abort with DW0 bit 0 = 0.
 * Everything else — a command executing on a backend that cannot cancel, the Abort itself, an unknown SQID or CID
 * — is reported honestly as not aborted (bit 0 = 1), which is a successful Abort.
 * At most ACL + 1 Aborts may be outstanding (Identify Controller ACL, 0's based); more is Abort Command Limit
 * Exceeded.
 */
final class Aborts {
    private static final int ABORTED = 0;

    private final Controller controller;
    private final AtomicInteger outstanding = new AtomicInteger();

    Aborts(Controller controller) {
        this.controller = controller;
    }

    void execute(Sqe sqe, NvmeCompletion done) {
        Parsed<AbortCommand> parsed = AbortCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<AbortCommand>(AbortCommand command))) {
            Replies.invalid(done, parsed);
            return;
        }
        if (outstanding.incrementAndGet() > ControllerConstants.ACL + 1) {
            outstanding.decrementAndGet();
            Replies.status(done, NvmeStatus.ABORT_COMMAND_LIMIT_EXCEEDED);
            return;
        }
        NvmeCompletion once = (status, dw0, dw1, data) -> {
            outstanding.decrementAndGet();
            done.complete(status, dw0, dw1, data);
        };
        if (command.sqid() == 0 && command.abortCid() == command.cid()) {
            answer(once, false);
            return;
        }
        if (command.sqid() == 0 && controller.events().abort(command.abortCid())) {
            answer(once, true);
            return;
        }
        if (controller.io().faults().abort(command.sqid(), command.abortCid())) {
            answer(once, true); // held by a no-response rule: it completes with Command Abort Requested
            return;
        }
        ControllerQueue queue = controller.queue(command.sqid());
        if (queue == null) {
            answer(once, false);
            return;
        }
        queue.connection().abort(command.abortCid(), aborted -> answer(once, aborted));
    }

    private static void answer(NvmeCompletion done, boolean aborted) {
        done.complete(NvmeStatus.SUCCESS, aborted ? ABORTED : AbortCommand.resultNotAborted(), 0, null);
    }
}
