package io.blocktarget.protocol.iscsi;

import java.util.Optional;

/**
 * The only exception the iSCSI codecs throw for bad input. The {@link Reason} says how the transport must
 * react (RFC 7143 §7: a Reject PDU carrying the offending header, or dropping the connection when the
 * byte stream can no longer be trusted, e.g. a header digest error at ErrorRecoveryLevel 0).
 */
public final class IscsiProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final byte[] NO_HEADER = new byte[0];

    /** What the transport does with the connection. */
    public enum Disposition {
        /** Send a Reject PDU (reason {@link Reason#rejectReason()}, data = the offending BHS) and go on. */
        REJECT,
        /** The framing is lost or untrusted: close the connection. */
        CLOSE_CONNECTION
    }

    /** Why a frame or data segment was refused. */
    public enum Reason {
        /** The buffer ends before the lengths in the header say it should. */
        TRUNCATED(Disposition.CLOSE_CONNECTION, null),
        /** DataSegmentLength above the negotiated MaxRecvDataSegmentLength (§13.12); checked before allocating. */
        DATA_SEGMENT_TOO_LONG(Disposition.CLOSE_CONNECTION, null),
        /** TotalAHSLength above what this receiver accepts; checked before allocating. */
        AHS_TOO_LONG(Disposition.CLOSE_CONNECTION, null),
        /** §7.8 / §13.1: the header cannot be trusted, so neither can its lengths. */
        HEADER_DIGEST_ERROR(Disposition.CLOSE_CONNECTION, null),
        /** §7.8: the header is sound, the payload is discarded and rejected. */
        DATA_DIGEST_ERROR(Disposition.REJECT, RejectReason.DATA_DIGEST_ERROR),
        /** Reserved, vendor-specific or wrong-direction opcode (§11.2.1.2). */
        BAD_OPCODE(Disposition.REJECT, RejectReason.COMMAND_NOT_SUPPORTED),
        /** TotalAHSLength non-zero on a PDU whose layout fixes it at 0. */
        AHS_NOT_ALLOWED(Disposition.REJECT, RejectReason.INVALID_PDU_FIELD),
        /** DataSegmentLength non-zero on a PDU whose layout fixes it at 0. */
        DATA_SEGMENT_NOT_ALLOWED(Disposition.REJECT, RejectReason.INVALID_PDU_FIELD),
        /** An AHS that overruns TotalAHSLength, is of a reserved type or repeats (§11.2.2). */
        BAD_AHS(Disposition.REJECT, RejectReason.INVALID_PDU_FIELD),
        /** A reserved code value in a defined field or a forbidden bit combination (§11.2.1: protocol error). */
        INVALID_FIELD(Disposition.REJECT, RejectReason.INVALID_PDU_FIELD),
        /** Text segment (§6.1): a string without '='. */
        TEXT_MISSING_EQUALS(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Text segment: key name empty, longer than 63 bytes or with characters outside §6.1's set. */
        TEXT_BAD_KEY(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Text segment: value longer than 255 bytes (8192 for the large binary CHAP values). */
        TEXT_VALUE_TOO_LONG(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Text segment: not valid UTF-8 (§6.1). */
        TEXT_NOT_UTF8(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Text segment: a key sent twice in one negotiation (§6.1 forbids it). */
        TEXT_DUPLICATE_KEY(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Text segment: the last key=value is not NUL-terminated and the C bit is not set. */
        TEXT_NOT_TERMINATED(Disposition.REJECT, RejectReason.PROTOCOL_ERROR),
        /** Concatenated continuation segments exceed the receiver's cap. */
        TEXT_TOO_LONG(Disposition.REJECT, RejectReason.PROTOCOL_ERROR);

        private final Disposition disposition;
        private final RejectReason rejectReason;

        Reason(Disposition disposition, RejectReason rejectReason) {
            this.disposition = disposition;
            this.rejectReason = rejectReason;
        }

        public Disposition disposition() {
            return disposition;
        }

        /** The Reject reason to send; empty when the disposition is {@link Disposition#CLOSE_CONNECTION}. */
        public Optional<RejectReason> rejectReason() {
            return Optional.ofNullable(rejectReason);
        }
    }

    private final Reason reason;
    private final byte[] header;

    public IscsiProtocolException(Reason reason, String message) {
        this(reason, message, NO_HEADER);
    }

    public IscsiProtocolException(Reason reason, String message, byte[] header) {
        super(reason + ": " + message, null, false, false);
        this.reason = reason;
        this.header = header.clone();
    }

    public Reason reason() {
        return reason;
    }

    /** A copy of the offending 48-byte BHS (the data of the Reject, §11.17), empty when not known. */
    public byte[] header() {
        return header.clone();
    }
}
