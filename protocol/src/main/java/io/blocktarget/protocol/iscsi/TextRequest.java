package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Text Request, RFC 7143 §11.10. F and C are mutually exclusive (§11.10.2); {@code ttt} is 0xffffffff
 * on a new negotiation and echoes the target's TTT when continuing one.
 */
public record TextRequest(boolean immediate, boolean finalBit, boolean continueBit, long lun, int itt, int ttt,
                          int cmdSN, int expStatSN, ByteBuf data) implements InitiatorPdu {
    public TextRequest {
        TextFlags.check(finalBit, continueBit);
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TEXT_REQUEST;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.TEXT_REQUEST, immediate, TextFlags.toByte(finalBit, continueBit), 0,
                data.readableBytes());
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
    }

    public static TextRequest decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.TEXT_REQUEST);
        int b = p.base();
        boolean cont = TextFlags.decodeContinue(frame, b);
        return new TextRequest(Bhs.immediate(frame, b), Bhs.finalBit(frame, b), cont, Bhs.lun(frame, b),
                Bhs.itt(frame, b), frame.getInt(b + 20), frame.getInt(b + 24), frame.getInt(b + 28),
                Bhs.retainedData(frame, p));
    }
}
