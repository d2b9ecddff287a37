package io.blocktarget.protocol.nvmetcp;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static io.blocktarget.protocol.nvme.TestBytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.TestBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.zip.CRC32C;

/** Byte-exact PDUs from the NVMe/TCP 1.0 figures of §3.6.2; digests from the JDK's CRC32C, little-endian. */
class NvmeTcpPduVectorsTest {
    static final PduOptions DIGESTS = new PduOptions(true, true, 0);

    /** CRC32C of {@code b[from..to)} as the 4 little-endian wire bytes, in hex. */
    static String crcLe(byte[] b, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(b, from, to - from);
        long v = crc.getValue();
        return String.format("%02x%02x%02x%02x", v & 0xFF, v >>> 8 & 0xFF, v >>> 16 & 0xFF, v >>> 24 & 0xFF);
    }

    static byte[] concat(byte[]... parts) {
        return TestBytes.encode(b -> {
            for (byte[] p : parts) {
                b.writeBytes(p);
            }
        });
    }

    /** Decodes a whole frame, checks it consumed exactly the frame, and re-encodes it. */
    static NvmeTcpPdu decode(byte[] frame) throws NvmeTcpProtocolException {
        ByteBuf buf = Unpooled.wrappedBuffer(frame);
        NvmeTcpPdu pdu = NvmeTcpPdu.decode(buf);
        assertThat(buf.readableBytes()).isZero();
        return pdu;
    }

    @Test
    void crc32cMatchesRfc3720VectorOnTheWire() {
        // RFC 3720 B.4: 32 bytes of zeros -> CRC 8A9136AAh, sent aa 36 91 8a
        byte[] b = concat(new byte[32], hex("aa 36 91 8a"));
        assertThat(NvmeTcpDigests.dataDigestMatches(Unpooled.wrappedBuffer(b), 0, 32, 32)).isTrue();
        assertThat(crcLe(new byte[32], 0, 32)).isEqualTo("aa36918a");
    }

    @Test
    void icReq() throws Exception {
        byte[] v = hex("""
                00 00 80 00   # CH: type 00h ICReq, FLAGS 0, HLEN 128, PDO 0
                80 00 00 00   # PLEN 128
                00 00         # 8 PFV 0
                00            # 10 HPDA 0
                03            # 11 DGST: HDGST_ENABLE | DDGST_ENABLE
                00 00 00 00   # 12 MAXR2T 0 (0's based: one R2T)
                """ + zeros(112));
        ICReq req = (ICReq) decode(v);
        assertThat(req).isEqualTo(new ICReq(0, 0, true, true, 0));
        assertThat(req.controllerSendOptions()).isEqualTo(DIGESTS);
        assertThat(TestBytes.encode(b -> req.encode(b, PduOptions.NONE))).isEqualTo(v).hasSize(128);
    }

    @Test
    void icResp() throws Exception {
        byte[] v = hex("""
                01 00 80 00  80 00 00 00   # CH: type 01h ICResp, HLEN 128, PLEN 128
                00 00 00 01                # PFV 0, CPDA 0, DGST: header digest only
                00 00 40 00                # 12 MAXH2CDATA 4 MiB
                """ + zeros(112));
        ICResp resp = ICResp.answering(new ICReq(0, 0, true, false, 0), 0, 4 << 20);
        assertThat(TestBytes.encode(b -> resp.encode(b, PduOptions.NONE))).isEqualTo(v).hasSize(128);
        assertThat(decode(v)).isEqualTo(resp);
        assertThat(resp.hostSendOptions()).isEqualTo(new PduOptions(true, false, 0));
    }

    static final byte[] IDENTIFY_SQE = hex("""
            06 40 01 00  00 00 00 00   # Identify, PSDT 01b, CID 1, NSID 0
            """ + zeros(16) + """
            0000000000000000 00100000 000000 5a   # SGL: transport data block, 4096 bytes
            01000000                              # CDW10 CNS 01h
            """ + zeros(20));

    @Test
    void capsuleCmdWithoutDataOrDigests() throws Exception {
        byte[] v = concat(hex("04 00 48 00  48 00 00 00"), IDENTIFY_SQE); // HLEN 72, PDO 0, PLEN 72
        CapsuleCmd cmd = (CapsuleCmd) decode(v);
        assertThat(cmd.sqe().opcode()).isEqualTo(6);
        assertThat(cmd.data().readableBytes()).isZero();
        assertThat(TestBytes.encode(b -> cmd.encode(b, PduOptions.NONE))).isEqualTo(v).hasSize(72);
        cmd.release();
    }

    @Test
    void capsuleCmdWithInCapsuleDataAndBothDigests() throws Exception {
        byte[] header = concat(hex("""
                04 03 48 4c   # CH: CapsuleCmd, FLAGS HDGSTF|DDGSTF, HLEN 72, PDO 76 (72 + HDGST, CPDA 0)
                50 04 00 00   # PLEN 1104 = 76 + 1024 + 4
                """), io.blocktarget.protocol.nvme.NvmeVectors.CONNECT_SQE);
        byte[] data = new byte[1024];
        for (int k = 0; k < data.length; k++) {
            data[k] = (byte) (k * 7);
        }
        byte[] v = concat(header, hex(crcLe(header, 0, 72)), data, hex(crcLe(data, 0, 1024)));
        assertThat(v).hasSize(1104);
        ByteBuf frame = Unpooled.wrappedBuffer(v);
        CapsuleCmd cmd = (CapsuleCmd) NvmeTcpPdu.decode(frame);
        assertThat(frame.release()).isFalse(); // the PDU's data slice still holds the frame
        assertThat(ByteBufUtil.getBytes(cmd.data())).isEqualTo(data);
        assertThat(cmd.sqe().fctype()).isEqualTo(1);
        assertThat(TestBytes.encode(b -> cmd.encode(b, DIGESTS))).isEqualTo(v);
        // the zero-copy path: header (through HDGST, PDO 76), then the data and DDGST from the caller
        assertThat(TestBytes.encode(b -> cmd.encodeHeader(b, DIGESTS))).isEqualTo(java.util.Arrays.copyOf(v, 76));
        assertThat(TestBytes.encode(b -> NvmeTcpDigests.writeDataDigest(b, cmd.data())))
                .isEqualTo(java.util.Arrays.copyOfRange(v, 1100, 1104));
        cmd.release();
        assertThat(cmd.data().refCnt()).isZero();
    }

    @Test
    void capsuleRespWithHeaderDigest() throws Exception {
        byte[] header = hex("""
                05 01 18 00  1c 00 00 00   # CH: CapsuleResp, HDGSTF, HLEN 24, PDO 0, PLEN 28
                00 00 00 00  00 00 00 00   # DW0, DW1
                05 00 00 00                # SQHD 5, SQID 0
                09 00 00 81                # CID 9; status SC 80h LBA out of range (0100h) + DNR (8000h)
                """);
        byte[] v = concat(header, hex(crcLe(header, 0, 24)));
        CapsuleResp resp = new CapsuleResp(Cqe.of(9, 0, 5, NvmeStatus.LBA_OUT_OF_RANGE, 0));
        assertThat(TestBytes.encode(b -> resp.encode(b, DIGESTS))).isEqualTo(v);
        assertThat(decode(v)).isEqualTo(resp);
    }

    @Test
    void h2cData() throws Exception {
        byte[] v = hex("""
                06 04 18 18  20 00 00 00   # CH: H2CData, LAST_PDU, HLEN 24, PDO 24, PLEN 32
                05 00 03 00                # CCCID 5, TTAG 3
                00 10 00 00                # DATAO 4096
                08 00 00 00                # DATAL 8
                00 00 00 00                # reserved
                01 02 03 04 05 06 07 08    # data
                """);
        H2CData d = (H2CData) decode(v);
        assertThat(d.cccid()).isEqualTo(5);
        assertThat(d.ttag()).isEqualTo(3);
        assertThat(d.datao()).isEqualTo(4096);
        assertThat(d.datal()).isEqualTo(8);
        assertThat(d.last()).isTrue();
        assertThat(TestBytes.encode(b -> d.encode(b, PduOptions.NONE))).isEqualTo(v);
        assertThat(TestBytes.encode(b -> d.encodeHeader(b, PduOptions.NONE))).isEqualTo(java.util.Arrays.copyOf(v, 24));
        d.release();
    }

    @Test
    void c2hDataPaddedToHostAlignment() throws Exception {
        // HPDA 3: data aligned to 16 bytes; header 24 + HDGST 4 = 28 -> PDO 32 with 4 bytes of PAD
        byte[] header = hex("""
                07 0d 18 20  24 00 00 00   # CH: C2HData, HDGSTF|LAST_PDU|SUCCESS, HLEN 24, PDO 32, PLEN 36
                05 00 00 00                # CCCID 5, reserved
                00 00 00 00                # DATAO 0
                04 00 00 00                # DATAL 4
                00 00 00 00                # reserved
                """);
        byte[] v = concat(header, hex(crcLe(header, 0, 24)), hex("00000000 deadbeef"));
        PduOptions hpda3 = new PduOptions(true, false, 3);
        ByteBuf data = Unpooled.wrappedBuffer(hex("deadbeef"));
        C2HData c = new C2HData(5, 0, true, true, data);
        assertThat(TestBytes.encode(b -> c.encode(b, hpda3))).isEqualTo(v);
        // the zero-copy path writes the same header
        assertThat(TestBytes.encode(b -> C2HData.encodeHeader(b, hpda3, 5, 0, 4, true, true)))
                .isEqualTo(java.util.Arrays.copyOf(v, 32));
        C2HData back = (C2HData) decode(v);
        assertThat(back.success()).isTrue();
        assertThat(ByteBufUtil.getBytes(back.data())).isEqualTo(hex("deadbeef"));
        back.release();
        data.release();
    }

    @Test
    void r2t() throws Exception {
        byte[] v = hex("""
                09 00 18 00  18 00 00 00   # CH: R2T, HLEN 24, PDO 0, PLEN 24
                07 00 01 00                # CCCID 7, TTAG 1
                00 00 00 00                # R2TO 0
                00 00 01 00                # R2TL 65536
                00 00 00 00                # reserved
                """);
        R2T r = new R2T(7, 1, 0, 65536);
        assertThat(TestBytes.encode(b -> r.encode(b, PduOptions.NONE))).isEqualTo(v);
        assertThat(decode(v)).isEqualTo(r);
    }

    @Test
    void c2hTermReqCopiesTheOffendingHeader() throws Exception {
        byte[] bad = hex("04 00 10 00  10 00 00 00  11 22 33 44  55 66 77 88  99 aa bb cc  dd ee ff 00");
        NvmeTcpProtocolException e = NvmeTcpProtocolException.headerField(2, "bad HLEN");
        TermReq t = TermReq.c2h(e, Unpooled.wrappedBuffer(bad));
        byte[] v = hex("""
                03 00 18 00  28 00 00 00   # CH: C2HTermReq, HLEN 24, PDO 0, PLEN 40
                01 00                      # 8 FES 01h Invalid PDU Header Field
                02 00 00 00                # 10 FEI: byte offset 2 (HLEN)
                """ + zeros(10) + """
                04 00 10 00  10 00 00 00  11 22 33 44  55 66 77 88   # the 16 header bytes its HLEN claims
                """);
        assertThat(TestBytes.encode(b -> t.encode(b, PduOptions.NONE))).isEqualTo(v);
        assertThat(decode(v)).isEqualTo(t);
        assertThat(t.reason()).isEqualTo(NvmeTcpFatalError.INVALID_PDU_HEADER_FIELD);
    }

    @Test
    void termReqForNonOffsetReasonsHasZeroFeiAndCapsTheCopy() {
        NvmeTcpProtocolException e = new NvmeTcpProtocolException(NvmeTcpFatalError.HEADER_DIGEST_ERROR, 99, -1, "x");
        byte[] icreq = new byte[200];
        icreq[2] = (byte) 0x80;
        TermReq t = TermReq.c2h(e, Unpooled.wrappedBuffer(icreq));
        assertThat(t.fei()).isZero();
        assertThat(t.fes()).isEqualTo(3);
        assertThat(t.offendingHeader()).hasSize(128);
        byte[] encoded = TestBytes.encode(b -> t.encode(b, PduOptions.NONE));
        assertThat(encoded).hasSize(152);
    }

    @Test
    void sizes() {
        assertThat(NvmeTcpHeader.SIZE).isEqualTo(8);
        assertThat(NvmeTcpPduType.IC_REQ.hlen()).isEqualTo(128);
        assertThat(NvmeTcpPduType.IC_RESP.hlen()).isEqualTo(128);
        assertThat(NvmeTcpPduType.CAPSULE_CMD.hlen()).isEqualTo(8 + Sqe.SIZE);
        assertThat(NvmeTcpPduType.CAPSULE_RESP.hlen()).isEqualTo(8 + Cqe.SIZE);
        assertThat(new PduOptions(true, true, 0).dataOffset(NvmeTcpPduType.CAPSULE_CMD)).isEqualTo(76);
        assertThat(new PduOptions(false, false, 31).dataOffset(NvmeTcpPduType.H2C_DATA)).isEqualTo(128);
    }
}
