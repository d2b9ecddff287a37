package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.SerialNumbers;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.protocol.scsi.ScsiLun;
import io.blocktarget.scsi.TaskManagementFunction;
import io.blocktarget.scsi.TaskScope;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Task management functions (RFC 7143 §11.5-11.6, SAM-5 §7). The device server aborts the tasks each function
 * reaches — this connection's and, for CLEAR TASK SET and the resets, every other session's on the logical unit —
 * and says when they have all stopped; only then is FUNCTION COMPLETE sent (§11.5.1: no response is sent for an
 * aborted task, and a write still executing in the backend must not land after the answer).
 */
final class TaskManagement {
    private static final System.Logger LOG = System.getLogger("blocktarget.iscsi");

    private TaskManagement() {
    }

    /**
     * A Task Management Function Request of {@code connection}, in CmdSN order: performed, and answered with its
     * TMF Response once the affected tasks are gone — back on the connection's event loop (their I/O may end on a
     * backend thread); not at all if the connection closed meanwhile. After a TARGET COLD RESET the target drops
     * every connection to it, this one after the response (§11.5.1).
     */
    static void request(IscsiConnection connection, TaskManagementRequest request, TaskEngine engine) {
        perform(request, engine, connection.expCmdSN(), response -> {
            if (connection.executor().inEventLoop()) {
                answer(connection, request, response, engine);
            } else {
                connection.executor().execute(() -> answer(connection, request, response, engine));
            }
        });
    }

    private static void answer(IscsiConnection connection, TaskManagementRequest request, TmfResponse response,
                               TaskEngine engine) {
        if (connection.state() == ConnectionState.FREE) {
            return;
        }
        connection.send(new io.blocktarget.protocol.iscsi.TaskManagementResponse(response, request.itt(),
                connection.nextStatSN(), connection.expCmdSN(), connection.maxCmdSN()));
        if (request.function() == TmfFunction.TARGET_COLD_RESET.code()) {
            LOG.log(System.Logger.Level.INFO, "{0}: TARGET COLD RESET, closing every session of the target",
                    connection.who());
            connection.coldReset(engine.target().targetName());
        }
    }

    /** Answers through {@code respond}, at once or once the affected tasks are gone (on any thread). */
    static void perform(TaskManagementRequest request, TaskEngine engine, int expCmdSN, Consumer<TmfResponse> respond) {
        Optional<TmfFunction> function = request.knownFunction();
        if (function.isEmpty()) {
            respond.accept(TmfResponse.FUNCTION_NOT_SUPPORTED);
            return;
        }
        OptionalInt lun = ScsiLun.decode(request.lun());
        Runnable complete = () -> respond.accept(TmfResponse.FUNCTION_COMPLETE);
        switch (function.get()) {
            case ABORT_TASK -> abortTask(request, engine, expCmdSN, respond);
            case ABORT_TASK_SET, CLEAR_TASK_SET, LOGICAL_UNIT_RESET -> {
                if (!exists(engine, lun)) {
                    respond.accept(TmfResponse.LUN_DOES_NOT_EXIST);
                    return;
                }
                TaskManagementFunction f = switch (function.get()) {
                    case ABORT_TASK_SET -> TaskManagementFunction.ABORT_TASK_SET;
                    case CLEAR_TASK_SET -> TaskManagementFunction.CLEAR_TASK_SET;
                    default -> TaskManagementFunction.LOGICAL_UNIT_RESET;
                };
                engine.target().taskManagement(f, engine.nexus(), lun.getAsInt(), TaskScope.ANY, complete);
            }
            case TARGET_WARM_RESET, TARGET_COLD_RESET -> engine.target().taskManagement(
                    TaskManagementFunction.TARGET_RESET, engine.nexus(), TaskScope.ANY, TaskScope.ANY, complete);
            // §11.5.1: TASK REASSIGN needs ErrorRecoveryLevel 2; CLEAR ACA: we never establish an ACA.
            case TASK_REASSIGN -> respond.accept(TmfResponse.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED);
            case CLEAR_ACA -> respond.accept(TmfResponse.FUNCTION_NOT_SUPPORTED);
        }
    }

    private static boolean exists(TaskEngine engine, OptionalInt lun) {
        return lun.isPresent() && engine.target().luns().contains((long) lun.getAsInt());
    }

    /**
     * RFC 7143 §11.5.1 b) / c): a task that is not there but whose RefCmdSN is inside the valid CmdSN window (not yet
     * received: at or above ExpCmdSN) and before the TMF's own CmdSN counts as received: "Function complete". A RefCmdSN
     * below ExpCmdSN is a command that was received and has completed — outside the window: "Task does not exist".
     */
    private static void abortTask(TaskManagementRequest request, TaskEngine engine, int expCmdSN,
                                  Consumer<TmfResponse> respond) {
        ScsiTask task = engine.task(request.referencedTaskTag());
        if (task != null) {
            engine.target().taskManagement(TaskManagementFunction.ABORT_TASK, engine.nexus(), task.lun,
                    Integer.toUnsignedLong(task.itt), () -> respond.accept(TmfResponse.FUNCTION_COMPLETE));
            return;
        }
        boolean inWindow = SerialNumbers.lessThan(request.refCmdSN(), request.cmdSN())
                && !SerialNumbers.lessThan(request.refCmdSN(), expCmdSN);
        respond.accept(inWindow ? TmfResponse.FUNCTION_COMPLETE : TmfResponse.TASK_DOES_NOT_EXIST);
    }
}
