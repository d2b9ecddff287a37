package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * NOP-In, RFC 7143 §11.19: the answer to a NOP-Out ping (ITT echoed, TTT 0xffffffff, ping data echoed) or
 * a target-initiated ping (ITT 0xffffffff, TTT set).
 */
public record NopIn(long lun, int itt, int ttt, int statSN, int expCmdSN, int maxCmdSN, ByteBuf data)
        implements TargetPdu {
    public NopIn {
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.NOP_IN;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.NOP_IN, false, Bhs.FINAL_BIT, 0, data.readableBytes());
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
    }

    public static NopIn decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.NOP_IN);
        int b = p.base();
        return new NopIn(Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20), frame.getInt(b + 24),
                frame.getInt(b + 28), frame.getInt(b + 32), Bhs.retainedData(frame, p));
    }
}
