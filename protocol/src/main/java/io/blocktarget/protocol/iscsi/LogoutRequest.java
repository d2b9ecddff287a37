package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/** Logout Request, RFC 7143 §11.14. {@code cid} is meaningful for the connection-scoped reasons only. */
public record LogoutRequest(boolean immediate, LogoutReason reason, int itt, int cid, int cmdSN, int expStatSN)
        implements InitiatorPdu {
    private static final int REASON_MASK = 0x7f;

    public LogoutRequest {
        Objects.requireNonNull(reason, "reason");
        Bhs.checkUnsigned(cid, 16, "CID");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGOUT_REQUEST;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.LOGOUT_REQUEST, immediate, Bhs.FINAL_BIT | reason.code(), 0, 0);
        out.setInt(b + 16, itt);
        out.setShort(b + 20, cid);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
    }

    public static LogoutRequest decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.LOGOUT_REQUEST).base();
        int code = Bhs.u8(frame, b + 1) & REASON_MASK;
        LogoutReason reason = Bhs.require(LogoutReason.fromCode(code), frame, b, "reserved logout reason " + code);
        return new LogoutRequest(Bhs.immediate(frame, b), reason, Bhs.itt(frame, b), Bhs.u16BE(frame, b + 20),
                frame.getInt(b + 24), frame.getInt(b + 28));
    }
}
