package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

class FabricsCommandsTest {
    static final String SUBNQN = "nqn.2026-11.io.blocktarget:ram-4k";
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:0f7f1a2b-0000-4000-8000-000000000001";
    static final byte[] HOSTID = hex("0f7f1a2b 0000 4000 8000 000000000001");

    static Sqe sqe(byte[] b) {
        return Sqe.get(Unpooled.wrappedBuffer(b), 0);
    }

    /** The 1024-byte Connect data built by hand from Base §6.3 "Connect Command - Data". */
    static byte[] connectData(int cntlid, String subnqn, String hostnqn) {
        byte[] d = new byte[1024];
        System.arraycopy(HOSTID, 0, d, 0, 16);       // 0..15 HOSTID
        TestBytes.putLe(d, 16, cntlid, 2);            // 16..17 CNTLID
        byte[] s = subnqn.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(s, 0, d, 256, s.length);    // 256..511 SUBNQN, NUL padded
        byte[] h = hostnqn.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(h, 0, d, 512, h.length);    // 512..767 HOSTNQN
        return d;
    }

    @Test
    void connectSqeParses() {
        ConnectCommand c = ConnectCommand.parse(sqe(SqeCqeTest.CONNECT_SQE)).orNull();
        assertThat(c).isNotNull();
        assertThat(c.isAdminQueue()).isTrue();
        assertThat(c.sqsize()).isEqualTo(31);
        assertThat(c.queueEntries()).isEqualTo(32);
        assertThat(c.sqFlowControlDisabled()).isTrue();
        assertThat(c.kato()).isEqualTo(5000);
        assertThat(TestBytes.encode(c.toSqe()::encode)).isEqualTo(SqeCqeTest.CONNECT_SQE);
    }

    @Test
    void connectRejectsBadFields() {
        byte[] b = SqeCqeTest.CONNECT_SQE.clone();
        b[40] = 1; // RECFMT 1
        assertThat(ConnectCommand.parse(sqe(b)).status()).isEqualTo(NvmeStatus.CONNECT_INCOMPATIBLE_FORMAT);

        b = SqeCqeTest.CONNECT_SQE.clone();
        b[44] = 15; // admin SQSIZE 15 < 31
        Parsed<ConnectCommand> p = ConnectCommand.parse(sqe(b));
        assertThat(p).isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 44));

        b = SqeCqeTest.CONNECT_SQE.clone();
        b[42] = 1; // I/O queue 1 with SQSIZE 0
        b[44] = 0;
        assertThat(ConnectCommand.parse(sqe(b))).isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 44));

        b = SqeCqeTest.CONNECT_SQE.clone();
        b[32] = 0;
        b[33] = 2; // SGL length 512
        assertThat(ConnectCommand.parse(sqe(b)).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);

        b = SqeCqeTest.CONNECT_SQE.clone();
        b[39] = 0x40; // keyed SGL
        assertThat(ConnectCommand.parse(sqe(b)).status()).isEqualTo(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);

        b = SqeCqeTest.CONNECT_SQE.clone();
        b[4] = 0x04; // Property Get, not Connect
        assertThat(ConnectCommand.parse(sqe(b)).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    @Test
    void ioQueueConnect() {
        byte[] b = SqeCqeTest.CONNECT_SQE.clone();
        b[42] = 3;     // QID 3
        b[44] = 127;   // SQSIZE 127
        b[46] = 0;
        ConnectCommand c = ConnectCommand.parse(sqe(b)).orNull();
        assertThat(c.qid()).isEqualTo(3);
        assertThat(c.queueEntries()).isEqualTo(128);
        assertThat(c.sqFlowControlDisabled()).isFalse();
    }

    @Test
    void connectDataParsesAndEncodes() {
        byte[] d = connectData(0xFFFF, SUBNQN, HOSTNQN);
        ConnectData cd = ConnectData.parse(Unpooled.wrappedBuffer(d)).orNull();
        assertThat(cd).isNotNull();
        assertThat(cd.hostId()).isEqualTo(HOSTID);
        assertThat(cd.cntlid()).isEqualTo(ConnectData.CNTLID_DYNAMIC);
        assertThat(cd.subnqn()).isEqualTo(SUBNQN);
        assertThat(cd.hostnqn()).isEqualTo(HOSTNQN);
        assertThat(TestBytes.encode(cd::encode)).isEqualTo(d);
    }

    @Test
    void connectDataErrorsNameTheField() {
        // IATTR bit 0 = 1 (in data) at bits 23:16, IPO = field offset at 15:0
        byte[] unterminated = connectData(0xFFFF, SUBNQN, HOSTNQN);
        java.util.Arrays.fill(unterminated, 256, 512, (byte) 'a');
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(unterminated)))
                .isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 0x0001_0100));
        // an empty HOSTNQN (SPDK's default) parses; the subsystem's allow-list decides (Connect Invalid Host)
        byte[] emptyHost = connectData(0xFFFF, SUBNQN, "");
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(emptyHost)).orNull().hostnqn()).isEmpty();
        byte[] emptySub = connectData(0xFFFF, "", HOSTNQN);
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(emptySub)))
                .isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 0x0001_0100));
        byte[] unterminatedHost = connectData(0xFFFF, SUBNQN, HOSTNQN);
        java.util.Arrays.fill(unterminatedHost, 512, 768, (byte) 'a');
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(unterminatedHost)))
                .isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 0x0001_0200));
        byte[] nullHostId = connectData(0xFFFF, SUBNQN, HOSTNQN);
        java.util.Arrays.fill(nullHostId, 0, 16, (byte) 0);
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(nullHostId)))
                .isEqualTo(Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, 0x0001_0000));
        byte[] tooLong = connectData(0xFFFF, "n".repeat(224), HOSTNQN);
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(tooLong)).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(ConnectData.parse(Unpooled.wrappedBuffer(new byte[100])).status())
                .isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(ConnectResponse.success(0x1234)).isEqualTo(0x1234);
        assertThat(ConnectResponse.invalidParameter(false, 42)).isEqualTo(42);
    }

    @Test
    void propertyGetAndSet() {
        // Property Get CC (4 bytes) and CAP (8 bytes), Base §6.5
        byte[] get = hex("""
                7f 40 05 00  04 00 00 00   # opcode 7Fh, CID 5, FCTYPE 04h Property Get
                """ + TestBytes.zeros(31) + """
                5a                         # 39 SGL identifier: transport data block, length 0 (Linux: no data)
                01 00 00 00                # 40 ATTRIB 1: 8 bytes
                00 00 00 00                # 44 OFST 0 = CAP
                """ + TestBytes.zeros(16));
        PropertyCommand p = PropertyCommand.parse(sqe(get)).orNull();
        assertThat(p.type()).isEqualTo(FabricsCommandType.PROPERTY_GET);
        assertThat(p.register()).isEqualTo(ControllerRegister.CAP);
        assertThat(TestBytes.encode(p.toSqe()::encode)).isEqualTo(get);

        byte[] set = hex("""
                7f 40 06 00  00 00 00 00   # CID 6, FCTYPE 00h Property Set
                """ + TestBytes.zeros(31) + """
                5a                         # 39 SGL identifier
                00 00 00 00                # 40 ATTRIB 0: 4 bytes
                14 00 00 00                # 44 OFST 14h = CC
                01 00 46 00  00 00 00 00   # 48 VALUE: EN=1, IOSQES=6, IOCQES=4
                """ + TestBytes.zeros(8));
        PropertyCommand s = PropertyCommand.parse(sqe(set)).orNull();
        assertThat(s.register()).isEqualTo(ControllerRegister.CC);
        assertThat(ControllerRegister.Cc.decode((int) s.value()))
                .isEqualTo(new ControllerRegister.Cc(true, 0, 0, 0, 0, 6, 4));

        byte[] wrongSize = set.clone();
        wrongSize[40] = 1; // CC is 4 bytes
        assertThat(PropertyCommand.parse(sqe(wrongSize)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] unknownOffset = set.clone();
        unknownOffset[44] = 0x24; // AQA: PCIe only
        assertThat(PropertyCommand.parse(sqe(unknownOffset)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] badAttrib = set.clone();
        badAttrib[40] = 2;
        assertThat(PropertyCommand.parse(sqe(badAttrib)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(PropertyCommand.parse(sqe(SqeCqeTest.READ_SQE)).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    @Test
    void registersEncodeToSpecBits() {
        // CAP: MQES 127 (15:0), CQR (16), TO 30 = 15 s (31:24), CSS NVM (bit 37), MPSMIN 0 (51:48), MPSMAX 4 (55:52)
        ControllerRegister.Cap cap = new ControllerRegister.Cap(127, true, 0, 30, 0, false,
                ControllerRegister.Cap.CSS_NVM, 0, 4);
        assertThat(cap.encode()).isEqualTo(0x0040_0020_1E01_007FL);
        assertThat(ControllerRegister.Cap.decode(cap.encode())).isEqualTo(cap);
        assertThat(ControllerRegister.Vs.V2_0.encode()).isEqualTo(0x0002_0000);
        assertThat(new ControllerRegister.Vs(1, 3, 0).encode()).isEqualTo(0x0001_0300);
        // CC: EN, CSS 0, MPS 0, AMS 0, SHN normal (15:14), IOSQES 6 (19:16), IOCQES 4 (23:20)
        ControllerRegister.Cc cc = new ControllerRegister.Cc(true, 0, 0, 0, ControllerRegister.Cc.SHN_NORMAL, 6, 4);
        assertThat(cc.encode()).isEqualTo(0x0046_4001);
        assertThat(ControllerRegister.Cc.decode(0x0046_4001)).isEqualTo(cc);
        // CSTS: RDY, SHST complete (3:2)
        assertThat(new ControllerRegister.Csts(true, false, ControllerRegister.Csts.SHST_COMPLETE).encode())
                .isEqualTo(0x9);
        assertThat(ControllerRegister.Csts.decode(0xB)).isEqualTo(new ControllerRegister.Csts(true, true, 2));
        assertThat(ControllerRegister.at(0x1C)).contains(ControllerRegister.CSTS);
    }

    @Test
    void connectDataLeavesBufferUntouched() {
        ByteBuf buf = Unpooled.wrappedBuffer(connectData(1, SUBNQN, HOSTNQN));
        ConnectData.parse(buf);
        assertThat(buf.readerIndex()).isZero();
        assertThat(buf.release()).isTrue();
    }
}
