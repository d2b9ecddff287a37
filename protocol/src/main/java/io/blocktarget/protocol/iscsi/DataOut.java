package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/** SCSI Data-Out, RFC 7143 §11.7: write data, solicited by an R2T (TTT set) or unsolicited (TTT 0xffffffff). */
public record DataOut(boolean finalBit, long lun, int itt, int ttt, int expStatSN, int dataSN, long bufferOffset,
                      ByteBuf data) implements InitiatorPdu {
    public DataOut {
        Bhs.checkUnsigned(bufferOffset, 32, "BufferOffset");
        Objects.requireNonNull(data, "data");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.DATA_OUT;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.DATA_OUT, false, Bhs.flag(finalBit, Bhs.FINAL_BIT), 0, data.readableBytes());
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        out.setInt(b + 28, expStatSN);
        out.setInt(b + 36, dataSN);
        Bhs.setU32BE(out, b + 40, bufferOffset);
    }

    public static DataOut decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.DATA_OUT);
        int b = p.base();
        return new DataOut(Bhs.finalBit(frame, b), Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20),
                frame.getInt(b + 28), frame.getInt(b + 36), Bhs.u32BE(frame, b + 40), Bhs.retainedData(frame, p));
    }
}
