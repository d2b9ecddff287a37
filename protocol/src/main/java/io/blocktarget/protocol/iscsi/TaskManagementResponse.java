package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/** Task Management Function Response, RFC 7143 §11.6. */
public record TaskManagementResponse(TmfResponse response, int itt, int statSN, int expCmdSN, int maxCmdSN)
        implements TargetPdu {
    public TaskManagementResponse {
        Objects.requireNonNull(response, "response");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TASK_MANAGEMENT_RESPONSE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.TASK_MANAGEMENT_RESPONSE, false, Bhs.FINAL_BIT, 0, 0);
        out.setByte(b + 2, response.code());
        out.setInt(b + 16, itt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
    }

    public static TaskManagementResponse decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.TASK_MANAGEMENT_RESPONSE).base();
        TmfResponse response = Bhs.require(TmfResponse.fromCode(Bhs.u8(frame, b + 2)), frame, b,
                "reserved TMF response " + Bhs.u8(frame, b + 2));
        return new TaskManagementResponse(response, Bhs.itt(frame, b), frame.getInt(b + 24), frame.getInt(b + 28),
                frame.getInt(b + 32));
    }
}
