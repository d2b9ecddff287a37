package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

/** REPORT SUPPORTED OPERATION CODES data (SPC-4 §6.35.2 Tables 233-234, §6.35.3 Table 236, §6.35.4 Table 238). */
class SupportedOperationCodesTest {

    @Test
    void allCommands() {
        var data = new SupportedOperationCodes.AllCommands(
                List.of(ScsiOpcode.READ_10, ScsiOpcode.READ_CAPACITY_16), false);
        assertThat(encode(data::encode)).isEqualTo(hex("""
                00000010                    # COMMAND DATA LENGTH 2 * 8
                28 00 0000 00 00 000a       # READ(10): no SA, SERVACTV 0, CDB LENGTH 10
                9e 00 0010 00 01 0010       # READ CAPACITY(16): SA 10h, SERVACTV 1, CDB LENGTH 16
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void allCommandsWithTimeouts() {
        var data = new SupportedOperationCodes.AllCommands(List.of(ScsiOpcode.TEST_UNIT_READY), true);
        assertThat(encode(data::encode)).isEqualTo(hex("""
                00000014                    # 8 + 12
                00 00 0000 00 02 0006       # CTDP = 1
                000a 00 00 00000000 00000000 # timeouts descriptor: length 0Ah, timeouts unspecified
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void oneCommandSupported() {
        // Linux scsi_report_opcode(WRITE SAME(16)) with request_len 4 + 16; sd tests (buffer[1] & 3) == 3
        var cdb = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 01 93 00 00 00 00 00 14 00 00");
        var data = SupportedOperationCodes.OneCommand.forRequest(EnumSet.allOf(ScsiOpcode.class), cdb);
        assertThat(encode(data::encode)).hasSize(20).isEqualTo(hex("""
                00 03 0010                                       # SUPPORT 011b, CDB SIZE 16
                93 ff ff ff ff ff ff ff ff ff ff ff ff ff 00 05  # CDB USAGE DATA
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void oneCommandWithServiceActionAndTimeouts() {
        var cdb = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 82 9e 00 12 00 00 01 00 00 00");
        var data = SupportedOperationCodes.OneCommand.forRequest(EnumSet.allOf(ScsiOpcode.class), cdb);
        assertThat(data.command()).contains(ScsiOpcode.GET_LBA_STATUS);
        assertThat(encode(data::encode)).isEqualTo(hex("""
                00 83 0010
                9e 12 ff ff ff ff ff ff ff ff ff ff ff ff 00 05
                000a 00 00 00000000 00000000
                """));
    }

    @Test
    void oneCommandNotSupported() {
        var cdb = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 01 41 00 00 00 00 02 00 00 00");
        var data = SupportedOperationCodes.OneCommand.forRequest(EnumSet.of(ScsiOpcode.READ_10), cdb);
        assertThat(data).isEqualTo(new SupportedOperationCodes.OneCommand(Optional.empty(), false));
        assertThat(encode(data::encode)).isEqualTo(hex("00 01 0000"));
        // unknown service action of a supported opcode
        var sa = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 02 9e 00 11 00 00 02 00 00 00");
        assertThat(SupportedOperationCodes.OneCommand.forRequest(EnumSet.allOf(ScsiOpcode.class), sa).command())
                .isEmpty();
    }

    @Test
    void oneCommandUsageDataForRead10AndModeSense6() {
        var cdb = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 03 28 00 00 00 00 02 00 00 00");
        var data = SupportedOperationCodes.OneCommand.forRequest(EnumSet.allOf(ScsiOpcode.class), cdb);
        assertThat(encode(data::encode)).isEqualTo(hex("00 03 000a 28 f8 ff ff ff ff 00 ff ff 05"));
        var ms = (ReportSupportedOperationCodesCdb) Bytes.cdb("a3 0c 01 1a 00 00 00 00 02 00 00 00");
        assertThat(encode(SupportedOperationCodes.OneCommand.forRequest(EnumSet.allOf(ScsiOpcode.class), ms)::encode))
                .isEqualTo(hex("00 03 0006 1a 08 ff ff ff 05"));
    }
}
