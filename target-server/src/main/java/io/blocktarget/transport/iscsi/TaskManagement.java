package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.SerialNumbers;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.protocol.scsi.ScsiLun;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * Task management functions (RFC 7143 §11.5-11.6, SAM-5 §7): aborts this connection's own tasks (no response
 * is sent for an aborted task) and tells the device server about LUN and target resets.
 */
final class TaskManagement {
    private TaskManagement() {
    }

    static TmfResponse perform(TaskManagementRequest request, TaskEngine engine, int expCmdSN) {
        Optional<TmfFunction> function = request.knownFunction();
        if (function.isEmpty()) {
            return TmfResponse.FUNCTION_NOT_SUPPORTED;
        }
        OptionalInt lun = ScsiLun.decode(request.lun());
        return switch (function.get()) {
            case ABORT_TASK -> abortTask(request, engine, expCmdSN);
            case ABORT_TASK_SET, CLEAR_TASK_SET -> {
                if (!exists(engine, lun)) {
                    yield TmfResponse.LUN_DOES_NOT_EXIST;
                }
                engine.abort(t -> t.lunField == request.lun());
                yield TmfResponse.FUNCTION_COMPLETE;
            }
            case LOGICAL_UNIT_RESET -> {
                if (!exists(engine, lun)) {
                    yield TmfResponse.LUN_DOES_NOT_EXIST;
                }
                engine.abort(t -> t.lunField == request.lun());
                engine.target().logicalUnitReset(engine.nexus(), lun.getAsInt());
                yield TmfResponse.FUNCTION_COMPLETE;
            }
            case TARGET_WARM_RESET, TARGET_COLD_RESET -> {
                engine.abort(t -> true);
                engine.target().targetReset(engine.nexus());
                yield TmfResponse.FUNCTION_COMPLETE;
            }
            // §11.5.1: TASK REASSIGN needs ErrorRecoveryLevel 2; CLEAR ACA: we never establish an ACA.
            case TASK_REASSIGN -> TmfResponse.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED;
            case CLEAR_ACA -> TmfResponse.FUNCTION_NOT_SUPPORTED;
        };
    }

    private static boolean exists(TaskEngine engine, OptionalInt lun) {
        return lun.isPresent() && engine.target().luns().contains((long) lun.getAsInt());
    }

    /**
     * §11.6.1: a task that is not there but whose RefCmdSN is inside the window and before the TMF's own
     * CmdSN counts as received and completed: "Function complete"; otherwise "Task does not exist".
     */
    private static TmfResponse abortTask(TaskManagementRequest request, TaskEngine engine, int expCmdSN) {
        ScsiTask task = engine.task(request.referencedTaskTag());
        if (task != null) {
            engine.abort(t -> t == task);
            return TmfResponse.FUNCTION_COMPLETE;
        }
        boolean seen = SerialNumbers.lessThan(request.refCmdSN(), request.cmdSN())
                && SerialNumbers.lessThan(request.refCmdSN(), expCmdSN);
        return seen ? TmfResponse.FUNCTION_COMPLETE : TmfResponse.TASK_DOES_NOT_EXIST;
    }
}
