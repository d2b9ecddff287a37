package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Fabrics commands after Connect (Base §6): Property Get / Set on the admin queue, Disconnect on I/O
 * queues. Connect itself is handled by {@link NvmeSubsystems#connect}; a second one on a connected queue is
 * a Command Sequence Error.
 */
final class FabricsCommands {
    private FabricsCommands() {
    }

    /** Connect, Authentication Send / Receive and Disconnect: what a queue takes before it is authenticated. */
    static boolean allowedBeforeAuthentication(Sqe sqe) {
        int fctype = sqe.fctype();
        return fctype == FabricsCommandType.CONNECT.code() || fctype == FabricsCommandType.DISCONNECT.code()
                || fctype == FabricsCommandType.AUTHENTICATION_SEND.code()
                || fctype == FabricsCommandType.AUTHENTICATION_RECEIVE.code();
    }

    static void execute(ControllerQueue queue, Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        FabricsCommandType type = FabricsCommandType.of(sqe.fctype()).orElse(null);
        if (type == null) {
            done.complete(NvmeStatus.INVALID_OPCODE, 0, 0, null);
            return;
        }
        switch (type) {
            case PROPERTY_GET, PROPERTY_SET -> property(queue, sqe, done);
            case DISCONNECT -> disconnect(queue, done);
            case CONNECT -> done.complete(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0, null);
            case AUTHENTICATION_SEND -> authenticationSend(queue, sqe, dataOut, done);
            case AUTHENTICATION_RECEIVE -> authenticationReceive(queue, sqe, done);
        }
    }

    /**
     * Authentication Send (Base 2.2 §6.2): SECP E9h, SPSP0 = SPSP1 = 01h (DH-HMAC-CHAP), TL = the data length. A
     * queue whose subsystem has no keys never asked for authentication (AUTHREQ 0): Invalid Opcode, as before.
     */
    private static void authenticationSend(ControllerQueue queue, Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Authentication auth = queue.authentication();
        if (auth == null) {
            done.complete(NvmeStatus.INVALID_OPCODE, 0, 0, null);
            return;
        }
        long tl = Dhchap.length(sqe);
        if (!securityProtocol(sqe) || tl == 0) {
            done.complete(NvmeStatus.INVALID_FIELD, 0, 0, null);
            return;
        }
        int length = dataOut == null ? 0 : dataOut.readableBytes();
        if (length != tl) {
            done.complete(NvmeStatus.DATA_SGL_LENGTH_INVALID, 0, 0, null);
            return;
        }
        byte[] message = new byte[length];
        dataOut.getBytes(dataOut.readerIndex(), message);
        auth.send(message, () -> done.complete(NvmeStatus.SUCCESS, 0, 0, null));
    }

    /** Authentication Receive (Base 2.2 §6.3): the next message in AL bytes (zero padded, as nvmet does). */
    private static void authenticationReceive(ControllerQueue queue, Sqe sqe, NvmeCompletion done) {
        Authentication auth = queue.authentication();
        if (auth == null) {
            done.complete(NvmeStatus.INVALID_OPCODE, 0, 0, null);
            return;
        }
        long al = Dhchap.length(sqe);
        if (!securityProtocol(sqe) || al == 0 || al > MAX_ALLOCATION) {
            done.complete(NvmeStatus.INVALID_FIELD, 0, 0, null);
            return;
        }
        auth.receive((int) al, message -> {
            if (message.isEmpty()) {
                done.complete(NvmeStatus.INVALID_FIELD, 0, 0, null);
            } else {
                done.complete(NvmeStatus.SUCCESS, 0, 0, Unpooled.wrappedBuffer(message.get()));
            }
        });
    }

    /** The largest message is a Challenge with SHA-512 and ffdhe8192: 16 + 64 + 1024 bytes; Linux asks 4 KiB. */
    static final long MAX_ALLOCATION = 64 * 1024;

    private static boolean securityProtocol(Sqe sqe) {
        return Dhchap.secp(sqe) == Dhchap.SECP && Dhchap.spsp0(sqe) == Dhchap.SPSP && Dhchap.spsp1(sqe) == Dhchap.SPSP;
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
