package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.OptionalInt;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** REPORT LUNS data (SPC-4 Table 221) and SAM-5 §4.7 LUN encoding. */
class ReportLunsDataTest {

    @Test
    void peripheralAndFlatAddressing() {
        ReportLunsData data = new ReportLunsData(List.of(0, 1, 255, 256, 16383));
        assertThat(encode(data::encode)).isEqualTo(hex("""
                00000028 00000000       # LUN LIST LENGTH 5 * 8, reserved
                0000 0000 0000 0000     # LUN 0: peripheral device addressing, bus 0
                0001 0000 0000 0000     # LUN 1
                00ff 0000 0000 0000     # LUN 255
                4100 0000 0000 0000     # LUN 256: flat space addressing 01b
                7fff 0000 0000 0000     # LUN 16383
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void emptyList() {
        assertThat(encode(new ReportLunsData(List.of())::encode)).isEqualTo(hex("00000000 00000000"));
    }

    @Test
    void outOfRangeLun() {
        assertThatThrownBy(() -> new ReportLunsData(List.of(16384))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScsiLun.encode(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({
            "0000000000000000, 0",
            "0007000000000000, 7",      // Linux int_to_scsilun(7)
            "4123000000000000, 291",    // Linux int_to_scsilun(0x123): flat
            "7fff000000000000, 16383",
    })
    void decode(String field, int lun) {
        assertThat(ScsiLun.decode(Long.parseUnsignedLong(field, 16))).isEqualTo(OptionalInt.of(lun));
        assertThat(ScsiLun.encode(lun)).isEqualTo(Long.parseUnsignedLong(field, 16));
    }

    @ParameterizedTest
    @CsvSource({
            "0100000000000000",  // peripheral addressing, bus 1
            "8001000000000000",  // logical unit addressing
            "c000000000000000",  // extended addressing
            "0001000100000000",  // second level LUN
            "0000000000000001",
    })
    void decodeUnsupported(String field) {
        assertThat(ScsiLun.decode(Long.parseUnsignedLong(field, 16))).isEmpty();
    }
}
