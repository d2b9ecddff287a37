package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/** Login Response, RFC 7143 §11.13. {@code data} holds the target's text key=value answers. */
public record LoginResponse(LoginFlags flags, int versionMax, int versionActive, long isid, int tsih, int itt,
                            int statSN, int expCmdSN, int maxCmdSN, LoginStatus status, ByteBuf data)
        implements TargetPdu {
    public LoginResponse {
        Objects.requireNonNull(flags, "flags");
        Bhs.checkUnsigned(versionMax, 8, "Version-max");
        Bhs.checkUnsigned(versionActive, 8, "Version-active");
        Bhs.checkUnsigned(isid, 48, "ISID");
        Bhs.checkUnsigned(tsih, 16, "TSIH");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.LOGIN_RESPONSE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.LOGIN_RESPONSE, false, flags.toByte(), 0, data.readableBytes());
        out.setByte(b + 2, versionMax);
        out.setByte(b + 3, versionActive);
        Bhs.setU48BE(out, b + 8, isid);
        out.setShort(b + 14, tsih);
        out.setInt(b + 16, itt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setByte(b + 36, status.statusClass());
        out.setByte(b + 37, status.statusDetail());
    }

    public static LoginResponse decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.LOGIN_RESPONSE);
        int b = p.base();
        LoginFlags flags = LoginFlags.decode(frame, b);
        int statusClass = Bhs.u8(frame, b + 36);
        int statusDetail = Bhs.u8(frame, b + 37);
        LoginStatus status = Bhs.require(LoginStatus.fromCodes(statusClass, statusDetail), frame, b,
                "unknown login status " + statusClass + "/" + statusDetail);
        return new LoginResponse(flags, Bhs.u8(frame, b + 2), Bhs.u8(frame, b + 3), Bhs.u48BE(frame, b + 8),
                Bhs.u16BE(frame, b + 14), Bhs.itt(frame, b), frame.getInt(b + 24), frame.getInt(b + 28),
                frame.getInt(b + 32), status, Bhs.retainedData(frame, p));
    }
}
