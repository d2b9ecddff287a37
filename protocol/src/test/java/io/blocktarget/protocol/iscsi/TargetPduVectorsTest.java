package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;

import static io.blocktarget.protocol.iscsi.Bytes.ascii;
import static io.blocktarget.protocol.iscsi.Bytes.buf;
import static io.blocktarget.protocol.iscsi.Bytes.concat;
import static io.blocktarget.protocol.iscsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

/** Byte-exact vectors for the target PDUs, written from the RFC 7143 §11 figures, checked both ways. */
class TargetPduVectorsTest {
    private static final long LUN1 = 0x0001_0000_0000_0000L;

    @Test
    void loginResponseSuccess() {
        byte[] data = ascii("HeaderDigest=None\0");
        byte[] wire = concat(hex(
                "23 87 00 00",             // 0: opcode 0x23 | T=1 C=0 CSG=1 NSG=3 | Version-max 0 | Version-active 0
                "00 000012",               // 4: TotalAHSLength 0 | DataSegmentLength 18
                "80123456789a",            // 8: ISID
                "0007",                    // 14: TSIH
                "00000001",                // 16: ITT
                "00000000",                // 20: reserved
                "00000000",                // 24: StatSN
                "00000006",                // 28: ExpCmdSN
                "00000025",                // 32: MaxCmdSN
                "00 00 0000",              // 36: Status-Class 0 | Status-Detail 0 | reserved
                "00000000 00000000"),      // 40-47: reserved
                data, hex("0000"));        // 48: 18 bytes of text + 2 bytes padding
        LoginFlags flags = new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE);
        Vectors.check(wire, new LoginResponse(flags, 0, 0, 0x80_1234_5678_9aL, 7, 1, 0, 6, 0x25, LoginStatus.SUCCESS,
                buf(data)), LoginResponse::decode);
    }

    @Test
    void loginResponseAuthenticationFailure() {
        byte[] wire = hex(
                "23 00 00 00",             // 0: opcode 0x23 | T=0 C=0 CSG=0 | versions 0
                "00 000000",               // 4: no data
                "000000000001",            // 8: ISID
                "0000",                    // 14: TSIH
                "00000009",                // 16: ITT
                "00000000",                // 20: reserved
                "00000000",                // 24: StatSN
                "00000001",                // 28: ExpCmdSN
                "00000001",                // 32: MaxCmdSN
                "02 01 0000",              // 36: Status-Class 2 (initiator error) | Detail 1 (authentication failure)
                "00000000 00000000");      // 40-47: reserved
        LoginFlags flags = new LoginFlags(false, false, LoginStage.SECURITY_NEGOTIATION,
                LoginStage.SECURITY_NEGOTIATION);
        Vectors.check(wire, new LoginResponse(flags, 0, 0, 1, 0, 9, 0, 1, 1, LoginStatus.AUTHENTICATION_FAILURE,
                Unpooled.EMPTY_BUFFER), LoginResponse::decode);
    }

    @Test
    void textResponse() {
        byte[] data = ascii("TargetName=iqn.x:y\0");
        byte[] wire = concat(hex(
                "24 80 00 00",             // 0: opcode 0x24 | F=1 C=0 | reserved
                "00 000013",               // 4: TotalAHSLength 0 | DataSegmentLength 19
                "0000000000000000",        // 8: LUN (reserved)
                "00000050",                // 16: ITT
                "ffffffff",                // 20: TTT (exchange complete)
                "00000003",                // 24: StatSN
                "00000002",                // 28: ExpCmdSN
                "00000021",                // 32: MaxCmdSN
                "00000000 00000000 00000000"), // 36-47: reserved
                data, hex("00"));          // 48: 19 bytes + 1 byte padding
        Vectors.check(wire, new TextResponse(true, false, 0, 0x50, -1, 3, 2, 0x21, buf(data)), TextResponse::decode);
    }

    @Test
    void scsiResponseCheckConditionWithSense() {
        byte[] sense = hex("70 00 05 00000000 0a 00000000 20 00 00 000000"); // 18 bytes, fixed format, ILLEGAL REQUEST, 20/00
        byte[] data = concat(hex("0012"), sense); // SenseLength 18 | sense data
        byte[] wire = concat(hex(
                "21 82 00 02",             // 0: opcode 0x21 | F=1 o=0 u=0 O=0 U=1 | Response 0 | Status 0x02
                "00 000014",               // 4: TotalAHSLength 0 | DataSegmentLength 20
                "0000000000000000",        // 8: reserved
                "00000014",                // 16: ITT
                "00000000",                // 20: SNACK Tag
                "00000009",                // 24: StatSN
                "00000015",                // 28: ExpCmdSN
                "00000034",                // 32: MaxCmdSN
                "00000000",                // 36: ExpDataSN
                "00000000",                // 40: Bidirectional Read Residual Count
                "00001000"),               // 44: Residual Count 4096
                data);                     // 48: 20 bytes, aligned
        ScsiResponse expected = new ScsiResponse(0, 2, ResidualFlag.NONE, ResidualFlag.UNDERFLOW, 0x14, 0, 9, 0x15,
                0x34, 0, 0, 0x1000, ScsiResponse.senseSegment(Unpooled.wrappedBuffer(sense)));
        assertThat(ByteBufUtil.getBytes(expected.senseData())).isEqualTo(sense);
        Vectors.check(wire, expected, ScsiResponse::decode);
    }

    @Test
    void scsiResponseGoodWithBidirectionalOverflow() {
        byte[] wire = hex(
                "21 90 00 00",             // 0: opcode 0x21 | F=1 o=1 (bidi read overflow) | Response 0 | GOOD
                "00 000000",               // 4: no data
                "0000000000000000",        // 8: reserved
                "00000015",                // 16: ITT
                "00000000",                // 20: SNACK Tag
                "0000000a",                // 24: StatSN
                "00000016",                // 28: ExpCmdSN
                "00000035",                // 32: MaxCmdSN
                "00000003",                // 36: ExpDataSN
                "00000200",                // 40: Bidirectional Read Residual Count 512
                "00000000");               // 44: Residual Count
        ScsiResponse expected = new ScsiResponse(0, 0, ResidualFlag.OVERFLOW, ResidualFlag.NONE, 0x15, 0, 10, 0x16,
                0x35, 3, 512, 0, Unpooled.EMPTY_BUFFER);
        assertThat(expected.senseData().readableBytes()).isZero();
        Vectors.check(wire, expected, ScsiResponse::decode);
    }

    @Test
    void dataInWithStatusAndOverflow() {
        byte[] payload = hex("0123456789abcdef");
        byte[] wire = concat(hex(
                "25 85 00 00",             // 0: opcode 0x25 | F=1 A=0 O=1 U=0 S=1 | reserved | Status GOOD
                "00 000008",               // 4: TotalAHSLength 0 | DataSegmentLength 8
                "0001000000000000",        // 8: LUN
                "00000014",                // 16: ITT
                "ffffffff",                // 20: TTT
                "0000000a",                // 24: StatSN
                "00000015",                // 28: ExpCmdSN
                "00000034",                // 32: MaxCmdSN
                "00000000",                // 36: DataSN
                "00000000",                // 40: Buffer Offset
                "00000008"),               // 44: Residual Count
                payload);                  // 48: 8 bytes of read data
        Vectors.check(wire, new DataIn(true, false, OptionalInt.of(0), ResidualFlag.OVERFLOW, LUN1, 0x14, -1, 10,
                0x15, 0x34, 0, 0, 8, buf(payload)), DataIn::decode);
    }

    @Test
    void dataInWithoutStatus() {
        byte[] wire = concat(hex(
                "25 40 00 00",             // 0: opcode 0x25 | F=0 A=1 S=0 | reserved | reserved
                "00 000003",               // 4: DataSegmentLength 3
                "0001000000000000",        // 8: LUN
                "00000014",                // 16: ITT
                "00000099",                // 20: TTT (for the DataACK)
                "00000000",                // 24: StatSN (reserved without S)
                "00000015",                // 28: ExpCmdSN
                "00000034",                // 32: MaxCmdSN
                "00000001",                // 36: DataSN
                "00010000",                // 40: Buffer Offset 65536
                "00000000"),               // 44: Residual Count (reserved without S)
                hex("aabbcc 00"));         // 48: 3 bytes + 1 byte padding
        Vectors.check(wire, new DataIn(false, true, OptionalInt.empty(), ResidualFlag.NONE, LUN1, 0x14, 0x99, 0, 0x15,
                0x34, 1, 0x10000, 0, buf(hex("aabbcc"))), DataIn::decode);
    }

    @Test
    void r2t() {
        byte[] wire = hex(
                "31 80 00 00",             // 0: opcode 0x31 | F=1 | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0001000000000000",        // 8: LUN
                "00000021",                // 16: ITT
                "00000700",                // 20: TTT
                "0000000b",                // 24: StatSN
                "00000031",                // 28: ExpCmdSN
                "00000050",                // 32: MaxCmdSN
                "00000001",                // 36: R2TSN
                "00002000",                // 40: Buffer Offset 8192
                "00010000");               // 44: Desired Data Transfer Length 65536
        Vectors.check(wire, new R2t(LUN1, 0x21, 0x700, 0x0b, 0x31, 0x50, 1, 0x2000, 0x10000), R2t::decode);
    }

    @Test
    void nopInTargetPing() {
        byte[] wire = hex(
                "20 80 00 00",             // 0: opcode 0x20 | F=1 | reserved
                "00 000000",               // 4: no data
                "0000000000000000",        // 8: LUN
                "ffffffff",                // 16: ITT reserved (target-initiated)
                "00000099",                // 20: TTT
                "0000000c",                // 24: StatSN
                "00000031",                // 28: ExpCmdSN
                "00000050",                // 32: MaxCmdSN
                "00000000 00000000 00000000"); // 36-47: reserved
        Vectors.check(wire, new NopIn(0, -1, 0x99, 0x0c, 0x31, 0x50, Unpooled.EMPTY_BUFFER), NopIn::decode);
    }

    @Test
    void taskManagementResponse() {
        byte[] wire = hex(
                "22 80 01 00",             // 0: opcode 0x22 | F=1 | Response 1 (task does not exist) | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: reserved
                "00000040",                // 16: ITT
                "00000000",                // 20: reserved
                "0000000d",                // 24: StatSN
                "00000033",                // 28: ExpCmdSN
                "00000052",                // 32: MaxCmdSN
                "00000000 00000000 00000000"); // 36-47: reserved
        Vectors.check(wire, new TaskManagementResponse(TmfResponse.TASK_DOES_NOT_EXIST, 0x40, 0x0d, 0x33, 0x52),
                TaskManagementResponse::decode);
    }

    @Test
    void logoutResponse() {
        byte[] wire = hex(
                "26 80 00 00",             // 0: opcode 0x26 | F=1 | Response 0 | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: reserved
                "00000060",                // 16: ITT
                "00000000",                // 20: reserved
                "0000000e",                // 24: StatSN
                "00000041",                // 28: ExpCmdSN
                "00000060",                // 32: MaxCmdSN
                "00000000",                // 36: reserved
                "0002 0014",               // 40: Time2Wait 2 | Time2Retain 20
                "00000000");               // 44: reserved
        Vectors.check(wire, new LogoutResponse(LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED, 0x60, 0x0e, 0x41,
                0x60, 2, 20), LogoutResponse::decode);
    }

    @Test
    void rejectCarriesTheRejectedHeader() {
        byte[] rejected = hex("10 81 00 00", "00 000000", "0000000000000000", "00000021", "ffffffff", "00000000",
                "00000035", "00000000 00000000", "00000007", "00000002"); // a SNACK at ERL 0
        byte[] wire = concat(hex(
                "3f 80 04 00",             // 0: opcode 0x3f | F=1 | Reason 0x04 (protocol error) | reserved
                "00 000030",               // 4: TotalAHSLength 0 | DataSegmentLength 48
                "0000000000000000",        // 8: reserved
                "ffffffff",                // 16: 0xffffffff
                "00000000",                // 20: reserved
                "0000000f",                // 24: StatSN
                "00000042",                // 28: ExpCmdSN
                "00000061",                // 32: MaxCmdSN
                "00000000",                // 36: DataSN/R2TSN
                "00000000 00000000"),      // 40-47: reserved
                rejected);                 // 48: the complete rejected BHS
        Reject expected = new Reject(RejectReason.PROTOCOL_ERROR, 0x0f, 0x42, 0x61, 0, buf(rejected));
        assertThat(expected.itt()).isEqualTo(-1);
        Vectors.check(wire, expected, Reject::decode);
    }

    @Test
    void asyncMessageRequestingLogout() {
        byte[] wire = hex(
                "32 80 00 00",             // 0: opcode 0x32 | F=1 | reserved
                "00 000000",               // 4: TotalAHSLength 0 | DataSegmentLength 0
                "0000000000000000",        // 8: LUN
                "ffffffff",                // 16: 0xffffffff
                "00000000",                // 20: reserved
                "00000010",                // 24: StatSN
                "00000043",                // 28: ExpCmdSN
                "00000062",                // 32: MaxCmdSN
                "01 00 0000",              // 36: AsyncEvent 1 (logout request) | AsyncVCode 0 | Parameter1 0
                "0000 0005",               // 40: Parameter2 0 | Parameter3 5 (seconds to log out)
                "00000000");               // 44: reserved
        AsyncMessage expected = new AsyncMessage(0, 0x10, 0x43, 0x62, AsyncEvent.LOGOUT_REQUEST, 0, 0, 0, 5,
                Unpooled.EMPTY_BUFFER);
        assertThat(expected.itt()).isEqualTo(-1);
        Vectors.check(wire, expected, AsyncMessage::decode);
    }

    @Test
    void decodersIgnoreReservedFields() {
        // R2T with every reserved bit set (byte 1 bits 0-6, bytes 2-3): RFC 7143 §11.2.1 receivers ignore them.
        byte[] wire = hex("31 ff ffff", "00 000000", "0001000000000000", "00000021", "00000700", "0000000b",
                "00000031", "00000050", "00000001", "00002000", "00010000");
        ByteBuf frame = buf(wire);
        try {
            assertThat(R2t.decode(frame)).isEqualTo(new R2t(LUN1, 0x21, 0x700, 0x0b, 0x31, 0x50, 1, 0x2000, 0x10000));
        } finally {
            frame.release();
        }
    }
}
