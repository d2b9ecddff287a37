package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * SCSI Data-In, RFC 7143 §11.7. {@code status} present means the S bit: the PDU carries the command's
 * SCSI status (phase collapse, §11.7.4), which requires the F bit; residual flag and count are defined
 * only then (the decoder ignores them otherwise). The A bit (DataACK request) is for ErrorRecoveryLevel > 0.
 */
public record DataIn(boolean finalBit, boolean acknowledge, OptionalInt status, ResidualFlag residual, long lun,
                     int itt, int ttt, int statSN, int expCmdSN, int maxCmdSN, int dataSN, long bufferOffset,
                     long residualCount, ByteBuf data) implements TargetPdu {
    private static final int ACK_BIT = 0x40;
    private static final int OVERFLOW_BIT = 0x04;
    private static final int STATUS_BIT = 0x01;

    public DataIn {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(residual, "residual");
        Objects.requireNonNull(data, "data");
        Bhs.checkUnsigned(bufferOffset, 32, "BufferOffset");
        Bhs.checkUnsigned(residualCount, 32, "ResidualCount");
        if (status.isPresent()) {
            Bhs.checkUnsigned(status.getAsInt(), 8, "Status");
            if (!finalBit) {
                throw new IllegalArgumentException("the S bit requires the F bit (§11.7.1)");
            }
        } else if (residual != ResidualFlag.NONE || residualCount != 0) {
            throw new IllegalArgumentException("residuals are defined only with status (S bit)");
        }
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.DATA_IN;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int byte1 = Bhs.flag(finalBit, Bhs.FINAL_BIT) | Bhs.flag(acknowledge, ACK_BIT)
                | residual.bits(OVERFLOW_BIT) | Bhs.flag(status.isPresent(), STATUS_BIT);
        int b = Bhs.begin(out, IscsiOpcode.DATA_IN, false, byte1, 0, data.readableBytes());
        out.setByte(b + 3, status.orElse(0));
        Bhs.setTaskFields(out, b, lun, itt, ttt);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setInt(b + 36, dataSN);
        Bhs.setU32BE(out, b + 40, bufferOffset);
        Bhs.setU32BE(out, b + 44, residualCount);
    }

    public static DataIn decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.DATA_IN);
        int b = p.base();
        int byte1 = Bhs.u8(frame, b + 1);
        boolean fin = Bhs.bit(byte1, Bhs.FINAL_BIT);
        OptionalInt status = OptionalInt.empty();
        ResidualFlag residual = ResidualFlag.NONE;
        long residualCount = 0;
        if (Bhs.bit(byte1, STATUS_BIT)) {
            if (!fin) {
                throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, b, "S bit without F bit");
            }
            status = OptionalInt.of(Bhs.u8(frame, b + 3));
            residual = ResidualFlag.fromBits(byte1, OVERFLOW_BIT);
            if (residual == null) {
                throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, b, "both O and U bits set");
            }
            residualCount = Bhs.u32BE(frame, b + 44);
        }
        return new DataIn(fin, Bhs.bit(byte1, ACK_BIT), status, residual, Bhs.lun(frame, b), Bhs.itt(frame, b),
                frame.getInt(b + 20), frame.getInt(b + 24), frame.getInt(b + 28), frame.getInt(b + 32),
                frame.getInt(b + 36), Bhs.u32BE(frame, b + 40), residualCount, Bhs.retainedData(frame, p));
    }
}
