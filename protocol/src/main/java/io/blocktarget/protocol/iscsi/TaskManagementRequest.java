package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Optional;

/**
 * Task Management Function Request, RFC 7143 §11.5. The function code is kept raw: an unknown code is not
 * a framing error but is answered with {@link TmfResponse#FUNCTION_NOT_SUPPORTED} (§11.5.1).
 *
 * @param referencedTaskTag ITT of the task to abort (ABORT TASK), else 0xffffffff
 */
public record TaskManagementRequest(boolean immediate, int function, long lun, int itt, int referencedTaskTag,
                                    int cmdSN, int expStatSN, int refCmdSN, int expDataSN) implements InitiatorPdu {
    private static final int FUNCTION_MASK = 0x7f;

    public TaskManagementRequest {
        Bhs.checkUnsigned(function, 7, "Function");
    }

    public TaskManagementRequest(boolean immediate, TmfFunction function, long lun, int itt, int referencedTaskTag,
                                 int cmdSN, int expStatSN, int refCmdSN, int expDataSN) {
        this(immediate, function.code(), lun, itt, referencedTaskTag, cmdSN, expStatSN, refCmdSN, expDataSN);
    }

    /** The function, empty for codes RFC 7143 does not define. */
    public Optional<TmfFunction> knownFunction() {
        return TmfFunction.fromCode(function);
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TASK_MANAGEMENT_REQUEST;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.TASK_MANAGEMENT_REQUEST, immediate, Bhs.FINAL_BIT | function, 0, 0);
        out.setLong(b + 8, lun);
        out.setInt(b + 16, itt);
        out.setInt(b + 20, referencedTaskTag);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
        out.setInt(b + 32, refCmdSN);
        out.setInt(b + 36, expDataSN);
    }

    public static TaskManagementRequest decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.TASK_MANAGEMENT_REQUEST).base();
        return new TaskManagementRequest(Bhs.immediate(frame, b), Bhs.u8(frame, b + 1) & FUNCTION_MASK,
                Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20), frame.getInt(b + 24), frame.getInt(b + 28),
                frame.getInt(b + 32), frame.getInt(b + 36));
    }
}
