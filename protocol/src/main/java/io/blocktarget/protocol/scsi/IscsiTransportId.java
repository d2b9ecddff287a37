package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * iSCSI TransportID (SPC-4 §7.6.4.6, Tables 459-461): byte 0 FORMAT CODE (7-6) and PROTOCOL
 * IDENTIFIER 5h (3-0); bytes 2-3 ADDITIONAL LENGTH (n - 3, a multiple of 4, at least 20); then the
 * null-terminated, zero-padded name. Format 00b names the initiator device ({@code iqn…}); format
 * 01b an initiator port ({@code iqn…,i,0x<ISID in 12 hex digits>}).
 */
public record IscsiTransportId(String name, Optional<String> isid) {
    static final int MIN_ADDITIONAL_LENGTH = 20;

    public IscsiTransportId {
        if (name.isEmpty() || name.indexOf(',') >= 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not an iSCSI name: " + name);
        }
        isid.ifPresent(i -> {
            if (!i.matches("[0-9a-fA-F]{12}")) {
                throw new IllegalArgumentException("ISID is 12 hex digits: " + i);
            }
        });
    }

    private String text() {
        return isid.map(i -> name + ",i,0x" + i).orElse(name);
    }

    /** Bytes this TransportID occupies. */
    public int length() {
        return 4 + Math.max(MIN_ADDITIONAL_LENGTH, WireText.nullTerminatedPadded4Length(text()));
    }

    public void encode(ByteBuf out) {
        out.writeByte((isid.isPresent() ? 0x40 : 0) | Designator.PROTOCOL_ISCSI); // 0
        out.writeByte(0);                                                        // 1: reserved
        out.writeShort(length() - 4);                                            // 2-3: ADDITIONAL LENGTH
        int written = WireText.writeNullTerminatedPadded4(out, text());
        out.writeZero(length() - 4 - written);
    }

    /**
     * Decodes the TransportID at absolute {@code index}, within {@code end}; field pointers are
     * relative to {@code pointerBase} (the parameter list start). Only iSCSI TransportIDs are valid:
     * this is an iSCSI target.
     */
    static Parsed<IscsiTransportId> decode(ByteBuf buf, int index, int end, int pointerBase) {
        int offset = index - pointerBase;
        if (end - index < 4) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int b0 = buf.getUnsignedByte(index);
        if ((b0 & 0x0F) != Designator.PROTOCOL_ISCSI) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset, 3));
        }
        int format = b0 >>> 6;
        if (format > 1 || (b0 & 0x30) != 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset, 7));
        }
        int additional = buf.getUnsignedShort(index + 2);
        if (additional < MIN_ADDITIONAL_LENGTH || additional % 4 != 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset + 2, 7));
        }
        if (index + 4 + additional > end) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int nul = buf.indexOf(index + 4, index + 4 + additional, (byte) 0);
        if (nul < 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset + 4, 7));
        }
        String text = buf.toString(index + 4, nul - index - 4, StandardCharsets.UTF_8);
        int comma = text.indexOf(",i,0x");
        try {
            if (format == 0 && comma < 0) {
                return Parsed.ok(new IscsiTransportId(text, Optional.empty()));
            }
            if (format == 1 && comma > 0) {
                return Parsed.ok(new IscsiTransportId(text.substring(0, comma), Optional.of(text.substring(comma + 5))));
            }
        } catch (IllegalArgumentException e) {
            // fall through: a malformed name is an invalid field, not an exception
        }
        return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset + 4, 7));
    }
}
