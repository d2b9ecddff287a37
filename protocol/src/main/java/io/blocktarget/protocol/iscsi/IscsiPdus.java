package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Locale;

/** Decodes a digest-free frame of any opcode by dispatching on byte 0 (ownership as in {@link IscsiPdu}). */
public final class IscsiPdus {
    private IscsiPdus() {
    }

    /** Decodes a PDU sent by either side. */
    public static IscsiPdu decode(ByteBuf frame) {
        IscsiOpcode opcode = opcodeOf(frame);
        return switch (opcode) {
            case NOP_OUT -> NopOut.decode(frame);
            case SCSI_COMMAND -> ScsiCommand.decode(frame);
            case TASK_MANAGEMENT_REQUEST -> TaskManagementRequest.decode(frame);
            case LOGIN_REQUEST -> LoginRequest.decode(frame);
            case TEXT_REQUEST -> TextRequest.decode(frame);
            case DATA_OUT -> DataOut.decode(frame);
            case LOGOUT_REQUEST -> LogoutRequest.decode(frame);
            case SNACK_REQUEST -> SnackRequest.decode(frame);
            case NOP_IN -> NopIn.decode(frame);
            case SCSI_RESPONSE -> ScsiResponse.decode(frame);
            case TASK_MANAGEMENT_RESPONSE -> TaskManagementResponse.decode(frame);
            case LOGIN_RESPONSE -> LoginResponse.decode(frame);
            case TEXT_RESPONSE -> TextResponse.decode(frame);
            case DATA_IN -> DataIn.decode(frame);
            case LOGOUT_RESPONSE -> LogoutResponse.decode(frame);
            case R2T -> R2t.decode(frame);
            case ASYNC_MESSAGE -> AsyncMessage.decode(frame);
            case REJECT -> Reject.decode(frame);
        };
    }

    /** What a target receives: an initiator PDU, or {@link IscsiProtocolException.Reason#BAD_OPCODE}. */
    public static InitiatorPdu decodeInitiatorPdu(ByteBuf frame) {
        expectSource(frame, PduSource.INITIATOR);
        return (InitiatorPdu) decode(frame);
    }

    /** What an initiator receives: a target PDU, or {@link IscsiProtocolException.Reason#BAD_OPCODE}. */
    public static TargetPdu decodeTargetPdu(ByteBuf frame) {
        expectSource(frame, PduSource.TARGET);
        return (TargetPdu) decode(frame);
    }

    static IscsiPdu decode(ByteBuf frame, PduSource sender) {
        return sender == PduSource.INITIATOR ? decodeInitiatorPdu(frame) : decodeTargetPdu(frame);
    }

    private static void expectSource(ByteBuf frame, PduSource sender) {
        IscsiOpcode opcode = opcodeOf(frame);
        if (opcode.source() != sender) {
            throw Bhs.error(IscsiProtocolException.Reason.BAD_OPCODE, frame, frame.readerIndex(),
                    opcode + " is not sent by the " + sender.name().toLowerCase(Locale.ROOT));
        }
    }

    private static IscsiOpcode opcodeOf(ByteBuf frame) {
        int base = frame.readerIndex();
        if (frame.readableBytes() < Bhs.LENGTH) {
            throw Bhs.error(IscsiProtocolException.Reason.TRUNCATED, frame, base,
                    "frame has " + frame.readableBytes() + " bytes, the BHS needs 48");
        }
        int code = Bhs.opcodeCode(frame, base);
        return IscsiOpcode.fromCode(code).orElseThrow(() -> Bhs.error(IscsiProtocolException.Reason.BAD_OPCODE,
                frame, base, "reserved or vendor-specific opcode 0x" + Integer.toHexString(code)));
    }
}
