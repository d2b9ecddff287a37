package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Sense data (SPC-4 §4.5) in either format: fixed (response code 70h, §4.5.3) or descriptor
 * (72h, §4.5.2) — the latter when the initiator set D_SENSE in the Control mode page.
 *
 * @param senseKey     SENSE KEY
 * @param asc          ADDITIONAL SENSE CODE
 * @param ascq         ADDITIONAL SENSE CODE QUALIFIER
 * @param information  INFORMATION field, e.g. the miscompare offset of COMPARE AND WRITE (SBC-4 §5.3)
 * @param fieldPointer SENSE KEY SPECIFIC field pointer (ILLEGAL REQUEST only)
 * @param progressIndication SENSE KEY SPECIFIC progress indication (SPC-4 §4.5.2.4.4: NOT READY while an
 *                     operation such as SANITIZE runs), 0..65535 = fraction complete × 65536
 * @param commandSpecificInformation COMMAND-SPECIFIC INFORMATION, a four-byte quantity (SPC-4 §4.5.2.3, §4.5.3),
 *                     e.g. the segment number of an aborted EXTENDED COPY in its third and fourth bytes
 * @param segmentPointer SENSE KEY SPECIFIC segment pointer (COPY ABORTED only, SPC-4 §4.5.2.4.5)
 */
public record SenseData(SenseKey senseKey, int asc, int ascq, OptionalLong information,
                        Optional<FieldPointer> fieldPointer, OptionalInt progressIndication,
                        OptionalLong commandSpecificInformation, Optional<SegmentPointer> segmentPointer) {

    /** Fixed format length: 8-byte header + ADDITIONAL SENSE LENGTH 10 (SPC-4 §4.5.3, Table 45). */
    public static final int FIXED_LENGTH = 18;
    static final int RESPONSE_CODE_FIXED_CURRENT = 0x70;
    static final int RESPONSE_CODE_DESCRIPTOR_CURRENT = 0x72;

    public SenseData {
        if ((asc & ~0xFF) != 0 || (ascq & ~0xFF) != 0) {
            throw new IllegalArgumentException("ASC/ASCQ out of range");
        }
        int sks = (fieldPointer.isPresent() ? 1 : 0) + (progressIndication.isPresent() ? 1 : 0)
                + (segmentPointer.isPresent() ? 1 : 0);
        if (sks > 1 || (progressIndication.orElse(0) & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("one sense key specific field, progress 0..65535");
        }
        if ((commandSpecificInformation.orElse(0) >>> 32) != 0) {
            throw new IllegalArgumentException("COMMAND-SPECIFIC INFORMATION is a four-byte quantity here");
        }
    }

    public SenseData(SenseKey senseKey, int asc, int ascq, OptionalLong information, Optional<FieldPointer> fieldPointer,
                     OptionalInt progressIndication) {
        this(senseKey, asc, ascq, information, fieldPointer, progressIndication, OptionalLong.empty(),
                Optional.empty());
    }

    public SenseData(SenseKey senseKey, int asc, int ascq, OptionalLong information, Optional<FieldPointer> fieldPointer) {
        this(senseKey, asc, ascq, information, fieldPointer, OptionalInt.empty());
    }

    /**
     * COPY ABORTED {@code reason} for an EXTENDED COPY stopped while processing segment descriptor
     * {@code segment} (SPC §5.17.7.4 items b, f, g: errors detected during processing of segment
     * descriptors): the segment number in the third and fourth bytes of COMMAND-SPECIFIC INFORMATION,
     * {@code pointer} as the sense key specific segment pointer, INFORMATION not valid (no residual:
     * nothing was written for that segment).
     */
    public static SenseData copyAborted(SenseReason reason, int segment, SegmentPointer pointer) {
        if (reason.senseKey() != SenseKey.COPY_ABORTED || (segment & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("COPY ABORTED with a 16-bit segment number: " + reason + " " + segment);
        }
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), Optional.empty(),
                OptionalInt.empty(), OptionalLong.of(segment), Optional.of(pointer));
    }

    /** {@code reason} with a PROGRESS INDICATION of {@code progress} / 65536. */
    public static SenseData withProgress(SenseReason reason, int progress) {
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), Optional.empty(),
                OptionalInt.of(progress));
    }

    /** The three SENSE KEY SPECIFIC bytes, SKSV set; 0 when there is none. */
    private int senseKeySpecific() {
        if (progressIndication.isPresent()) {
            return 0x80 << 16 | progressIndication.getAsInt(); // SKSV, reserved, PROGRESS INDICATION
        }
        if (segmentPointer.isPresent()) {
            return segmentPointer.get().encodeSks();
        }
        return fieldPointer.map(FieldPointer::encodeSks).orElse(0);
    }

    private boolean hasSenseKeySpecific() {
        return fieldPointer.isPresent() || progressIndication.isPresent() || segmentPointer.isPresent();
    }

    public static SenseData of(SenseReason reason) {
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), Optional.empty());
    }

    public static SenseData of(SenseReason reason, Optional<FieldPointer> fieldPointer) {
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), fieldPointer);
    }

    public SenseData withInformation(long value) {
        return new SenseData(senseKey, asc, ascq, OptionalLong.of(value), fieldPointer, progressIndication,
                commandSpecificInformation, segmentPointer);
    }

    /** Writes the sense data in descriptor format when {@code descriptorFormat} (D_SENSE = 1), else fixed. */
    public void encode(ByteBuf out, boolean descriptorFormat) {
        if (descriptorFormat) {
            encodeDescriptor(out);
        } else {
            encodeFixed(out);
        }
    }

    /** Fixed format, 18 bytes (SPC-4 §4.5.3, Table 45). */
    public void encodeFixed(ByteBuf out) {
        // INFORMATION is 4 bytes here: a larger value cannot be reported, so VALID stays 0 (§4.5.3).
        boolean valid = information.isPresent() && (information.getAsLong() >>> 32) == 0;
        out.writeByte((valid ? 0x80 : 0) | RESPONSE_CODE_FIXED_CURRENT); // 0: VALID, RESPONSE CODE
        out.writeByte(0);                                                  // 1: obsolete
        out.writeByte(senseKey.code());                                    // 2: FILEMARK/EOM/ILI/SDAT_OVFL = 0, SENSE KEY
        out.writeInt(valid ? (int) information.getAsLong() : 0);           // 3-6: INFORMATION
        out.writeByte(FIXED_LENGTH - 8);                                   // 7: ADDITIONAL SENSE LENGTH
        out.writeInt((int) commandSpecificInformation.orElse(0));          // 8-11: COMMAND-SPECIFIC INFORMATION
        out.writeByte(asc);                                                // 12
        out.writeByte(ascq);                                               // 13
        out.writeByte(0);                                                  // 14: FIELD REPLACEABLE UNIT CODE
        out.writeMedium(senseKeySpecific());                                // 15-17: SENSE KEY SPECIFIC
    }

    /**
     * Descriptor format (SPC-4 §4.5.2, Table 26) with an Information descriptor (type 00h, §4.5.2.2),
     * a Command-specific information descriptor (type 01h, §4.5.2.3) and a Sense key specific
     * descriptor (type 02h, §4.5.2.4) when those are present, in that order.
     */
    public void encodeDescriptor(ByteBuf out) {
        int additional = (information.isPresent() ? 12 : 0) + (commandSpecificInformation.isPresent() ? 12 : 0)
                + (hasSenseKeySpecific() ? 8 : 0);
        out.writeByte(RESPONSE_CODE_DESCRIPTOR_CURRENT); // 0
        out.writeByte(senseKey.code());                 // 1
        out.writeByte(asc);                             // 2
        out.writeByte(ascq);                            // 3
        out.writeByte(0);                               // 4: SDAT_OVFL = 0
        out.writeShort(0);                              // 5-6: reserved
        out.writeByte(additional);                      // 7: ADDITIONAL SENSE LENGTH
        if (information.isPresent()) {
            out.writeByte(0x00);                        // DESCRIPTOR TYPE: information
            out.writeByte(0x0A);                        // ADDITIONAL LENGTH
            out.writeByte(0x80);                        // VALID = 1 (shall be one, §4.5.2.2)
            out.writeByte(0);
            out.writeLong(information.getAsLong());     // INFORMATION, 8 bytes
        }
        if (commandSpecificInformation.isPresent()) {
            out.writeByte(0x01);                        // DESCRIPTOR TYPE: command-specific information
            out.writeByte(0x0A);                        // ADDITIONAL LENGTH
            out.writeShort(0);                          // reserved
            out.writeLong(commandSpecificInformation.getAsLong()); // a four-byte quantity: first four bytes zero
        }
        if (hasSenseKeySpecific()) {
            out.writeByte(0x02);                        // DESCRIPTOR TYPE: sense key specific
            out.writeByte(0x06);                        // ADDITIONAL LENGTH
            out.writeShort(0);                          // reserved
            out.writeMedium(senseKeySpecific());        // SKSV .. FIELD POINTER / PROGRESS INDICATION
            out.writeByte(0);                           // reserved
        }
    }
}
