package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Reject, RFC 7143 §11.17. {@code data} is the complete header (BHS, §11.17.1) of the rejected PDU;
 * {@code dataSNOrR2TSN} is meaningful only for a SNACK reject.
 */
public record Reject(RejectReason reason, int statSN, int expCmdSN, int maxCmdSN, int dataSNOrR2TSN, ByteBuf data)
        implements TargetPdu {
    public Reject {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(data, "data");
    }

    /** §11.17: bytes 16-19 are always 0xffffffff. */
    @Override
    public int itt() {
        return Bhs.RESERVED_TAG;
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.REJECT;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.REJECT, false, Bhs.FINAL_BIT, 0, data.readableBytes());
        out.setByte(b + 2, reason.code());
        out.setInt(b + 16, Bhs.RESERVED_TAG);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setInt(b + 36, dataSNOrR2TSN);
    }

    public static Reject decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.REJECT);
        int b = p.base();
        RejectReason reason = Bhs.require(RejectReason.fromCode(Bhs.u8(frame, b + 2)), frame, b,
                "reserved reject reason " + Bhs.u8(frame, b + 2));
        return new Reject(reason, frame.getInt(b + 24), frame.getInt(b + 28), frame.getInt(b + 32),
                frame.getInt(b + 36), Bhs.retainedData(frame, p));
    }
}
