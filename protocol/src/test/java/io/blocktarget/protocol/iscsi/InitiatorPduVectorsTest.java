package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static io.blocktarget.protocol.iscsi.Bytes.ascii;
import static io.blocktarget.protocol.iscsi.Bytes.buf;
import static io.blocktarget.protocol.iscsi.Bytes.concat;
import static io.blocktarget.protocol.iscsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Byte-exact vectors for the initiator PDUs, each written from the RFC 7143 §11 figure (offsets in the
 * comments) and checked both ways: decode gives the hand-built record, encode gives the bytes.
 */
class InitiatorPduVectorsTest {
    private static final String RESERVED_16 = "00000000 00000000 00000000 00000000";

    @Test
    void nopOutPingWithData() {
        byte[] wire = concat(hex(
                "40 80 00 00",             // 0: I=1, opcode 0x00 | F=1 | reserved
                "00 000004",               // 4: TotalAHSLength 0 | DataSegmentLength 4
                "0001000000000000",        // 8: LUN
                "0000000a",                // 16: ITT
                "ffffffff",                // 20: TTT (reserved: this is a ping)
                "00000002",                // 24: CmdSN
                "00000003",                // 28: ExpStatSN
                RESERVED_16),              // 32-47: reserved
                ascii("ping"));            // 48: ping data, already 4-byte aligned
        Vectors.check(wire, new NopOut(true, 0x0001_0000_0000_0000L, 10, -1, 2, 3, buf(ascii("ping"))),
                NopOut::decode);
    }

    @Test
    void scsiCommandRead10() {
        // The iSCSI READ(10) of RFC 3720 Appendix B.4 with ATTR=simple and a 4 KiB transfer.
        byte[] wire = hex(
                "01 c1 00 00",             // 0: opcode 0x01 | F=1 R=1 W=0 ATTR=1 (simple) | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: LUN 0
                "00000014",                // 16: ITT
                "00001000",                // 20: Expected Data Transfer Length 4096
                "00000014",                // 24: CmdSN
                "00000018",                // 28: ExpStatSN
                "28000000 00100000 08000000 00000000"); // 32: CDB READ(10) LBA 16, 8 blocks, padded to 16
        byte[] cdb = hex("28 00 00000010 00 0008 00");
        ScsiCommand expected = new ScsiCommand(false, true, true, false, TaskAttribute.SIMPLE, 0, 0x14, 4096, 0x14,
                0x18, cdb, OptionalLong.empty(), Unpooled.EMPTY_BUFFER);
        assertThat(expected.cdbLength()).isEqualTo(16);
        assertThat(expected.cdbByte(0)).isEqualTo(0x28);
        Vectors.check(wire, expected, ScsiCommand::decode);
    }

    @Test
    void scsiCommandWithExtendedCdbBidirectionalAhsAndImmediateData() {
        byte[] wire = concat(hex(
                "41 a2 00 00",             // 0: I=1, opcode 0x01 | F=1 R=0 W=1 ATTR=2 (ordered) | reserved
                "04 000006",               // 4: TotalAHSLength 4 words (16 bytes) | DataSegmentLength 6
                "0002000000000000",        // 8: LUN
                "00000021",                // 16: ITT
                "00000200",                // 20: Expected Data Transfer Length 512
                "00000030",                // 24: CmdSN
                "00000031",                // 28: ExpStatSN
                "7f010203 04050607 08090a0b 0c0d0e0f", // 32: CDB bytes 0-15
                "0005 01 00",              // 48: AHS: AHSLength 5 (= CDB length 20 - 15) | type 1 extended CDB | reserved
                "10111213",                // 52: CDB bytes 16-19 (no padding needed)
                "0005 02 00",              // 56: AHS: AHSLength 5 | type 2 bidirectional read length | reserved
                "00001000"),               // 60: Bidirectional Expected Read-Data Length 4096
                ascii("abcdef"), hex("0000")); // 64: immediate data, 6 bytes + 2 bytes padding
        byte[] cdb = hex("7f010203 04050607 08090a0b 0c0d0e0f 10111213");
        Vectors.check(wire, new ScsiCommand(true, true, false, true, TaskAttribute.ORDERED, 0x0002_0000_0000_0000L,
                0x21, 512, 0x30, 0x31, cdb, OptionalLong.of(4096), buf(ascii("abcdef"))), ScsiCommand::decode);
    }

    @Test
    void scsiCommandWithPaddedExtendedCdb() {
        byte[] wire = hex(
                "01 80 00 00",             // 0: opcode 0x01 | F=1, no data, ATTR=0 (untagged)
                "02 000000",               // 4: TotalAHSLength 2 words | DataSegmentLength 0
                "0000000000000000",        // 8: LUN
                "00000001",                // 16: ITT
                "00000000",                // 20: EDTL 0
                "00000001",                // 24: CmdSN
                "00000001",                // 28: ExpStatSN
                "a0a1a2a3 a4a5a6a7 a8a9aaab acadaeaf", // 32: CDB bytes 0-15
                "0003 01 00",              // 48: AHSLength 3 (= 18 - 15) | type 1 | reserved
                "b0b1 0000");              // 52: CDB bytes 16-17 | 2 bytes AHS padding
        byte[] cdb = hex("a0a1a2a3 a4a5a6a7 a8a9aaab acadaeaf b0b1");
        Vectors.check(wire, new ScsiCommand(false, true, false, false, TaskAttribute.UNTAGGED, 0, 1, 0, 1, 1, cdb,
                OptionalLong.empty(), Unpooled.EMPTY_BUFFER), ScsiCommand::decode);
    }

    @Test
    void taskManagementAbortTask() {
        byte[] wire = hex(
                "42 81 00 00",             // 0: I=1, opcode 0x02 | F=1, Function 1 (ABORT TASK) | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0003000000000000",        // 8: LUN
                "00000040",                // 16: ITT
                "00000021",                // 20: Referenced Task Tag
                "00000032",                // 24: CmdSN
                "00000033",                // 28: ExpStatSN
                "00000030",                // 32: RefCmdSN
                "00000000",                // 36: ExpDataSN
                "00000000 00000000");      // 40-47: reserved
        TaskManagementRequest expected = new TaskManagementRequest(true, TmfFunction.ABORT_TASK,
                0x0003_0000_0000_0000L, 0x40, 0x21, 0x32, 0x33, 0x30, 0);
        assertThat(expected.knownFunction()).contains(TmfFunction.ABORT_TASK);
        Vectors.check(wire, expected, TaskManagementRequest::decode);
    }

    @Test
    void taskManagementUnknownFunctionIsKeptForTheFunctionNotSupportedAnswer() {
        byte[] wire = hex("02 ff 00 00", "00 000000", "0000000000000000", "00000001", "ffffffff", "00000001",
                "00000001", "00000000", "00000000", "00000000 00000000");
        ByteBuf frame = buf(wire);
        try {
            TaskManagementRequest tmf = TaskManagementRequest.decode(frame);
            assertThat(tmf.function()).isEqualTo(0x7f);
            assertThat(tmf.knownFunction()).isEmpty();
        } finally {
            frame.release();
        }
    }

    @Test
    void loginRequest() {
        byte[] data = ascii("SessionType=Normal\0");
        byte[] wire = concat(hex(
                "43 87 00 00",             // 0: I=1, opcode 0x03 | T=1 C=0 CSG=1 NSG=3 | Version-max 0 | Version-min 0
                "00 000013",               // 4: TotalAHSLength 0 | DataSegmentLength 19
                "80123456789a",            // 8: ISID (T=10b random, A..D)
                "0000",                    // 14: TSIH 0 (new session)
                "00000001",                // 16: ITT
                "0001 0000",               // 20: CID 1 | reserved
                "00000005",                // 24: CmdSN
                "00000007",                // 28: ExpStatSN
                RESERVED_16),              // 32-47: reserved
                data, hex("00"));          // 48: key=value text, 19 bytes + 1 byte padding
        LoginFlags flags = new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE);
        Vectors.check(wire, new LoginRequest(flags, 0, 0, 0x80_1234_5678_9aL, 0, 1, 1, 5, 7, buf(data)),
                LoginRequest::decode);
    }

    @Test
    void loginRequestContinuedWithoutTransit() {
        byte[] wire = concat(hex(
                "43 40 00 00",             // 0: I=1, opcode 0x03 | T=0 C=1 CSG=0 NSG=0 (reserved while T=0)
                "00 000004",               // 4: DataSegmentLength 4
                "000000000001",            // 8: ISID
                "0000",                    // 14: TSIH
                "00000002",                // 16: ITT
                "0000 0000",               // 20: CID 0 | reserved
                "00000000",                // 24: CmdSN
                "00000000",                // 28: ExpStatSN
                RESERVED_16),
                ascii("Init"));            // 48: the first 4 bytes of a key split across PDUs
        LoginFlags flags = new LoginFlags(false, true, LoginStage.SECURITY_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE);
        assertThat(flags.nsg()).as("NSG is reserved while T=0").isEqualTo(LoginStage.SECURITY_NEGOTIATION);
        Vectors.check(wire, new LoginRequest(flags, 0, 0, 1, 0, 2, 0, 0, 0, buf(ascii("Init"))),
                LoginRequest::decode);
    }

    @Test
    void textRequestSendTargets() {
        byte[] data = ascii("SendTargets=All\0");
        byte[] wire = concat(hex(
                "04 80 00 00",             // 0: opcode 0x04 | F=1 C=0 | reserved
                "00 000010",               // 4: TotalAHSLength 0 | DataSegmentLength 16
                "0000000000000000",        // 8: LUN (reserved)
                "00000050",                // 16: ITT
                "ffffffff",                // 20: TTT (new exchange)
                "00000001",                // 24: CmdSN
                "00000002",                // 28: ExpStatSN
                RESERVED_16),              // 32-47: reserved
                data);                     // 48: 16 bytes, no padding
        Vectors.check(wire, new TextRequest(false, true, false, 0, 0x50, -1, 1, 2, buf(data)), TextRequest::decode);
    }

    @Test
    void dataOut() {
        byte[] wire = concat(hex(
                "05 80 00 00",             // 0: opcode 0x05 | F=1 | reserved
                "00 000005",               // 4: TotalAHSLength 0 | DataSegmentLength 5
                "0001000000000000",        // 8: LUN
                "00000021",                // 16: ITT
                "00000700",                // 20: TTT from the R2T
                "00000000",                // 24: reserved
                "00000034",                // 28: ExpStatSN
                "00000000",                // 32: reserved
                "00000002",                // 36: DataSN
                "00002000",                // 40: Buffer Offset 8192
                "00000000"),               // 44: reserved
                ascii("hello"), hex("000000")); // 48: 5 data bytes + 3 bytes padding
        Vectors.check(wire, new DataOut(true, 0x0001_0000_0000_0000L, 0x21, 0x700, 0x34, 2, 0x2000,
                buf(ascii("hello"))), DataOut::decode);
    }

    @Test
    void logoutRequest() {
        byte[] wire = hex(
                "46 81 00 00",             // 0: I=1, opcode 0x06 | F=1, reason 1 (close the connection)
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: reserved
                "00000060",                // 16: ITT
                "0002 0000",               // 20: CID 2 | reserved
                "00000040",                // 24: CmdSN
                "00000041",                // 28: ExpStatSN
                RESERVED_16);              // 32-47: reserved
        Vectors.check(wire, new LogoutRequest(true, LogoutReason.CLOSE_CONNECTION, 0x60, 2, 0x40, 0x41),
                LogoutRequest::decode);
    }

    @Test
    void snackRequest() {
        byte[] wire = hex(
                "10 81 00 00",             // 0: opcode 0x10 | F=1, Type 1 (Status) | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: LUN
                "00000021",                // 16: ITT
                "ffffffff",                // 20: TTT / SNACK Tag
                "00000000",                // 24: reserved
                "00000035",                // 28: ExpStatSN
                "00000000 00000000",       // 32: reserved
                "00000007",                // 40: BegRun
                "00000002");               // 44: RunLength
        Vectors.check(wire, new SnackRequest(SnackType.STATUS, 0, 0x21, -1, 0x35, 7, 2), SnackRequest::decode);
    }
}
