package io.blocktarget.protocol.scsi;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SANITIZE CDB and OVERWRITE parameter list (SBC-4 §5.30), and progress indication sense data (SPC-4 §4.5.2.4.4). */
class SanitizeTest {

    private static Cdb cdb(String hex) {
        return Bytes.decode(Bytes.hex(hex), Cdb::parse);
    }

    @Test
    void cdbFieldsAndServiceActions() {
        // sg_sanitize --overwrite --immed: IMMED, SA 01h, PARAMETER LIST LENGTH 8
        assertThat(cdb("48 81 00 00 00 00 00 00 08 00"))
                .isEqualTo(new SanitizeCdb(SanitizeCdb.ServiceAction.OVERWRITE, true, false, 8));
        assertThat(cdb("48 22 00 00 00 00 00 00 00 00"))
                .isEqualTo(new SanitizeCdb(SanitizeCdb.ServiceAction.BLOCK_ERASE, false, true, 0));
        assertThat(cdb("48 03 00 00 00 00 00 00 00 00"))
                .isEqualTo(new SanitizeCdb(SanitizeCdb.ServiceAction.CRYPTOGRAPHIC_ERASE, false, false, 0));
        // ZNR (byte 1 bit 6) means something for zoned devices only, which do not support SANITIZE: reserved
        assertThat(cdb("48 43 00 00 00 00 00 00 00 00")).isEqualTo(CdbError.invalidField(1, 6));
        assertThat(cdb("48 c2 00 00 00 00 00 00 00 00")).isEqualTo(CdbError.invalidField(1, 6));
        for (int b = 2; b <= 6; b++) {                                                // every reserved byte
            byte[] c = Bytes.hex("48 02 00 00 00 00 00 00 00 00");
            c[b] = (byte) b;
            assertThat(Bytes.decode(c, Cdb::parse)).as("byte %d", b)
                    .isEqualTo(CdbError.invalidField(b, 31 - Integer.numberOfLeadingZeros(b)));
        }
        assertThat(cdb("48 1f 00 00 00 00 00 00 00 00"))
                .isEqualTo(new SanitizeCdb(SanitizeCdb.ServiceAction.EXIT_FAILURE_MODE, false, false, 0));
        assertThat(cdb("48 04 00 00 00 00 00 00 00 00")).isEqualTo(CdbError.invalidField(1, 4));
        assertThat(cdb("48 00 00 00 00 00 00 00 00 00")).isEqualTo(CdbError.invalidField(1, 4));
        assertThat(cdb("48 02 00 00 00 80 00 00 00 00")).isEqualTo(CdbError.invalidField(5, 7));
        assertThat(cdb("48 02 00 00 00 00 00 00 00 04")).isEqualTo(CdbError.invalidField(9, 2));
        assertThat(ScsiOpcode.definesServiceActions(0x48)).isTrue();
        assertThat(ScsiOpcode.of(0x48, 0x03)).contains(ScsiOpcode.SANITIZE_CRYPTOGRAPHIC_ERASE);
    }

    private static Parsed<OverwriteParameters> overwrite(String hex, int lbs) {
        return OverwriteParameters.parse(Unpooled.wrappedBuffer(Bytes.hex(hex)), lbs);
    }

    @Test
    void overwriteParameterList() {
        assertThat(overwrite("83 00 00 02 a5 5a", 512))
                .isEqualTo(Parsed.ok(new OverwriteParameters(true, 3, Bytes.hex("a5 5a"))));
        OverwriteParameters p = new OverwriteParameters(true, 2, Bytes.hex("a5 5a 01"));
        assertThat(p.block(8, 0)).isEqualTo(Bytes.hex("a5 5a 01 a5 5a 01 a5 5a"));
        assertThat(p.block(8, 1)).isEqualTo(Bytes.hex("5a a5 fe 5a a5 fe 5a a5"));
        assertThat(new OverwriteParameters(false, 2, Bytes.hex("a5")).block(2, 1)).isEqualTo(Bytes.hex("a5 a5"));
        assertThat(overwrite("80 00 00 01 ff", 512)).isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                FieldPointer.parameter(0, 4)));                                        // OVERWRITE COUNT 0
        assertThat(overwrite("21 00 00 01 ff", 512)).isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                FieldPointer.parameter(0, 6)));                                        // TEST 01b
        assertThat(overwrite("01 04 00 01 ff", 512)).isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                FieldPointer.parameter(1, 2)));                                        // reserved
        assertThat(overwrite("01 00 00 00", 512)).isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                FieldPointer.parameter(2, 7)));                                        // pattern length 0
        assertThat(overwrite("01 00 00 03 ff ff", 512)).isEqualTo(Parsed.invalid(
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(2, 7))); // not the list's bytes
        assertThat(overwrite("01 00 00 03 ff ff ff", 2)).isEqualTo(Parsed.invalid(
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(2, 7))); // above the LBS
    }

    @Test
    void progressIndicationInFixedAndDescriptorSense() {
        SenseData s = SenseData.withProgress(SenseReason.LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS, 0x4000);
        assertThat(Bytes.encode(s::encodeFixed)).isEqualTo(Bytes.hex(
                "70 00 02 00 00 00 00 0a 00 00 00 00 04 1b 00 80 40 00"));
        assertThat(Bytes.encode(s::encodeDescriptor)).isEqualTo(Bytes.hex(
                "72 02 04 1b 00 00 00 08 02 06 00 00 80 40 00 00"));
        assertThatThrownBy(() -> SenseData.withProgress(SenseReason.NO_SENSE, 0x10000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SenseData.of(SenseReason.NO_SENSE, Optional.empty()).progressIndication()).isEmpty();
    }
}
