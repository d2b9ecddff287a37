package io.blocktarget.protocol.scsi;

/**
 * SENSE KEY SPECIFIC field-pointer information for ILLEGAL REQUEST (SPC-4 §4.5.2.4.2, Table 30):
 * which byte (and optionally which bit) of the CDB or of the parameter list is in error. For a
 * multi-bit field, {@code bit} is its most significant (left-most) bit.
 *
 * @param inCdb  C/D bit: true = CDB, false = parameter data
 * @param field  byte offset of the field, 0..65535
 * @param bit    bit 0..7, or -1 for none (BPV = 0)
 */
public record FieldPointer(boolean inCdb, int field, int bit) {
    public FieldPointer {
        if (field < 0 || field > 0xFFFF) {
            throw new IllegalArgumentException("field pointer out of range: " + field);
        }
        if (bit < -1 || bit > 7) {
            throw new IllegalArgumentException("bit pointer out of range: " + bit);
        }
    }

    public static FieldPointer cdb(int field, int bit) {
        return new FieldPointer(true, field, bit);
    }

    public static FieldPointer cdbByte(int field) {
        return new FieldPointer(true, field, -1);
    }

    public static FieldPointer parameter(int field, int bit) {
        return new FieldPointer(false, field, bit);
    }

    public static FieldPointer parameterByte(int field) {
        return new FieldPointer(false, field, -1);
    }

    /** The same pointer moved by {@code delta} bytes (a page decoded at an offset in the parameter list). */
    public FieldPointer shifted(int delta) {
        return new FieldPointer(inCdb, field + delta, bit);
    }

    /**
     * The three SENSE KEY SPECIFIC bytes: SKSV(7)=1, C/D(6), BPV(3), BIT POINTER(2-0), then the
     * 2-byte FIELD POINTER.
     */
    int encodeSks() {
        int b0 = 0x80 | (inCdb ? 0x40 : 0) | (bit >= 0 ? 0x08 | bit : 0);
        return (b0 << 16) | field;
    }
}
