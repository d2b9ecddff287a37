package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The EXTENDED COPY (LID1) parameter list (SPC-4 §6.4.2, Table 105) as far as a block-to-block copy
 * manager needs it: a 16-byte header, identification descriptor CSCDs (E4h, §6.4.5.3) naming logical
 * units by an NAA designator, and block device to block device segment descriptors (02h, §6.4.6.5).
 * Any other descriptor type is refused, each error pointing at the offending byte of the list.
 *
 * @param listIdentifier LIST IDENTIFIER
 * @param listIdUsage    LIST ID USAGE: 00b / 10b hold the copy status for RECEIVE COPY RESULTS, 11b not
 */
public record ExtendedCopyParameters(int listIdentifier, int listIdUsage, List<Cscd> cscds, List<Segment> segments) {
    public static final int HEADER_LENGTH = 16;
    public static final int CSCD_LENGTH = 32;
    public static final int SEGMENT_LENGTH = 28;
    public static final int IDENTIFICATION_CSCD = 0xE4;
    public static final int BLOCK_TO_BLOCK = 0x02;
    public static final int LIST_ID_NOT_HELD = 0b11;
    /** The largest CSCD descriptor ID that indexes the CSCD descriptor list (SPC §6.4.6.1, Table 148). */
    public static final int MAXIMUM_CSCD_DESCRIPTOR_ID = 0x07FF;

    /** What the copy manager accepts (RECEIVE COPY RESULTS OPERATING PARAMETERS reports the same). */
    public record Limits(int maximumCscds, int maximumSegments, int maximumDescriptorListLength,
                         long maximumSegmentLength) {
    }

    /**
     * An identification descriptor CSCD: the designator bytes of an NAA designator (code set binary,
     * association logical unit) and the DISK BLOCK LENGTH of its block device parameters.
     */
    public record Cscd(byte[] naa, int diskBlockLength) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Cscd c && Arrays.equals(c.naa, naa) && c.diskBlockLength == diskBlockLength;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(naa) * 31 + diskBlockLength;
        }
    }

    /**
     * A block to block segment.
     *
     * @param offset          byte offset of the descriptor in the parameter list (for field pointers)
     * @param dc              DC: NUMBER OF BLOCKS counts destination blocks
     * @param source          SOURCE CSCD DESCRIPTOR ID, 0..07FFh; may name no CSCD descriptor of the list
     * @param destination     DESTINATION CSCD DESCRIPTOR ID, likewise
     * @param blocks          BLOCK DEVICE NUMBER OF BLOCKS
     */
    public record Segment(int offset, boolean dc, int source, int destination, int blocks, long sourceLba,
                          long destinationLba) {
        /** ILLEGAL REQUEST field pointer at byte {@code relative} of the descriptor (+4: SOURCE CSCD ID). */
        public FieldPointer field(int relative) {
            return FieldPointer.parameter(offset + relative, 7);
        }
    }

    private static <T> Parsed<T> invalid(SenseReason reason, int at, int bit) {
        return Parsed.invalid(reason, FieldPointer.parameter(at, bit));
    }

    public static Parsed<ExtendedCopyParameters> parse(ByteBuf list, Limits limits) {
        int base = list.readerIndex();
        int length = list.readableBytes();
        if (length < HEADER_LENGTH) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int listId = list.getUnsignedByte(base);
        int flags = list.getUnsignedByte(base + 1);
        int usage = (flags >>> 3) & 0x3;
        if ((flags & 0xC0) != 0) {
            return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 1, 31 - Integer.numberOfLeadingZeros(flags & 0xC0));
        }
        if (usage == 0b01) {                                            // reserved
            return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 1, 4);
        }
        if (usage == LIST_ID_NOT_HELD && listId != 0) {                 // §6.4.2: the identifier shall be zero
            return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 0, 7);
        }
        int cscdLength = list.getUnsignedShort(base + 2);
        long segmentLength = list.getUnsignedInt(base + 8);
        long inlineLength = list.getUnsignedInt(base + 12);
        if (inlineLength != 0) {                                        // MAXIMUM INLINE DATA LENGTH 0
            return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 12, 7);
        }
        if (cscdLength + segmentLength > limits.maximumDescriptorListLength()) {
            return invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR, 2, 7);
        }
        if (HEADER_LENGTH + cscdLength + segmentLength != length) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        if (cscdLength % CSCD_LENGTH != 0) {
            return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 2, 7);
        }
        if (cscdLength / CSCD_LENGTH > limits.maximumCscds()) {
            return invalid(SenseReason.TOO_MANY_TARGET_DESCRIPTORS, 2, 7);
        }
        List<Cscd> cscds = new ArrayList<>();
        for (int at = HEADER_LENGTH; at < HEADER_LENGTH + cscdLength; at += CSCD_LENGTH) {
            int type = list.getUnsignedByte(base + at);
            if (type != IDENTIFICATION_CSCD) {
                return invalid(SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, at, 7);
            }
            // Byte 1: LU ID TYPE (7-6), obsolete (5, SPC-3's NUL), PERIPHERAL DEVICE TYPE (4-0). SPC §6.4.5.6:
            // "The LU ID TYPE field shall be ignored in the Identification Descriptor CSCD descriptor", so a
            // reserved 10b / 11b is no error here (§6.4.5.1's INVALID FIELD IN PARAMETER LIST for unsupported
            // LU ID TYPEs is for CSCD descriptors that carry a LU IDENTIFIER); the obsolete bit is ignored too.
            if ((list.getUnsignedByte(base + at + 1) & 0x1F) != Peripheral.DIRECT_ACCESS_BLOCK_DEVICE.deviceType()) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 1, 4);
            }
            int codeSet = list.getUnsignedByte(base + at + 4) & 0x0F;
            int assocType = list.getUnsignedByte(base + at + 5);
            int designatorLength = list.getUnsignedByte(base + at + 7);
            // NAA (type 3h), association logical unit (00b), binary (1h), 8 or 16 bytes (§6.4.5.3: at most 20)
            if (codeSet != 0x1) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 4, 3);
            }
            if ((assocType & 0x3F) != 0x03) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 5, 5);
            }
            if (designatorLength != 8 && designatorLength != 16) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 7, 7);
            }
            byte[] naa = new byte[designatorLength];
            list.getBytes(base + at + 8, naa);
            int blockLength = list.getUnsignedMedium(base + at + 29);   // DISK BLOCK LENGTH, bytes 29-31
            cscds.add(new Cscd(naa, blockLength));
        }
        List<Segment> segments = new ArrayList<>();
        int end = HEADER_LENGTH + cscdLength + (int) segmentLength;
        for (int at = HEADER_LENGTH + cscdLength; at < end; ) {
            int type = list.getUnsignedByte(base + at);
            if (type != BLOCK_TO_BLOCK) {
                return invalid(SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, at, 7);
            }
            if (segments.size() == limits.maximumSegments()) {
                return invalid(SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS, 8, 7);
            }
            if (end - at < SEGMENT_LENGTH || list.getUnsignedShort(base + at + 2) != SEGMENT_LENGTH - 4) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 2, 7);
            }
            int b1 = list.getUnsignedByte(base + at + 1);
            if ((b1 & 0x01) != 0) {                                     // CAT: no residue handling
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 1, 0);
            }
            // CSCD descriptor IDs (SPC §6.4.6.1, Table 148): 0000h-07FFh index the CSCD descriptor list; the
            // null-LU (C000h/C001h), ROD (F800h) and own-LU (FFFFh) codes are not supported and the rest is
            // reserved: an invalid parameter, refused before any segment is processed (§5.17.7.3), as Linux
            // LIO does. An index past the end of the list names no CSCD at all: that is found when the
            // segment is processed (COPY ABORTED, see the copy manager), so it is not refused here.
            int source = list.getUnsignedShort(base + at + 4);
            int destination = list.getUnsignedShort(base + at + 6);
            if (source > MAXIMUM_CSCD_DESCRIPTOR_ID) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 4, 7);
            }
            if (destination > MAXIMUM_CSCD_DESCRIPTOR_ID) {
                return invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, at + 6, 7);
            }
            segments.add(new Segment(at, (b1 & 0x02) != 0, source, destination,
                    list.getUnsignedShort(base + at + 10), list.getLong(base + at + 12), list.getLong(base + at + 20)));
            at += SEGMENT_LENGTH;
        }
        return Parsed.ok(new ExtendedCopyParameters(listId, usage, List.copyOf(cscds), List.copyOf(segments)));
    }
}
