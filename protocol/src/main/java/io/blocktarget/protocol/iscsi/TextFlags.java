package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

/** F and C bits of Text Request / Response (RFC 7143 §11.10.1-2): C set means more text follows, so F must be 0. */
final class TextFlags {
    private static final int CONTINUE_BIT = 0x40;

    private TextFlags() {
    }

    static void check(boolean finalBit, boolean continueBit) {
        if (finalBit && continueBit) {
            throw new IllegalArgumentException("F and C must not both be set (§11.10.2)");
        }
    }

    static int toByte(boolean finalBit, boolean continueBit) {
        return Bhs.flag(finalBit, Bhs.FINAL_BIT) | Bhs.flag(continueBit, CONTINUE_BIT);
    }

    static boolean decodeContinue(ByteBuf frame, int base) {
        boolean cont = Bhs.bit(Bhs.u8(frame, base + 1), CONTINUE_BIT);
        if (cont && Bhs.finalBit(frame, base)) {
            throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, base, "F and C bits both set");
        }
        return cont;
    }
}
