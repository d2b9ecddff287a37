package io.blocktarget.protocol.scsi;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * EXTENDED COPY (LID1) parameter list (SPC-4 §6.4.2 Table 105, identification CSCD §6.4.5.3, block to
 * block segment §6.4.6.5): every refusal of {@link ExtendedCopyParameters#parse} with its field pointer,
 * each limit at the limit and at limit + 1; and the RECEIVE COPY RESULTS encoders byte by byte.
 */
class ExtendedCopyParametersTest {
    private static final ExtendedCopyParameters.Limits LIMITS = new ExtendedCopyParameters.Limits(2, 2, 200, 1 << 20);
    private static final byte[] NAA = Bytes.hex("60 20 00 01 23 45 67 89 01 23 45 67 89 ab cd ef");

    static byte[] cscd() {
        ByteBuffer b = ByteBuffer.allocate(32);
        b.put((byte) 0xE4).put((byte) 0).putShort((short) 0);
        b.put((byte) 0x01).put((byte) 0x03).put((byte) 0).put((byte) 16).put(NAA);
        b.position(29);
        b.put((byte) 0).putShort((short) 512);                       // DISK BLOCK LENGTH 512
        return b.array();
    }

    static byte[] segment(int flags, int source, int destination, int blocks, long sourceLba, long destinationLba) {
        return ByteBuffer.allocate(28).put((byte) 0x02).put((byte) flags).putShort((short) 24)
                .putShort((short) source).putShort((short) destination).putShort((short) 0)
                .putShort((short) blocks).putLong(sourceLba).putLong(destinationLba).array();
    }

    static byte[] list(int listId, int flags, List<byte[]> cscds, List<byte[]> segments) {
        int c = cscds.size() * 32, s = segments.size() * 28;
        ByteBuffer b = ByteBuffer.allocate(16 + c + s);
        b.put((byte) listId).put((byte) flags).putShort((short) c).putInt(0).putInt(s).putInt(0);
        cscds.forEach(b::put);
        segments.forEach(b::put);
        return b.array();
    }

    private static Parsed<ExtendedCopyParameters> parse(byte[] list) {
        return ExtendedCopyParameters.parse(Unpooled.wrappedBuffer(list), LIMITS);
    }

    private static Parsed<ExtendedCopyParameters> invalid(SenseReason reason, int at, int bit) {
        return Parsed.invalid(reason, FieldPointer.parameter(at, bit));
    }

    @Test
    void aListAsSgXcopySendsIt() {
        // LIST IDENTIFIER 1, LIST ID USAGE 10b, PRIORITY 1; DC set
        Parsed<ExtendedCopyParameters> p = parse(list(1, 0x11, List.of(cscd(), cscd()),
                List.of(segment(0x02, 0, 1, 8, 100, 200))));
        assertThat(p).isInstanceOf(Parsed.Ok.class);
        ExtendedCopyParameters v = ((Parsed.Ok<ExtendedCopyParameters>) p).value();
        assertThat(v.listIdentifier()).isEqualTo(1);
        assertThat(v.listIdUsage()).isEqualTo(0b10);
        assertThat(v.cscds()).containsExactly(new ExtendedCopyParameters.Cscd(NAA, 512),
                new ExtendedCopyParameters.Cscd(NAA, 512));
        assertThat(v.segments()).containsExactly(new ExtendedCopyParameters.Segment(80, true, 0, 1, 8, 100, 200));
    }

    @Test
    void headerRefusals() {
        assertThat(parse(new byte[15])).isEqualTo(Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR));
        assertThat(parse(list(0, 0x40, List.of(cscd()), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 1, 6));      // reserved bit
        assertThat(parse(list(0, 0x08, List.of(cscd()), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 1, 4));      // LIST ID USAGE 01b
        assertThat(parse(list(5, 0x18, List.of(cscd()), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 0, 7));      // 11b needs id 0
        assertThat(parse(list(0, 0x18, List.of(cscd()), List.of()))).isInstanceOf(Parsed.Ok.class);
        byte[] inline = list(0, 0, List.of(cscd()), List.of());
        inline[15] = 1;
        assertThat(parse(inline)).isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 12, 7));
        byte[] truncated = list(0, 0, List.of(cscd()), List.of(segment(0, 0, 0, 1, 0, 1)));
        assertThat(parse(java.util.Arrays.copyOf(truncated, truncated.length - 1)))
                .isEqualTo(Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR));     // lengths disagree
        byte[] odd = list(0, 0, List.of(cscd()), List.of());
        odd[3] = 31;
        assertThat(parse(java.util.Arrays.copyOf(odd, 16 + 31)))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 2, 7));      // not whole CSCDs
    }

    @Test
    void descriptorListLengthAtAndAboveTheLimit() {
        // MAXIMUM DESCRIPTOR LIST LENGTH 200: CSCD and segment lists of 64 + 136 bytes pass, 64 + 137 do not
        byte[] atLimit = new byte[16 + 200];
        atLimit[3] = 64;
        atLimit[11] = (byte) 136;
        assertThat(parse(atLimit))                                                     // past the length check
                .isEqualTo(invalid(SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, 16, 7));
        byte[] above = new byte[16 + 201];
        above[3] = 64;
        above[11] = (byte) 137;
        assertThat(parse(above)).isEqualTo(invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR, 2, 7));
    }

    @Test
    void cscdCountAndFieldsAreChecked() {
        assertThat(parse(list(0, 0, List.of(cscd(), cscd()), List.of()))).isInstanceOf(Parsed.Ok.class);
        assertThat(parse(list(0, 0, List.of(cscd(), cscd(), cscd()), List.of())))
                .isEqualTo(invalid(SenseReason.TOO_MANY_TARGET_DESCRIPTORS, 2, 7));
        byte[] c = cscd();
        c[0] = (byte) 0xE5;                                                            // IPv4
        assertThat(parse(list(0, 0, List.of(cscd(), c), List.of())))
                .isEqualTo(invalid(SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, 48, 7));
        c = cscd();
        c[1] = 0x01;                                                                   // sequential-access
        assertThat(parse(list(0, 0, List.of(c), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 17, 4));
        c = cscd();
        c[1] = 0x40;                        // LU ID TYPE 01b: ignored in an Identification CSCD (SPC §6.4.5.6)
        assertThat(parse(list(0, 0, List.of(c), List.of()))).isInstanceOf(Parsed.Ok.class);
        c = cscd();
        c[4] = 0x02;                                                                   // ASCII
        assertThat(parse(list(0, 0, List.of(c), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 20, 3));
        c = cscd();
        c[5] = 0x13;                                                                   // target port association
        assertThat(parse(list(0, 0, List.of(c), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 21, 5));
        c = cscd();
        c[5] = 0x02;                                                                   // EUI-64
        assertThat(parse(list(0, 0, List.of(c), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 21, 5));
        c = cscd();
        c[7] = 12;
        assertThat(parse(list(0, 0, List.of(c), List.of())))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 23, 7));
        c = cscd();
        c[5] = (byte) 0x83;                                                            // PIV is ignored for LU
        assertThat(parse(list(0, 0, List.of(c), List.of()))).isInstanceOf(Parsed.Ok.class);
    }

    @Test
    void segmentCountAndFieldsAreChecked() {
        List<byte[]> one = List.of(cscd());
        byte[] s = segment(0, 0, 0, 1, 0, 1);
        assertThat(parse(list(0, 0, one, List.of(s, s)))).isInstanceOf(Parsed.Ok.class);
        assertThat(parse(big(one, s, 3)))
                .isEqualTo(invalid(SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS, 8, 7));
        byte[] other = s.clone();
        other[0] = 0x0A;                                                               // block with offset
        assertThat(parse(list(0, 0, one, List.of(other))))
                .isEqualTo(invalid(SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, 48, 7));
        byte[] length = s.clone();
        length[3] = 20;
        assertThat(parse(list(0, 0, one, List.of(length))))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 50, 7));
        assertThat(parse(list(0, 0, one, List.of(segment(0x01, 0, 0, 1, 0, 1)))))
                .isEqualTo(invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, 49, 0));   // CAT
        // a CSCD ID naming no CSCD descriptor parses: the copy manager meets it while processing that segment
        // (SPC §5.17.7.4, COPY ABORTED — ExtendedCopyTest)
        assertThat(parse(list(0, 0, one, List.of(segment(0, 1, 0, 1, 0, 1))))).isInstanceOf(Parsed.Ok.class);
        assertThat(parse(list(0, 0, one, List.of(segment(0, 0, 1, 1, 0, 1))))).isInstanceOf(Parsed.Ok.class);
    }

    /** {@code count} copies of {@code segment} after the CSCDs (the descriptor list may pass LIMITS' 200 bytes). */
    private static byte[] big(List<byte[]> cscds, byte[] segment, int count) {
        java.util.List<byte[]> segments = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            segments.add(segment);
        }
        return list(0, 0, cscds, segments);
    }

    @Test
    void copyResultsEncoders() {
        assertThat(Bytes.encode(new CopyResults.CopyStatus(CopyResults.Status.COMPLETED_WITHOUT_ERRORS, 3, 0x9000)
                ::encode)).isEqualTo(Bytes.hex("00 00 00 08 01 00 03 00 00 00 90 00"));
        assertThat(Bytes.encode(new CopyResults.OperatingParameters(LIMITS, 16, 16, List.of(0x02, 0xE4))::encode))
                .isEqualTo(Bytes.hex("00 00 00 2a 01 00 00 00 00 02 00 02 00 00 00 c8 00 10 00 00"
                        + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 10 10 00 00 00 00 00 00 02 02 e4"));
    }
}
