package io.blocktarget.protocol.iscsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.stream.IntStream;

import static io.blocktarget.protocol.iscsi.Bytes.concat;
import static io.blocktarget.protocol.iscsi.Bytes.hex;
import static io.blocktarget.protocol.iscsi.Errors.expect;
import static io.blocktarget.protocol.iscsi.Errors.with;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.AHS_NOT_ALLOWED;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.BAD_AHS;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.BAD_OPCODE;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.DATA_SEGMENT_NOT_ALLOWED;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.INVALID_FIELD;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TRUNCATED;
import static org.assertj.core.api.Assertions.assertThat;

/** Illegal values: every decoder error path yields IscsiProtocolException with the right reason. */
class DecodeErrorsTest {
    /** A valid BHS with the given byte 0 and everything else zero. */
    private static byte[] bhs(int byte0) {
        return with(new byte[48], 0, byte0);
    }

    static IntStream undefinedOpcodes() {
        return IntStream.range(0, 64).filter(code -> IscsiOpcode.fromCode(code).isEmpty());
    }

    @ParameterizedTest(name = "opcode 0x{0}")
    @MethodSource("undefinedOpcodes")
    void reservedAndVendorOpcodesAreBadOpcode(int code) {
        IscsiProtocolException e = expect(BAD_OPCODE, bhs(code), IscsiPdus::decode);
        assertThat(e.header()).hasSize(48);
        assertThat(e.header()[0]).isEqualTo((byte) code);
    }

    @Test
    void opcodeTableHasTheEighteenRfcOpcodes() {
        assertThat(undefinedOpcodes().count()).isEqualTo(64 - 18);
        for (IscsiOpcode op : IscsiOpcode.values()) {
            assertThat(op.source()).isEqualTo(op.code() < 0x20 ? PduSource.INITIATOR : PduSource.TARGET);
            assertThat(IscsiOpcode.fromCode(op.code())).contains(op);
        }
        assertThat(IscsiOpcode.fromCode(-1)).isEmpty();
        assertThat(IscsiOpcode.fromCode(64)).isEmpty();
    }

    @Test
    void aRecordDecoderRefusesAnotherOpcode() {
        expect(BAD_OPCODE, bhs(0x00), R2t::decode);
        expect(BAD_OPCODE, bhs(0x31), NopOut::decode);
        expect(BAD_OPCODE, bhs(0x00), IscsiPdus::decodeTargetPdu);
        expect(BAD_OPCODE, bhs(0x20), IscsiPdus::decodeInitiatorPdu);
    }

    @Test
    void totalAhsLengthIsRefusedWhereTheLayoutFixesItAtZero() {
        for (IscsiOpcode op : IscsiOpcode.values()) {
            if (!op.ahsAllowed()) {
                byte[] wire = with(Arrays.copyOf(bhs(op.code()), 52), 4, 1); // one AHS word, present
                expect(AHS_NOT_ALLOWED, wire, IscsiPdus::decode);
            }
        }
    }

    @Test
    void dataSegmentIsRefusedWhereTheLayoutFixesItAtZero() {
        for (IscsiOpcode op : IscsiOpcode.values()) {
            if (!op.dataAllowed()) {
                byte[] wire = with(Arrays.copyOf(bhs(op.code()), 52), 7, 4);
                expect(DATA_SEGMENT_NOT_ALLOWED, wire, IscsiPdus::decode);
            }
        }
        assertThat(IscsiOpcode.R2T.dataAllowed()).isFalse();
        assertThat(IscsiOpcode.SCSI_COMMAND.ahsAllowed()).isTrue();
    }

    @Test
    void truncatedFrames() {
        expect(TRUNCATED, new byte[0], IscsiPdus::decode);
        expect(TRUNCATED, Arrays.copyOf(bhs(0x00), 47), IscsiPdus::decode);
        expect(TRUNCATED, with(bhs(0x00), 7, 1), IscsiPdus::decode);              // DSL 1, no data byte
        expect(TRUNCATED, with(Arrays.copyOf(bhs(0x01), 51), 4, 1), IscsiPdus::decode); // 4 AHS bytes, 3 present
    }

    // ---- reserved code values in defined fields (§11.2.1: protocol error) ----

    @Test
    void scsiCommandReservedAttribute() {
        for (int attr = 5; attr <= 7; attr++) {
            expect(INVALID_FIELD, with(bhs(0x01), 1, 0x80 | attr), ScsiCommand::decode);
        }
    }

    @Test
    void loginStageAndBits() {
        expect(INVALID_FIELD, with(bhs(0x43), 1, 0x08), LoginRequest::decode);        // CSG = 2
        expect(INVALID_FIELD, with(bhs(0x43), 1, 0x86), LoginRequest::decode);        // T=1, NSG = 2
        expect(INVALID_FIELD, with(bhs(0x43), 1, 0xc7), LoginRequest::decode);        // T and C
        expect(INVALID_FIELD, with(bhs(0x23), 1, 0xc7), LoginResponse::decode);
        expect(INVALID_FIELD, with(bhs(0x23), 36, 0x04), LoginResponse::decode);      // Status-Class 4
        expect(INVALID_FIELD, with(bhs(0x23), 37, 0x0c), LoginResponse::decode);      // 02/0c undefined
        // NSG is reserved (ignored) while T = 0: a 2 there is accepted.
        try (var frame = new Released(with(bhs(0x43), 1, 0x06))) {
            assertThat(LoginRequest.decode(frame.buf).flags().nsg()).isEqualTo(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION);
        }
    }

    @Test
    void textFinalAndContinue() {
        expect(INVALID_FIELD, with(bhs(0x04), 1, 0xc0), TextRequest::decode);
        expect(INVALID_FIELD, with(bhs(0x24), 1, 0xc0), TextResponse::decode);
    }

    @Test
    void dataInStatusAndResidualBits() {
        expect(INVALID_FIELD, with(bhs(0x25), 1, 0x01), DataIn::decode);              // S without F
        expect(INVALID_FIELD, with(bhs(0x25), 1, 0x87), DataIn::decode);              // O and U
        // Without S the O/U bits are undefined and ignored.
        try (var frame = new Released(with(bhs(0x25), 1, 0x06))) {
            assertThat(DataIn.decode(frame.buf).residual()).isEqualTo(ResidualFlag.NONE);
        }
    }

    @Test
    void scsiResponseResidualBitsAndSenseLength() {
        expect(INVALID_FIELD, with(bhs(0x21), 1, 0x86), ScsiResponse::decode);        // O and U
        expect(INVALID_FIELD, with(bhs(0x21), 1, 0x98), ScsiResponse::decode);        // o and u
        byte[] oneByte = concat(with(bhs(0x21), 7, 1), hex("00000000"));
        expect(INVALID_FIELD, oneByte, ScsiResponse::decode);                          // DSL 1: no room for SenseLength
        byte[] senseTooLong = concat(with(bhs(0x21), 7, 4), hex("0003 aabb"));
        expect(INVALID_FIELD, senseTooLong, ScsiResponse::decode);                     // SenseLength 3 > 2 bytes
    }

    @Test
    void reservedCodesInResponseAndRequestFields() {
        expect(INVALID_FIELD, with(bhs(0x22), 2, 7), TaskManagementResponse::decode);
        expect(INVALID_FIELD, with(bhs(0x06), 1, 0x83), LogoutRequest::decode);
        expect(INVALID_FIELD, with(bhs(0x26), 2, 4), LogoutResponse::decode);
        expect(INVALID_FIELD, with(bhs(0x10), 1, 0x84), SnackRequest::decode);
        expect(INVALID_FIELD, with(bhs(0x3f), 2, 0x01), Reject::decode);
        expect(INVALID_FIELD, with(bhs(0x3f), 2, 0x0d), Reject::decode);
        expect(INVALID_FIELD, with(bhs(0x32), 36, 6), AsyncMessage::decode);
    }

    // ---- AHS (§11.2.2) ----

    private static byte[] commandWithAhs(String ahs) {
        byte[] a = hex(ahs);
        return concat(with(bhs(0x01), 4, a.length / 4), a);
    }

    @Test
    void malformedAhs() {
        expect(BAD_AHS, commandWithAhs("0005 03 00 00000000"), ScsiCommand::decode);   // reserved type 3
        expect(BAD_AHS, commandWithAhs("0009 01 00 00000000"), ScsiCommand::decode);   // overruns TotalAHSLength
        expect(BAD_AHS, commandWithAhs("0000 01 00"), ScsiCommand::decode);            // AHSLength 0
        expect(BAD_AHS, commandWithAhs("0004 02 00 00000000"), ScsiCommand::decode);   // bidi AHS must be 5
        expect(BAD_AHS, commandWithAhs("0001 01 00"), ScsiCommand::decode);            // ext CDB with no CDB bytes
        expect(BAD_AHS, commandWithAhs("0005 02 00 00000010 0005 02 00 00000010"), ScsiCommand::decode); // twice
        expect(BAD_AHS, commandWithAhs("0002 01 00 aa000000 0002 01 00 bb000000"), ScsiCommand::decode); // twice
        byte[] tooLongCdb = new byte[4 + 248];
        tooLongCdb[0] = 0;
        tooLongCdb[1] = (byte) 246; // CDB of 261 bytes > 260
        tooLongCdb[2] = 1;
        expect(BAD_AHS, concat(with(bhs(0x01), 4, tooLongCdb.length / 4), tooLongCdb), ScsiCommand::decode);
    }

    @Test
    void theReasonTableSaysHowTheTransportReacts() {
        for (IscsiProtocolException.Reason reason : IscsiProtocolException.Reason.values()) {
            boolean reject = reason.disposition() == IscsiProtocolException.Disposition.REJECT;
            assertThat(reason.rejectReason().isPresent()).as(reason.name()).isEqualTo(reject);
        }
        assertThat(BAD_OPCODE.rejectReason()).contains(RejectReason.COMMAND_NOT_SUPPORTED);
        assertThat(INVALID_FIELD.rejectReason()).contains(RejectReason.INVALID_PDU_FIELD);
    }

    /** A frame buffer released by try-with-resources. */
    private record Released(io.netty.buffer.ByteBuf buf) implements AutoCloseable {
        Released(byte[] bytes) {
            this(Bytes.buf(bytes));
        }

        @Override
        public void close() {
            buf.release();
        }
    }
}
