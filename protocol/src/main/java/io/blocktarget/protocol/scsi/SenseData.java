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
 */
public record SenseData(SenseKey senseKey, int asc, int ascq, OptionalLong information,
                        Optional<FieldPointer> fieldPointer, OptionalInt progressIndication) {

    /** Fixed format length: 8-byte header + ADDITIONAL SENSE LENGTH 10 (SPC-4 §4.5.3, Table 45). */
    public static final int FIXED_LENGTH = 18;
    static final int RESPONSE_CODE_FIXED_CURRENT = 0x70;
    static final int RESPONSE_CODE_DESCRIPTOR_CURRENT = 0x72;

    public SenseData {
        if ((asc & ~0xFF) != 0 || (ascq & ~0xFF) != 0) {
            throw new IllegalArgumentException("ASC/ASCQ out of range");
        }
        if (fieldPointer.isPresent() && progressIndication.isPresent()
                || (progressIndication.orElse(0) & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("one sense key specific field, progress 0..65535");
        }
    }

    public SenseData(SenseKey senseKey, int asc, int ascq, OptionalLong information, Optional<FieldPointer> fieldPointer) {
        this(senseKey, asc, ascq, information, fieldPointer, OptionalInt.empty());
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
        return fieldPointer.map(FieldPointer::encodeSks).orElse(0);
    }

    private boolean hasSenseKeySpecific() {
        return fieldPointer.isPresent() || progressIndication.isPresent();
    }

    public static SenseData of(SenseReason reason) {
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), Optional.empty());
    }

    public static SenseData of(SenseReason reason, Optional<FieldPointer> fieldPointer) {
        return new SenseData(reason.senseKey(), reason.asc(), reason.ascq(), OptionalLong.empty(), fieldPointer);
    }

    public SenseData withInformation(long value) {
        return new SenseData(senseKey, asc, ascq, OptionalLong.of(value), fieldPointer, progressIndication);
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
        out.writeInt(0);                                                   // 8-11: COMMAND-SPECIFIC INFORMATION
        out.writeByte(asc);                                                // 12
        out.writeByte(ascq);                                               // 13
        out.writeByte(0);                                                  // 14: FIELD REPLACEABLE UNIT CODE
        out.writeMedium(senseKeySpecific());                                // 15-17: SENSE KEY SPECIFIC
    }

    /**
     * Descriptor format (SPC-4 §4.5.2, Table 26) with an Information descriptor (type 00h, §4.5.2.2)
     * and a Sense key specific descriptor (type 02h, §4.5.2.4) when those are present.
     */
    public void encodeDescriptor(ByteBuf out) {
        int additional = (information.isPresent() ? 12 : 0) + (hasSenseKeySpecific() ? 8 : 0);
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
        if (hasSenseKeySpecific()) {
            out.writeByte(0x02);                        // DESCRIPTOR TYPE: sense key specific
            out.writeByte(0x06);                        // ADDITIONAL LENGTH
            out.writeShort(0);                          // reserved
            out.writeMedium(senseKeySpecific());        // SKSV .. FIELD POINTER / PROGRESS INDICATION
            out.writeByte(0);                           // reserved
        }
    }
}
