package io.blocktarget.protocol.iscsi;

import java.util.Optional;

/**
 * The opcodes of RFC 7143 §11.2.1.2 with their 6-bit wire codes. Vendor-specific opcodes (0x1c-0x1e,
 * 0x3c-0x3e) and all reserved codes have no constant: {@link #fromCode} returns empty for them and the
 * decoder reports {@link IscsiProtocolException.Reason#BAD_OPCODE}.
 *
 * <p>{@code ahsAllowed} / {@code dataAllowed} encode the "(=0)" annotations of the §11 figures: a PDU
 * whose layout fixes TotalAHSLength or DataSegmentLength at zero is rejected when it carries one.
 */
public enum IscsiOpcode {
    NOP_OUT(0x00, PduSource.INITIATOR, false, true),
    SCSI_COMMAND(0x01, PduSource.INITIATOR, true, true),
    TASK_MANAGEMENT_REQUEST(0x02, PduSource.INITIATOR, false, false),
    LOGIN_REQUEST(0x03, PduSource.INITIATOR, false, true),
    TEXT_REQUEST(0x04, PduSource.INITIATOR, false, true),
    DATA_OUT(0x05, PduSource.INITIATOR, false, true),
    LOGOUT_REQUEST(0x06, PduSource.INITIATOR, false, false),
    SNACK_REQUEST(0x10, PduSource.INITIATOR, false, false),
    NOP_IN(0x20, PduSource.TARGET, false, true),
    SCSI_RESPONSE(0x21, PduSource.TARGET, false, true),
    TASK_MANAGEMENT_RESPONSE(0x22, PduSource.TARGET, false, false),
    LOGIN_RESPONSE(0x23, PduSource.TARGET, false, true),
    TEXT_RESPONSE(0x24, PduSource.TARGET, false, true),
    DATA_IN(0x25, PduSource.TARGET, false, true),
    LOGOUT_RESPONSE(0x26, PduSource.TARGET, false, false),
    R2T(0x31, PduSource.TARGET, false, false),
    ASYNC_MESSAGE(0x32, PduSource.TARGET, false, true),
    REJECT(0x3f, PduSource.TARGET, false, true);

    private static final IscsiOpcode[] BY_CODE = new IscsiOpcode[64];

    static {
        for (IscsiOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final PduSource source;
    private final boolean ahsAllowed;
    private final boolean dataAllowed;

    IscsiOpcode(int code, PduSource source, boolean ahsAllowed, boolean dataAllowed) {
        this.code = code;
        this.source = source;
        this.ahsAllowed = ahsAllowed;
        this.dataAllowed = dataAllowed;
    }

    /** The 6-bit wire code (byte 0, bits 0-5). */
    public int code() {
        return code;
    }

    public PduSource source() {
        return source;
    }

    /** Only the SCSI Command carries AHS (extended CDB, bidirectional read length, §11.2.2). */
    public boolean ahsAllowed() {
        return ahsAllowed;
    }

    public boolean dataAllowed() {
        return dataAllowed;
    }

    /** The opcode for a 6-bit code, empty for reserved and vendor-specific codes. */
    public static Optional<IscsiOpcode> fromCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            return Optional.empty();
        }
        return Optional.ofNullable(BY_CODE[code]);
    }
}
