package io.blocktarget.protocol.nvmetcp;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static io.blocktarget.protocol.nvme.TestBytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blocktarget.protocol.nvme.TestBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

class NvmeTcpFramingTest {
    static final NvmeTcpFraming INITIAL = NvmeTcpFraming.controller(8192, 1 << 20);
    static final NvmeTcpFraming PLAIN = INITIAL.established(PduOptions.NONE);
    static final NvmeTcpFraming DIGESTS = INITIAL.established(new PduOptions(true, true, 0));

    static int frame(NvmeTcpFraming f, String hex) throws NvmeTcpProtocolException {
        return f.frameLength(Unpooled.wrappedBuffer(hex(hex)));
    }

    static void fails(ThrowableAssert.ThrowingCallable call, NvmeTcpFatalError reason, int fei) {
        assertThatThrownBy(call).isInstanceOfSatisfying(NvmeTcpProtocolException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.fei()).isEqualTo(fei);
        });
    }

    @Test
    void lengthsOfValidHeaders() throws Exception {
        assertThat(frame(INITIAL, "00 00 80 00 80 00 00 00")).isEqualTo(128);          // ICReq
        assertThat(frame(PLAIN, "04 00 48 00 48 00 00 00")).isEqualTo(72);             // capsule, no data
        assertThat(frame(PLAIN, "04 00 48 48 48 20 00 00")).isEqualTo(0x2048);         // 8 KiB in-capsule
        assertThat(frame(DIGESTS, "04 03 48 4c 50 04 00 00")).isEqualTo(1104);         // with both digests
        assertThat(frame(DIGESTS, "04 01 48 00 4c 00 00 00")).isEqualTo(76);           // no data: no DDGSTF
        assertThat(frame(DIGESTS, "06 07 18 1c 24 00 00 00")).isEqualTo(36);           // H2CData 4 bytes
        assertThat(frame(PLAIN, "02 00 18 00 20 00 00 00")).isEqualTo(32);             // H2CTermReq
        assertThat(frame(INITIAL, "02 00 18 00 18 00 00 00")).isEqualTo(24);           // TermReq any time
        assertThat(PLAIN.frameLength(Unpooled.wrappedBuffer(hex("04 00 48 00 48 00 00")))).isEqualTo(-1);
    }

    @Test
    void unknownOrWrongDirectionType() {
        fails(() -> frame(PLAIN, "08 00 18 00 18 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 0);
        fails(() -> frame(PLAIN, "ff 00 18 00 18 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 0);
        fails(() -> frame(PLAIN, "05 00 18 00 18 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 0);
        NvmeTcpFraming host = NvmeTcpFraming.host(1 << 20).established(PduOptions.NONE);
        fails(() -> frame(host, "04 00 48 00 48 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 0);
    }

    @Test
    void sequence() {
        fails(() -> frame(INITIAL, "04 00 48 00 48 00 00 00"), NvmeTcpFatalError.PDU_SEQUENCE_ERROR, 0);
        fails(() -> frame(PLAIN, "00 00 80 00 80 00 00 00"), NvmeTcpFatalError.PDU_SEQUENCE_ERROR, 0);
    }

    @Test
    void badHlenForType() {
        fails(() -> frame(PLAIN, "04 00 40 00 40 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 2);
        fails(() -> frame(INITIAL, "00 00 7c 00 80 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 2);
        fails(() -> frame(PLAIN, "06 00 20 20 28 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 2);
    }

    @Test
    void badPdo() {
        fails(() -> frame(PLAIN, "04 00 48 40 50 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 3); // < HLEN
        fails(() -> frame(DIGESTS, "04 03 48 48 50 04 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 3); // no room for HDGST
        NvmeTcpFraming cpda3 = INITIAL.established(new PduOptions(false, false, 3));
        fails(() -> frame(cpda3, "04 00 48 4c 50 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 3); // not 16-aligned
        fails(() -> frame(PLAIN, "06 00 18 00 18 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 3); // H2CData without data
        NvmeTcpFraming host = NvmeTcpFraming.host(1 << 20).established(PduOptions.NONE);
        fails(() -> frame(host, "05 00 18 18 20 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 3); // CapsuleResp has no data
    }

    @Test
    void badPlen() {
        fails(() -> frame(PLAIN, "04 00 48 00 40 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // < HLEN
        fails(() -> frame(PLAIN, "04 00 48 00 50 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // data without PDO
        fails(() -> frame(PLAIN, "04 00 48 48 48 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // PDO but no data
        fails(() -> frame(PLAIN, "04 00 48 48 49 20 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // 8193 in-capsule > 8192
        fails(() -> frame(PLAIN, "04 00 48 48 ff ff ff ff"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // 4 GiB
        fails(() -> frame(INITIAL, "00 00 80 00 84 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // ICReq 132
        fails(() -> frame(PLAIN, "02 00 18 00 99 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // TermReq > 152
        fails(() -> frame(PLAIN, "02 00 18 00 10 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 4); // TermReq < HLEN
    }

    @Test
    void plenOverDataCapIsDataTransferLimitExceeded() {
        // H2CData with 1 MiB + 4 of data against MAXH2CDATA 1 MiB
        fails(() -> frame(PLAIN, "06 00 18 18 1c 00 10 00"), NvmeTcpFatalError.DATA_TRANSFER_LIMIT_EXCEEDED, 0);
    }

    @Test
    void digestFlagsMustMatchNegotiation() {
        fails(() -> frame(DIGESTS, "04 02 48 4c 50 04 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // HDGSTF missing
        fails(() -> frame(PLAIN, "04 01 48 00 4c 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // HDGSTF not negotiated
        fails(() -> frame(DIGESTS, "04 01 48 4c 4c 04 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // data without DDGSTF
        fails(() -> frame(DIGESTS, "04 03 48 00 4c 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // DDGSTF without data
        fails(() -> frame(INITIAL, "00 01 80 00 80 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // ICReq never digested
        NvmeTcpFraming host = NvmeTcpFraming.host(1 << 20).established(PduOptions.NONE);
        fails(() -> frame(host, "07 08 18 18 1c 00 00 00"), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 1); // SUCCESS w/o LAST
    }

    @Test
    void headerDigestMismatch() {
        byte[] pdu = hex("05 01 18 00 1c 00 00 00" + zeros(16) + "00000000");
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(pdu)), NvmeTcpFatalError.HEADER_DIGEST_ERROR, 0);
    }

    @Test
    void dataDigestMismatchNamesTheCommand() {
        byte[] header = hex("06 07 18 1c 24 00 00 00  2a 00 01 00  00 00 00 00  04 00 00 00  00 00 00 00");
        byte[] pdu = NvmeTcpPduVectorsTest.concat(header, hex(NvmeTcpPduVectorsTest.crcLe(header, 0, 24)),
                hex("01020304 00000000"));
        assertThatThrownBy(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(pdu)))
                .isInstanceOfSatisfying(NvmeTcpProtocolException.class, e -> {
                    assertThat(e.reason()).isEqualTo(NvmeTcpFatalError.DATA_DIGEST_ERROR);
                    assertThat(e.reason().fes()).isEmpty();
                    assertThat(e.commandId()).isEqualTo(0x2a);
                });
    }

    @Test
    void icReqAndIcRespParameters() {
        String icreq = "00 00 80 00 80 00 00 00";
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(hex(icreq + "01 00 00 00 00000000" + zeros(112)))),
                NvmeTcpFatalError.UNSUPPORTED_PARAMETER, 8);
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(hex(icreq + "00 00 20 00 00000000" + zeros(112)))),
                NvmeTcpFatalError.UNSUPPORTED_PARAMETER, 10);
        String icresp = "01 00 80 00 80 00 00 00";
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(hex(icresp + "00 00 00 00 e8030000" + zeros(112)))),
                NvmeTcpFatalError.UNSUPPORTED_PARAMETER, 12);
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(hex(icresp + "00 00 00 00 02100000" + zeros(112)))),
                NvmeTcpFatalError.UNSUPPORTED_PARAMETER, 12);
        fails(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(hex(icresp + "00 00 40 00 00100000" + zeros(112)))),
                NvmeTcpFatalError.UNSUPPORTED_PARAMETER, 10);
    }

    @Test
    void datalMustMatchAndStayInsideTheR2T() throws Exception {
        byte[] wrongDatal = hex("06 00 18 18 20 00 00 00  05 00 03 00  00 00 00 00  07 00 00 00  00000000"
                + "0102030405060708");
        ByteBuf frame = Unpooled.wrappedBuffer(wrongDatal);
        fails(() -> NvmeTcpPdu.decode(frame), NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD, 16);
        assertThat(frame.refCnt()).isEqualTo(1); // the data slice was released on the error path

        byte[] ok = hex("06 00 18 18 20 00 00 00  05 00 03 00  00 10 00 00  08 00 00 00  00000000"
                + "0102030405060708");
        H2CData d = (H2CData) NvmeTcpPdu.decode(Unpooled.wrappedBuffer(ok));
        d.checkWithin(4096, 8, 4096);
        d.checkWithin(0, 8192, 4096);
        fails(() -> d.checkWithin(4096, 4, 4096), NvmeTcpFatalError.DATA_TRANSFER_OUT_OF_RANGE, 0);
        fails(() -> d.checkWithin(0, 8192, 0), NvmeTcpFatalError.DATA_TRANSFER_OUT_OF_RANGE, 0);
        fails(() -> d.checkWithin(8192, 8192, 4096), NvmeTcpFatalError.DATA_TRANSFER_OUT_OF_RANGE, 0);
        d.release();
    }

    @Test
    void oneByteAtATime() throws Exception {
        byte[] stream = NvmeTcpPduVectorsTest.concat(hex("00 00 80 00 80 00 00 00" + zeros(120)),
                hex("04 00 48 48 50 00 00 00"), NvmeTcpPduVectorsTest.IDENTIFY_SQE, hex("0102030405060708"));
        ByteBuf acc = Unpooled.buffer();
        NvmeTcpFraming f = INITIAL;
        int pdus = 0;
        for (byte b : stream) {
            acc.writeByte(b);
            int n = f.frameLength(acc);
            if (n > 0 && acc.readableBytes() >= n) {
                ByteBuf frame = acc.readRetainedSlice(n);
                NvmeTcpPdu pdu = NvmeTcpPdu.decode(frame);
                frame.release(); // the frame is the caller's; the PDU keeps its own reference to the data
                if (pdu instanceof ICReq) {
                    f = f.established(PduOptions.NONE);
                }
                pdu.release();
                pdus++;
            }
        }
        assertThat(pdus).isEqualTo(2);
        assertThat(acc.readableBytes()).isZero();
        assertThat(acc.release()).isTrue();
    }

    @Test
    void encodedPdusFrameToTheirOwnLength() throws Exception {
        PduOptions o = new PduOptions(true, true, 1);
        NvmeTcpFraming f = INITIAL.established(o);
        ByteBuf data = Unpooled.wrappedBuffer(new byte[100]);
        for (NvmeTcpPdu pdu : new NvmeTcpPdu[] {new H2CData(1, 2, 0, true, data),
                new CapsuleCmd(io.blocktarget.protocol.nvme.Sqe.get(
                        Unpooled.wrappedBuffer(NvmeTcpPduVectorsTest.IDENTIFY_SQE), 0), data)}) {
            byte[] bytes = TestBytes.encode(b -> pdu.encode(b, o));
            assertThat(f.frameLength(Unpooled.wrappedBuffer(bytes))).isEqualTo(bytes.length);
            NvmeTcpPdu back = NvmeTcpPdu.decode(Unpooled.wrappedBuffer(bytes));
            assertThat(((NvmeTcpDataPdu) back).data()).isEqualTo(data);
            back.release();
        }
        data.release();
    }
}
