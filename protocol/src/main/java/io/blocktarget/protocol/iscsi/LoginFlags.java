package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Byte 1 of Login Request and Response (RFC 7143 §11.12.1-4): T (transit), C (continue), CSG, NSG.
 * NSG is reserved while T is 0; it is then normalised to CSG so that equal PDUs compare equal.
 */
public record LoginFlags(boolean transit, boolean continueBit, LoginStage csg, LoginStage nsg) {
    private static final int TRANSIT_BIT = 0x80;
    private static final int CONTINUE_BIT = 0x40;

    public LoginFlags {
        Objects.requireNonNull(csg, "csg");
        Objects.requireNonNull(nsg, "nsg");
        if (transit && continueBit) {
            throw new IllegalArgumentException("T and C must not both be set (§11.12.2)");
        }
        if (!transit) {
            nsg = csg;
        }
    }

    int toByte() {
        return Bhs.flag(transit, TRANSIT_BIT) | Bhs.flag(continueBit, CONTINUE_BIT) | csg.code() << 2
                | (transit ? nsg.code() : 0);
    }

    static LoginFlags decode(ByteBuf frame, int base) {
        int byte1 = Bhs.u8(frame, base + 1);
        boolean transit = Bhs.bit(byte1, TRANSIT_BIT);
        boolean cont = Bhs.bit(byte1, CONTINUE_BIT);
        if (transit && cont) {
            throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, base, "T and C bits both set");
        }
        LoginStage csg = Bhs.require(LoginStage.fromCode(byte1 >> 2 & 3), frame, base, "reserved CSG 2");
        LoginStage nsg = transit ? Bhs.require(LoginStage.fromCode(byte1 & 3), frame, base, "reserved NSG 2") : csg;
        return new LoginFlags(transit, cont, csg, nsg);
    }
}
