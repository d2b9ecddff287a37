package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.Sqe;

/**
 * Fabrics commands after Connect (Base §6): Property Get / Set on the admin queue, Disconnect on I/O
 * queues. Connect itself is handled by {@link NvmeSubsystems#connect}; a second one on a connected queue is
 * a Command Sequence Error.
 */
final class FabricsCommands {
    private FabricsCommands() {
    }

    static void execute(ControllerQueue queue, Sqe sqe, NvmeCompletion done) {
        FabricsCommandType type = FabricsCommandType.of(sqe.fctype()).orElse(null);
        if (type == null) {
            done.complete(NvmeStatus.INVALID_OPCODE, 0, 0, null);
            return;
        }
        switch (type) {
            case PROPERTY_GET, PROPERTY_SET -> property(queue, sqe, done);
            case DISCONNECT -> disconnect(queue, done);
            case CONNECT -> done.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
            // no in-band authentication: AUTHREQ is 0 in every Connect response
            case AUTHENTICATION_SEND, AUTHENTICATION_RECEIVE -> done.complete(NvmeStatus.INVALID_OPCODE, 0, 0, null);
        }
    }

    /** Properties live on the admin queue only (Base §6.5 / §6.6); elsewhere Invalid Queue Type. */
    private static void property(ControllerQueue queue, Sqe sqe, NvmeCompletion done) {
        if (queue.qid() != 0) {
            done.complete(NvmeStatus.INVALID_QUEUE_TYPE, 0, 0, null);
            return;
        }
        Parsed<PropertyCommand> parsed = PropertyCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<PropertyCommand>(PropertyCommand command))) {
            done.complete(parsed.status(), 0, 0, null);
            return;
        }
        Controller controller = queue.controller();
        if (command.type() == FabricsCommandType.PROPERTY_SET) {
            done.complete(controller.setProperty(command.register(), command.value()), 0, 0, null);
        } else {
            long value = controller.property(command.register());
            done.complete(NvmeStatus.SUCCESS, (int) value, (int) (value >>> 32), null);
        }
    }

    /** Disconnect deletes an I/O queue (Base §6.4); the admin queue is deleted only with its connection. */
    private static void disconnect(ControllerQueue queue, NvmeCompletion done) {
        if (queue.qid() == 0) {
            done.complete(NvmeStatus.INVALID_QUEUE_TYPE, 0, 0, null);
            return;
        }
        queue.disconnect();
        done.complete(NvmeStatus.SUCCESS, 0, 0, null);
    }
}
