package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Text Response, RFC 7143 §11.11. With F 0 the target sets a TTT other than 0xffffffff so the initiator
 * can continue the exchange; F and C are mutually exclusive.
 */
public record TextResponse(boolean finalBit, boolean continueBit, long lun, int itt, int ttt, int statSN,
                           int expCmdSN, int maxCmdSN, ByteBuf data) implements TargetPdu {
    public TextResponse {
        TextFlags.check(finalBit, continueBit);
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.TEXT_RESPONSE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.TEXT_RESPONSE, false, TextFlags.toByte(finalBit, continueBit), 0,
                data.readableBytes());
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
    }

    public static TextResponse decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.TEXT_RESPONSE);
        int b = p.base();
        boolean cont = TextFlags.decodeContinue(frame, b);
        return new TextResponse(Bhs.finalBit(frame, b), cont, Bhs.lun(frame, b), Bhs.itt(frame, b),
                frame.getInt(b + 20), frame.getInt(b + 24), frame.getInt(b + 28), frame.getInt(b + 32),
                Bhs.retainedData(frame, p));
    }
}
