package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Login Request, RFC 7143 §11.12. The I bit is always 1 on the wire. {@code data} holds text key=value
 * pairs ({@link TextParameters}), possibly continued in the next PDU when the C bit is set.
 *
 * @param isid 48-bit Initiator Session ID (§11.12.5) in the low bits
 */
public record LoginRequest(LoginFlags flags, int versionMax, int versionMin, long isid, int tsih, int itt, int cid,
                           int cmdSN, int expStatSN, ByteBuf data) implements InitiatorPdu {
    public LoginRequest {
        Objects.requireNonNull(flags, "flags");
        Bhs.checkUnsigned(versionMax, 8, "Version-max");
        Bhs.checkUnsigned(versionMin, 8, "Version-min");
        Bhs.checkUnsigned(isid, 48, "ISID");
        Bhs.checkUnsigned(tsih, 16, "TSIH");
        Bhs.checkUnsigned(cid, 16, "CID");
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGIN_REQUEST;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.LOGIN_REQUEST, true, flags.toByte(), 0, data.readableBytes());
        out.setByte(b + 2, versionMax);
        out.setByte(b + 3, versionMin);
        Bhs.setU48BE(out, b + 8, isid);
        out.setShort(b + 14, tsih);
        out.setInt(b + 16, itt);
        out.setShort(b + 20, cid);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
    }

    public static LoginRequest decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.LOGIN_REQUEST);
        int b = p.base();
        LoginFlags flags = LoginFlags.decode(frame, b);
        return new LoginRequest(flags, Bhs.u8(frame, b + 2), Bhs.u8(frame, b + 3), Bhs.u48BE(frame, b + 8),
                Bhs.u16BE(frame, b + 14), Bhs.itt(frame, b), Bhs.u16BE(frame, b + 20), frame.getInt(b + 24),
                frame.getInt(b + 28), Bhs.retainedData(frame, p));
    }
}
