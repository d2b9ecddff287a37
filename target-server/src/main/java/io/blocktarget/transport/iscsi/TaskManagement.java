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
    private TaskManagement() {
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
