package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Objects;

/**
 * SCSI Response, RFC 7143 §11.4. {@code data} is the whole data segment: for CHECK CONDITION it starts
 * with the 2-byte SenseLength (§11.4.7.2) followed by the sense data — build it with
 * {@link #senseSegment(ByteBuf)}, read it back with {@link #senseData()}.
 *
 * @param response 0x00 command completed at target, 0x01 target failure, 0x80-0xff vendor specific
 * @param status   the SCSI status byte (valid when response is 0x00)
 */
public record ScsiResponse(int response, int status, ResidualFlag bidirectionalReadResidual, ResidualFlag residual,
                           int itt, int snackTag, int statSN, int expCmdSN, int maxCmdSN, int expDataSN,
                           long bidirectionalReadResidualCount, long residualCount, ByteBuf data)
        implements TargetPdu {
    public static final int RESPONSE_COMMAND_COMPLETED = 0x00;
    public static final int RESPONSE_TARGET_FAILURE = 0x01;
    private static final int BIDI_OVERFLOW_BIT = 0x10;
    private static final int OVERFLOW_BIT = 0x04;

    public ScsiResponse {
        Bhs.checkUnsigned(response, 8, "Response");
        Bhs.checkUnsigned(status, 8, "Status");
        Objects.requireNonNull(bidirectionalReadResidual, "bidirectionalReadResidual");
        Objects.requireNonNull(residual, "residual");
        Bhs.checkUnsigned(bidirectionalReadResidualCount, 32, "BidirectionalReadResidualCount");
        Bhs.checkUnsigned(residualCount, 32, "ResidualCount");
        Objects.requireNonNull(data, "data");
    }

    /** A new (unpooled, caller-owned) data segment: SenseLength then a copy of the readable bytes of {@code sense}. */
    public static ByteBuf senseSegment(ByteBuf sense) {
        int n = sense.readableBytes();
        ByteBuf seg = Unpooled.buffer(2 + n);
        seg.writeShort(n);
        seg.writeBytes(sense, sense.readerIndex(), n);
        return seg;
    }

    /** The sense data without its length prefix, a view of {@link #data()} (not retained); empty if none. */
    public ByteBuf senseData() {
        if (data.readableBytes() < 2) {
            return Unpooled.EMPTY_BUFFER;
        }
        return data.slice(data.readerIndex() + 2, data.getUnsignedShort(data.readerIndex()));
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_RESPONSE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int byte1 = Bhs.FINAL_BIT | bidirectionalReadResidual.bits(BIDI_OVERFLOW_BIT) | residual.bits(OVERFLOW_BIT);
        int b = Bhs.begin(out, IscsiOpcode.SCSI_RESPONSE, false, byte1, 0, data.readableBytes());
        out.setByte(b + 2, response);
        out.setByte(b + 3, status);
        out.setInt(b + 16, itt);
        out.setInt(b + 20, snackTag);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setInt(b + 36, expDataSN);
        Bhs.setU32BE(out, b + 40, bidirectionalReadResidualCount);
        Bhs.setU32BE(out, b + 44, residualCount);
    }

    public static ScsiResponse decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.SCSI_RESPONSE);
        int b = p.base();
        int byte1 = Bhs.u8(frame, b + 1);
        ResidualFlag bidi = ResidualFlag.fromBits(byte1, BIDI_OVERFLOW_BIT);
        ResidualFlag residual = ResidualFlag.fromBits(byte1, OVERFLOW_BIT);
        if (bidi == null || residual == null) {
            throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, b, "overflow and underflow both set");
        }
        int dsl = p.dataSegmentLength();
        if (dsl == 1 || (dsl >= 2 && 2 + Bhs.u16BE(frame, p.dataIndex()) > dsl)) {
            throw Bhs.error(IscsiProtocolException.Reason.INVALID_FIELD, frame, b,
                    "SenseLength does not fit the data segment of " + dsl + " bytes");
        }
        return new ScsiResponse(Bhs.u8(frame, b + 2), Bhs.u8(frame, b + 3), bidi, residual, Bhs.itt(frame, b),
                frame.getInt(b + 20), frame.getInt(b + 24), frame.getInt(b + 28), frame.getInt(b + 32),
                frame.getInt(b + 36), Bhs.u32BE(frame, b + 40), Bhs.u32BE(frame, b + 44), Bhs.retainedData(frame, p));
    }
}
