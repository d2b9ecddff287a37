package io.blocktarget.protocol.scsi;

/**
 * SENSE KEY SPECIFIC segment pointer for COPY ABORTED (SPC-4 §4.5.2.4.5): which byte (and optionally
 * which bit) of an EXTENDED COPY parameter list is in error, counted from the start of the parameter
 * list (SD = 0) or from the start of the segment descriptor named by the segment number in the
 * COMMAND-SPECIFIC INFORMATION field (SD = 1). Byte 0 is SKSV(7), reserved(6), SD(5), reserved(4),
 * BPV(3), BIT POINTER(2-0) — unlike the ILLEGAL REQUEST {@link FieldPointer}, bit 6 is not C/D.
 *
 * @param inSegmentDescriptor SD
 * @param field               byte offset, 0..65535
 * @param bit                 bit 0..7, or -1 for none (BPV = 0)
 */
public record SegmentPointer(boolean inSegmentDescriptor, int field, int bit) {
    public SegmentPointer {
        if (field < 0 || field > 0xFFFF) {
            throw new IllegalArgumentException("field pointer out of range: " + field);
        }
        if (bit < -1 || bit > 7) {
            throw new IllegalArgumentException("bit pointer out of range: " + bit);
        }
    }

    /** A field of the segment descriptor being processed (SD = 1). */
    public static SegmentPointer inSegment(int field, int bit) {
        return new SegmentPointer(true, field, bit);
    }

    /** A byte of the parameter list (SD = 0), e.g. the first byte of a CSCD descriptor. */
    public static SegmentPointer inParameterList(int field) {
        return new SegmentPointer(false, field, -1);
    }

    /** The three SENSE KEY SPECIFIC bytes with SKSV set. */
    int encodeSks() {
        int b0 = 0x80 | (inSegmentDescriptor ? 0x20 : 0) | (bit >= 0 ? 0x08 | bit : 0);
        return (b0 << 16) | field;
    }
}
