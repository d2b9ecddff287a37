package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/** Logout Response, RFC 7143 §11.15: Time2Wait / Time2Retain in seconds for connection recovery. */
public record LogoutResponse(LogoutResponseCode response, int itt, int statSN, int expCmdSN, int maxCmdSN,
                             int time2Wait, int time2Retain) implements TargetPdu {
    public LogoutResponse {
        Objects.requireNonNull(response, "response");
        Bhs.checkUnsigned(time2Wait, 16, "Time2Wait");
        Bhs.checkUnsigned(time2Retain, 16, "Time2Retain");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGOUT_RESPONSE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.LOGOUT_RESPONSE, false, Bhs.FINAL_BIT, 0, 0);
        out.setByte(b + 2, response.code());
        out.setInt(b + 16, itt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setShort(b + 40, time2Wait);
        out.setShort(b + 42, time2Retain);
    }

    public static LogoutResponse decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.LOGOUT_RESPONSE).base();
        LogoutResponseCode response = Bhs.require(LogoutResponseCode.fromCode(Bhs.u8(frame, b + 2)), frame, b,
                "reserved logout response " + Bhs.u8(frame, b + 2));
        return new LogoutResponse(response, Bhs.itt(frame, b), frame.getInt(b + 24), frame.getInt(b + 28),
                frame.getInt(b + 32), Bhs.u16BE(frame, b + 40), Bhs.u16BE(frame, b + 42));
    }
}
