package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * SNACK Request, RFC 7143 §11.16. Decoded so that a target at ErrorRecoveryLevel 0 can answer it with a
 * Reject (reason {@link RejectReason#SNACK_REJECT} / protocol error) instead of dropping the connection.
 *
 * @param tttOrSnackTag TTT for DataACK, SNACK Tag for R-Data, else 0xffffffff
 */
public record SnackRequest(SnackType type, long lun, int itt, int tttOrSnackTag, int expStatSN, int begRun,
                           int runLength) implements InitiatorPdu {
    private static final int TYPE_MASK = 0x0f;

    public SnackRequest {
        Objects.requireNonNull(type, "type");
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SNACK_REQUEST;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.SNACK_REQUEST, false, Bhs.FINAL_BIT | type.code(), 0, 0);
        out.setLong(b + 8, lun);
        out.setInt(b + 16, itt);
        out.setInt(b + 20, tttOrSnackTag);
        out.setInt(b + 28, expStatSN);
        out.setInt(b + 40, begRun);
        out.setInt(b + 44, runLength);
    }

    public static SnackRequest decode(ByteBuf frame) {
        int b = Bhs.open(frame, IscsiOpcode.SNACK_REQUEST).base();
        int code = Bhs.u8(frame, b + 1) & TYPE_MASK;
        SnackType type = Bhs.require(SnackType.fromCode(code), frame, b, "reserved SNACK type " + code);
        return new SnackRequest(type, Bhs.lun(frame, b), Bhs.itt(frame, b), frame.getInt(b + 20),
                frame.getInt(b + 28), frame.getInt(b + 40), frame.getInt(b + 44));
    }
}
