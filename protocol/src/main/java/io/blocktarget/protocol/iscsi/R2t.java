package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

/** Ready To Transfer, RFC 7143 §11.8: asks for {@code desiredDataTransferLength} bytes at {@code bufferOffset}. */
public record R2t(long lun, int itt, int ttt, int statSN, int expCmdSN, int maxCmdSN, int r2tSN, long bufferOffset,
                  long desiredDataTransferLength) implements TargetPdu {
    public R2t {
        Bhs.checkUnsigned(bufferOffset, 32, "BufferOffset");
        Bhs.checkUnsigned(desiredDataTransferLength, 32, "DesiredDataTransferLength");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.R2T;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.R2T, false, Bhs.FINAL_BIT, 0, 0);
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setInt(b + 36, r2tSN);
        Bhs.setU32BE(out, b + 40, bufferOffset);
        Bhs.setU32BE(out, b + 44, desiredDataTransferLength);
    }

    public static R2t decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.R2T).base();
        return new R2t(Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20), frame.getInt(b + 24),
                frame.getInt(b + 28), frame.getInt(b + 32), frame.getInt(b + 36), Bhs.u32BE(frame, b + 40),
                Bhs.u32BE(frame, b + 44));
    }
}
