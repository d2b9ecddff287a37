package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class ScsiOpcodeTest {

    @ParameterizedTest
    @CsvSource({"0x00,6", "0x1F,6", "0x20,10", "0x5F,10", "0x60,-1", "0x7F,-1", "0x80,16", "0x9F,16",
            "0xA0,12", "0xBF,12", "0xC0,-1", "0xFF,-1"})
    void cdbLengthByGroupCode(String code, int length) {
        assertThat(ScsiOpcode.cdbLengthForGroup(Integer.decode(code))).isEqualTo(length);
    }

    @ParameterizedTest
    @EnumSource(ScsiOpcode.class)
    void usageDataMatchesGroupLengthAndOpcode(ScsiOpcode op) {
        byte[] usage = op.cdbUsageData();
        assertThat(usage).hasSize(ScsiOpcode.cdbLengthForGroup(op.code()));
        assertThat(usage[0] & 0xFF).isEqualTo(op.code());
        if (op.hasServiceAction()) {
            assertThat(usage[1] & 0x1F).isEqualTo(op.serviceAction());
        }
        assertThat(usage[usage.length - 1]).isEqualTo((byte) 0x05); // NACA and LINK evaluated
        assertThat(ScsiOpcode.of(op.code(), op.serviceAction())).contains(op);
    }

    @Test
    void wireCodes() {
        assertThat(ScsiOpcode.READ_CAPACITY_16.code()).isEqualTo(0x9E);
        assertThat(ScsiOpcode.READ_CAPACITY_16.serviceAction()).isEqualTo(0x10);
        assertThat(ScsiOpcode.GET_LBA_STATUS.serviceAction()).isEqualTo(0x12);
        assertThat(ScsiOpcode.REPORT_SUPPORTED_OPERATION_CODES.code()).isEqualTo(0xA3);
        assertThat(ScsiOpcode.REPORT_SUPPORTED_OPERATION_CODES.serviceAction()).isEqualTo(0x0C);
        assertThat(ScsiOpcode.COMPARE_AND_WRITE.code()).isEqualTo(0x89);
        assertThat(ScsiOpcode.WRITE_SAME_16.code()).isEqualTo(0x93);
        assertThat(ScsiOpcode.UNMAP.code()).isEqualTo(0x42);
        assertThat(ScsiOpcode.of(0x9E, 0x11)).isEqualTo(Optional.empty());
        assertThat(ScsiOpcode.of(0x28, 0x1F)).contains(ScsiOpcode.READ_10);
        assertThat(ScsiOpcode.definesServiceActions(0x9E)).isTrue();
        assertThat(ScsiOpcode.definesServiceActions(0x28)).isFalse();
    }

    @Test
    void usageDataIsACopy() {
        ScsiOpcode.READ_10.cdbUsageData()[1] = 0;
        assertThat(ScsiOpcode.READ_10.cdbUsageData()[1]).isEqualTo((byte) 0xF8);
    }

    /** of() answers from a table for codes without service actions: the same as a scan of every constant. */
    @Test
    void ofMatchesAScanOfEveryConstantForEveryCodeAndServiceAction() {
        for (int code = -1; code <= 256; code++) {
            for (int sa = -1; sa < 32; sa++) {
                Optional<ScsiOpcode> scan = Optional.empty();
                for (ScsiOpcode op : ScsiOpcode.values()) {
                    if (op.code() == code && (op.serviceAction() < 0 || op.serviceAction() == sa)) {
                        scan = Optional.of(op);
                        break;
                    }
                }
                assertThat(ScsiOpcode.of(code, sa)).as("code %d service action %d", code, sa).isEqualTo(scan);
            }
        }
        assertThat(ScsiOpcode.of(0x28, -1)).contains(ScsiOpcode.READ_10);
        assertThat(ScsiOpcode.of(0x9E, 0x10)).contains(ScsiOpcode.READ_CAPACITY_16);
    }
}
