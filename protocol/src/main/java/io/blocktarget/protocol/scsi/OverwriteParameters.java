package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * The SANITIZE OVERWRITE parameter list (SBC-4 §5.30.3): INVERT, TEST, OVERWRITE COUNT, then
 * INITIALIZATION PATTERN LENGTH and the pattern, which is repeated to fill each logical block.
 *
 * @param invert         INVERT: the pattern is inverted between consecutive passes
 * @param overwriteCount passes, 1..31
 * @param pattern        the INITIALIZATION PATTERN bytes, 1..LBS of them
 */
public record OverwriteParameters(boolean invert, int overwriteCount, byte[] pattern) {
    public static final int HEADER_LENGTH = 4;

    /**
     * Parses {@code list} (exactly PARAMETER LIST LENGTH bytes) for a logical block size of {@code lbs}:
     * TEST other than 00b (vendor specific test modes), OVERWRITE COUNT 0, a reserved bit, or a pattern
     * length of 0, above the block size or other than the list's remaining bytes are INVALID FIELD IN
     * PARAMETER LIST pointing at the field.
     */
    public static Parsed<OverwriteParameters> parse(ByteBuf list, int lbs) {
        int base = list.readerIndex();
        if (list.readableBytes() < HEADER_LENGTH) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int b0 = list.getUnsignedByte(base);
        if ((b0 & 0x60) != 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(0, 6));
        }
        int count = b0 & 0x1F;
        if (count == 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(0, 4));
        }
        int reserved = list.getUnsignedByte(base + 1);
        if (reserved != 0) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                    FieldPointer.parameter(1, 31 - Integer.numberOfLeadingZeros(reserved)));
        }
        int length = list.getUnsignedShort(base + 2);
        if (length == 0 || length > lbs || length != list.readableBytes() - HEADER_LENGTH) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(2, 7));
        }
        byte[] pattern = new byte[length];
        list.getBytes(base + HEADER_LENGTH, pattern);
        return Parsed.ok(new OverwriteParameters((b0 & 0x80) != 0, count, pattern));
    }

    /** One logical block of pass {@code pass} (0-based): the pattern repeated, inverted on odd passes with INVERT. */
    public byte[] block(int lbs, int pass) {
        byte[] block = new byte[lbs];
        boolean inverted = invert && (pass & 1) == 1;
        for (int i = 0; i < lbs; i++) {
            block[i] = (byte) (inverted ? ~pattern[i % pattern.length] : pattern[i % pattern.length]);
        }
        return block;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OverwriteParameters p && p.invert == invert && p.overwriteCount == overwriteCount
                && java.util.Arrays.equals(p.pattern, pattern);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(invert, overwriteCount, java.util.Arrays.hashCode(pattern));
    }

    @Override
    public String toString() {
        return "OverwriteParameters[invert=" + invert + ", overwriteCount=" + overwriteCount + ", pattern="
                + java.util.HexFormat.of().formatHex(pattern) + "]";
    }
}
