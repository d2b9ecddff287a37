package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.Crc32c;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.OptionalLong;

import static io.blocktarget.protocol.iscsi.Bytes.ascii;
import static io.blocktarget.protocol.iscsi.Bytes.buf;
import static io.blocktarget.protocol.iscsi.Bytes.concat;
import static io.blocktarget.protocol.iscsi.Bytes.hex;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.AHS_TOO_LONG;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.BAD_OPCODE;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.DATA_DIGEST_ERROR;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.DATA_SEGMENT_TOO_LONG;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.HEADER_DIGEST_ERROR;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TRUNCATED;
import static org.assertj.core.api.Assertions.assertThat;

/** Frame lengths, caps, padding and CRC32C digests (RFC 7143 §11.1, §13.1; RFC 3720 Appendix B.4). */
class FramingTest {
    /** RFC 3720 Appendix B.4: "An iSCSI - SCSI Read (10) Command PDU", CRC on the wire 56 3a 96 d9. */
    private static final byte[] B4_READ10 = hex(
            "01 c0 00 00",                 // 0: opcode 0x01 | F=1 R=1 ATTR=0
            "00 000000",                   // 4: TotalAHSLength 0 | DataSegmentLength 0
            "0000000000000000",            // 8: LUN 0
            "14000000",                    // 16: ITT 0x14000000
            "00000400",                    // 20: EDTL 1024
            "00000014",                    // 24: CmdSN 0x14
            "00000018",                    // 28: ExpStatSN 0x18
            "28000000 00000000 02000000 00000000"); // 32: CDB READ(10), transfer length 2
    private static final byte[] B4_DIGEST = hex("56 3a 96 d9");

    private static final FrameLimits FROM_INITIATOR = new FrameLimits(PduSource.INITIATOR, 8192, 64, Digest.NONE,
            Digest.NONE);

    @Test
    void crc32cVectorsOfRfc3720AppendixB4() {
        byte[] ascending = new byte[32];
        byte[] descending = new byte[32];
        for (int i = 0; i < 32; i++) {
            ascending[i] = (byte) i;
            descending[i] = (byte) (31 - i);
        }
        byte[] ones = new byte[32];
        java.util.Arrays.fill(ones, (byte) 0xff);
        assertThat(crc(new byte[32])).isEqualTo(0x8A9136AA);
        assertThat(crc(ones)).isEqualTo(0x62A8AB43);
        assertThat(crc(ascending)).isEqualTo(0x46DD794E);
        assertThat(crc(descending)).isEqualTo(0x113FDB5C);
        assertThat(crc(B4_READ10)).isEqualTo(0xD9963A56);
    }

    private static int crc(byte[] b) {
        ByteBuf buf = Unpooled.wrappedBuffer(b);
        return Crc32c.compute(buf);
    }

    @Test
    void headerDigestGoesOnTheWireLeastSignificantByteFirst() {
        byte[] cdb = hex("28 00 00000000 00 0002 00");
        ScsiCommand read = new ScsiCommand(false, true, true, false, TaskAttribute.UNTAGGED, 0, 0x1400_0000, 1024,
                0x14, 0x18, cdb, OptionalLong.empty(), Unpooled.EMPTY_BUFFER);
        ByteBuf out = Unpooled.buffer();
        try {
            IscsiFraming.encode(read, out, Digest.CRC32C, Digest.CRC32C);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(concat(B4_READ10, B4_DIGEST));
        } finally {
            out.release();
        }
    }

    @Test
    void decodesTheAppendixB4PduWithItsHeaderDigest() {
        FrameLimits limits = FROM_INITIATOR.withDigests(Digest.CRC32C, Digest.CRC32C);
        ByteBuf wire = buf(concat(B4_READ10, B4_DIGEST));
        try {
            FrameLayout layout = IscsiFraming.layout(wire, limits);
            assertThat(layout).isEqualTo(new FrameLayout(0, 4, 0, 0)); // no data: no data digest
            assertThat(layout.totalLength()).isEqualTo(52);
            IscsiPdu pdu = IscsiFraming.decode(wire, limits);
            assertThat(pdu).isInstanceOfSatisfying(ScsiCommand.class, c -> {
                assertThat(c.itt()).isEqualTo(0x1400_0000);
                assertThat(c.expectedDataTransferLength()).isEqualTo(1024);
                assertThat(c.cdbByte(8)).isEqualTo(2);
            });
        } finally {
            wire.release();
        }
    }

    @Test
    void headerDigestMismatchClosesTheConnection() {
        FrameLimits limits = FROM_INITIATOR.withDigests(Digest.CRC32C, Digest.NONE);
        byte[] corrupted = concat(B4_READ10, B4_DIGEST);
        corrupted[24] ^= 1; // CmdSN bit flip
        ByteBuf wire = buf(corrupted);
        try {
            IscsiProtocolException e = Errors.expect(HEADER_DIGEST_ERROR, () -> IscsiFraming.decode(wire, limits));
            assertThat(e.reason().disposition()).isEqualTo(IscsiProtocolException.Disposition.CLOSE_CONNECTION);
            assertThat(wire.refCnt()).isEqualTo(1);
        } finally {
            wire.release();
        }
    }

    @Test
    void dataSegmentIsPaddedAndDigestedWithItsPadding() {
        byte[] bhs = hex("40 80 00 00", "00 000005", "0000000000000000", "00000001", "ffffffff", "00000001",
                "00000001", "00000000 00000000 00000000 00000000"); // NOP-Out with 5 bytes of ping data
        byte[] paddedData = concat(ascii("hello"), hex("000000"));
        int headerCrc = crc(bhs);
        int dataCrc = crc(paddedData);
        byte[] wire = concat(bhs, le(headerCrc), paddedData, le(dataCrc));

        NopOut ping = new NopOut(true, 0, 1, -1, 1, 1, Unpooled.wrappedBuffer(ascii("hello")));
        ByteBuf out = Unpooled.buffer();
        try {
            IscsiFraming.encode(ping, out, Digest.CRC32C, Digest.CRC32C);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(wire);
        } finally {
            out.release();
        }
        FrameLimits limits = FROM_INITIATOR.withDigests(Digest.CRC32C, Digest.CRC32C);
        ByteBuf in = buf(wire);
        try {
            assertThat(IscsiFraming.layout(in, limits)).isEqualTo(new FrameLayout(0, 4, 5, 4));
            IscsiPdu pdu = IscsiFraming.decode(in, limits);
            try {
                assertThat(pdu).isEqualTo(ping);
                assertThat(in.refCnt()).as("the PDU's data slice keeps the frame").isGreaterThan(1);
            } finally {
                pdu.release();
            }
            assertThat(in.refCnt()).isEqualTo(1);
        } finally {
            in.release();
        }

        byte[] badData = wire.clone();
        badData[52] ^= 0x20; // 'h' -> 'H'
        ByteBuf bad = buf(badData);
        try {
            IscsiProtocolException e = Errors.expect(DATA_DIGEST_ERROR, () -> IscsiFraming.decode(bad, limits));
            assertThat(e.reason().disposition()).isEqualTo(IscsiProtocolException.Disposition.REJECT);
            assertThat(e.reason().rejectReason()).contains(RejectReason.DATA_DIGEST_ERROR);
            assertThat(e.header()).as("the Reject carries the offending BHS").isEqualTo(bhs);
            assertThat(bad.refCnt()).isEqualTo(1);
        } finally {
            bad.release();
        }
    }

    @Test
    void withoutDigestsTheFrameIsDecodedInPlaceAndOnlyKeptDataHoldsAReference() {
        FrameLayout noData = new FrameLayout(0, 0, 0, 0);
        // a data-less NOP-Out (as a read's SCSI Command): nothing of the frame is kept, its count never moves
        byte[] bhs = hex("40 80 00 00", "00 000000", "0000000000000000", "00000001", "ffffffff", "00000001",
                "00000001", "00000000 00000000 00000000 00000000");
        ByteBuf in = buf(bhs);
        try {
            IscsiPdu pdu = IscsiFraming.decode(in, noData, FROM_INITIATOR);
            assertThat(pdu).isInstanceOf(NopOut.class);
            assertThat(pdu.data().readableBytes()).isZero();
            assertThat(in.refCnt()).as("no slice of the frame retained").isEqualTo(1);
            pdu.release();
            assertThat(in.refCnt()).isEqualTo(1);
        } finally {
            in.release();
        }
        // with a data segment: exactly one reference more, the PDU's data, gone with the PDU
        byte[] ping = concat(hex("40 80 00 00", "00 000005", "0000000000000000", "00000001", "ffffffff", "00000001",
                "00000001", "00000000 00000000 00000000 00000000"), ascii("hello"), hex("000000"));
        ByteBuf withData = buf(ping);
        try {
            IscsiPdu pdu = IscsiFraming.decode(withData, new FrameLayout(0, 0, 5, 0), FROM_INITIATOR);
            assertThat(ByteBufUtil.getBytes(pdu.data())).isEqualTo(ascii("hello"));
            assertThat(withData.refCnt()).isEqualTo(2);
            pdu.release();
            assertThat(withData.refCnt()).isEqualTo(1);
        } finally {
            withData.release();
        }
    }

    @Test
    void zeroCopyPiecesEqualTheWholeEncoding() {
        DataIn dataIn = new DataIn(true, false, java.util.OptionalInt.of(0), ResidualFlag.NONE, 0, 7, -1, 1, 2, 3, 0, 0,
                0, Unpooled.wrappedBuffer(ascii("seven b")));
        ByteBuf whole = Unpooled.buffer();
        ByteBuf pieces = Unpooled.buffer();
        try {
            IscsiFraming.encode(dataIn, whole, Digest.CRC32C, Digest.CRC32C);
            IscsiFraming.encodeHeader(dataIn, pieces, Digest.CRC32C);
            pieces.writeBytes(dataIn.data().duplicate()).writeZero(Bhs.padding(7));
            pieces.writeIntLE(IscsiFraming.dataDigest(dataIn.data(), Bhs.padding(7)));
            assertThat(ByteBufUtil.getBytes(pieces)).isEqualTo(ByteBufUtil.getBytes(whole));
        } finally {
            whole.release();
            pieces.release();
            dataIn.release();
        }
    }

    private static byte[] le(int v) {
        return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
    }

    @ParameterizedTest(name = "AHS {0} words, DSL {1}, header {2}, data {3} -> {4} bytes")
    @CsvSource({
            "0, 0, NONE, NONE, 48",
            "0, 0, CRC32C, CRC32C, 52",      // no data segment: no data digest
            "0, 1, NONE, NONE, 52",          // 1 byte + 3 padding
            "0, 4, NONE, CRC32C, 56",
            "2, 5, CRC32C, CRC32C, 72",      // 48 + 8 + 4 + 8 + 4
            "0, 8192, NONE, NONE, 8240"})
    void layoutCountsEveryPart(int ahsWords, int dsl, Digest header, Digest data, int total) {
        byte[] bhs = new byte[48];
        bhs[0] = 0x01;
        bhs[4] = (byte) ahsWords;
        bhs[5] = (byte) (dsl >>> 16);
        bhs[6] = (byte) (dsl >>> 8);
        bhs[7] = (byte) dsl;
        ByteBuf in = buf(bhs);
        try {
            assertThat(IscsiFraming.layout(in, FROM_INITIATOR.withDigests(header, data)).totalLength())
                    .isEqualTo(total);
        } finally {
            in.release();
        }
    }

    @Test
    void capsAreCheckedFromTheBhsAlone() {
        byte[] bhs = new byte[48];
        bhs[5] = 0x00;
        bhs[6] = 0x20;
        bhs[7] = 0x01; // DSL 8193 > 8192
        ByteBuf in = buf(bhs);
        try {
            IscsiProtocolException e = Errors.expect(DATA_SEGMENT_TOO_LONG, () -> IscsiFraming.layout(in, FROM_INITIATOR));
            assertThat(e.reason().disposition()).isEqualTo(IscsiProtocolException.Disposition.CLOSE_CONNECTION);
            assertThat(IscsiFraming.layout(in, FROM_INITIATOR.withMaxDataSegmentLength(8193)).dataSegmentLength())
                    .isEqualTo(8193);
        } finally {
            in.release();
        }
        byte[] maxDsl = Errors.with(Errors.with(Errors.with(bhs, 5, 0xff), 6, 0xff), 7, 0xff);
        ByteBuf huge = buf(maxDsl);
        try {
            Errors.expect(DATA_SEGMENT_TOO_LONG, () -> IscsiFraming.layout(huge, FROM_INITIATOR));
        } finally {
            huge.release();
        }
        ByteBuf ahs = buf(Errors.with(new byte[48], 4, 17)); // 68 bytes of AHS > 64
        try {
            Errors.expect(AHS_TOO_LONG, () -> IscsiFraming.layout(ahs, FROM_INITIATOR));
        } finally {
            ahs.release();
        }
    }

    @Test
    void shortInputIsTruncated() {
        ByteBuf in = buf(new byte[47]);
        try {
            Errors.expect(TRUNCATED, () -> IscsiFraming.layout(in, FROM_INITIATOR));
            Errors.expect(TRUNCATED, () -> IscsiPdus.decode(in));
        } finally {
            in.release();
        }
        byte[] nopWithData = Errors.with(Errors.with(new byte[52], 0, 0x40), 7, 4); // NOP-Out, DSL 4, data present
        ByteBuf shortFrame = buf(java.util.Arrays.copyOf(nopWithData, 50));
        try {
            Errors.expect(TRUNCATED, () -> IscsiFraming.decode(shortFrame, FROM_INITIATOR));
        } finally {
            shortFrame.release();
        }
    }

    @Test
    void framingRefusesPdusFromTheWrongSide() {
        byte[] nopIn = Errors.with(new byte[48], 0, 0x20);
        ByteBuf in = buf(nopIn);
        try {
            IscsiProtocolException e = Errors.expect(BAD_OPCODE, () -> IscsiFraming.decode(in, FROM_INITIATOR));
            assertThat(e.reason().rejectReason()).contains(RejectReason.COMMAND_NOT_SUPPORTED);
            assertThat(IscsiFraming.decode(in, FrameLimits.loginFrom(PduSource.TARGET))).isInstanceOf(NopIn.class);
        } finally {
            in.release();
        }
    }

    @Test
    void paddingRoundsUpToFourBytes() {
        assertThat(new int[] {Bhs.padding(0), Bhs.padding(1), Bhs.padding(2), Bhs.padding(3), Bhs.padding(4),
                Bhs.padding(0xFF_FFFF)}).containsExactly(0, 3, 2, 1, 0, 1);
    }

    @Test
    void bigEndianHelpersReadNetworkOrder() {
        ByteBuf b = Unpooled.wrappedBuffer(hex("01 02 03 04 05 06 07 08 ff ff ff ff"));
        assertThat(Bhs.u16BE(b, 0)).isEqualTo(0x0102);
        assertThat(Bhs.u24BE(b, 0)).isEqualTo(0x010203);
        assertThat(Bhs.u32BE(b, 8)).isEqualTo(0xFFFF_FFFFL);
        assertThat(Bhs.int32BE(b, 8)).isEqualTo(-1);
        assertThat(Bhs.u48BE(b, 0)).isEqualTo(0x0102_0304_0506L);
        assertThat(Bhs.int64BE(b, 0)).isEqualTo(0x0102_0304_0506_0708L);
        ByteBuf w = Unpooled.buffer(8).writeZero(8);
        Bhs.setU48BE(w, 0, 0x0a0b_0c0d_0e0fL);
        Bhs.setU24BE(w, 5, 0x112233);
        assertThat(ByteBufUtil.getBytes(w)).isEqualTo(hex("0a0b0c0d0e 112233"));
    }
}
