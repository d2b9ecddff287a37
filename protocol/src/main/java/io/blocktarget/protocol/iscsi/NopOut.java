package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * NOP-Out, RFC 7143 §11.18: a ping (ITT set, answered by NOP-In) or the answer to a target's NOP-In
 * (TTT echoed, ITT 0xffffffff). The data segment is ping data, echoed back by the target.
 */
public record NopOut(boolean immediate, long lun, int itt, int ttt, int cmdSN, int expStatSN, ByteBuf data)
        implements InitiatorPdu {
    public NopOut {
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.NOP_OUT;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.NOP_OUT, immediate, Bhs.FINAL_BIT, 0, data.readableBytes());
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
    }

    public static NopOut decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.NOP_OUT);
        int b = p.base();
        return new NopOut(Bhs.immediate(frame, b), Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20),
                frame.getInt(b + 24), frame.getInt(b + 28), Bhs.retainedData(frame, p));
    }
}
