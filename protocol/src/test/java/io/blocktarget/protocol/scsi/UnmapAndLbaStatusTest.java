package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.blocktarget.protocol.scsi.Bytes.decode;
import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

/** UNMAP parameter list (SBC-4 §5.32.2) and GET LBA STATUS data (SBC-4 §5.7.2). */
class UnmapAndLbaStatusTest {

    private static Parsed<UnmapParameterList> parse(String hex) {
        return decode(hex(hex), UnmapParameterList::parse);
    }

    @Test
    void linuxSdSingleDescriptor() {
        // Linux sd_setup_unmap_cmnd: UNMAP DATA LENGTH 6 + 16, descriptor data length 16, one range
        assertThat(parse("0016 0010 00000000 | 0000000000001000 00000800 00000000")).isEqualTo(Parsed.ok(
                new UnmapParameterList(List.of(new UnmapParameterList.Descriptor(4096, 2048)))));
    }

    @Test
    void severalDescriptorsAndIncompleteTrailingOneIgnored() {
        assertThat(parse("""
                0030 0028 00000000   # 50 bytes sent: UNMAP DATA LENGTH 48, descriptor data 40 = 2.5 descriptors
                0000000000000000 00000001 00000000
                00000000ffffffff ffffffff 00000000
                0000000000000002 0000
                """.replaceAll("#[^\\n]*", ""))).isEqualTo(Parsed.ok(new UnmapParameterList(List.of(
                new UnmapParameterList.Descriptor(0, 1),
                new UnmapParameterList.Descriptor(0xFFFF_FFFFL, 0xFFFF_FFFFL)))));
    }

    @Test
    void emptyAndHeaderOnly() {
        assertThat(parse("")).isEqualTo(Parsed.ok(new UnmapParameterList(List.of())));
        assertThat(parse("0006 0000 00000000")).isEqualTo(Parsed.ok(new UnmapParameterList(List.of())));
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', textBlock = """
            0016 0010 000000;                                            PARAMETER_LIST_LENGTH_ERROR
            00;                                                          PARAMETER_LIST_LENGTH_ERROR
            0026 0020 00000000 0000000000000000 00000001 00000000;       PARAMETER_LIST_LENGTH_ERROR
            0017 0010 00000000 0000000000000000 00000001 00000000;       PARAMETER_LIST_LENGTH_ERROR
            0016 0010 00000000 8000000000000000 00000001 00000000;       LBA_OUT_OF_RANGE
            0016 0010 00000000 7fffffffffffffff 00000001 00000000;       LBA_OUT_OF_RANGE
            """)
    void rejected(String hex, SenseReason reason) {
        assertThat(parse(hex)).isEqualTo(Parsed.invalid(reason));
    }

    @Test
    void descriptorFieldPointers() {
        assertThat(UnmapParameterList.lbaField(0)).isEqualTo(FieldPointer.parameter(8, 7));
        assertThat(UnmapParameterList.numberOfBlocksField(2)).isEqualTo(FieldPointer.parameter(48, 7));
    }

    @Test
    void lbaStatusData() {
        LbaStatusData data = new LbaStatusData(List.of(
                new LbaStatusData.Descriptor(0, 16, LbaStatusData.ProvisioningStatus.MAPPED),
                new LbaStatusData.Descriptor(16, 0xFFFF_FFFFL, LbaStatusData.ProvisioningStatus.DEALLOCATED)));
        assertThat(encode(data::encode)).isEqualTo(hex("""
                00000024 00000000                          # PARAMETER DATA LENGTH 4 + 2 * 16
                0000000000000000 00000010 00 000000        # mapped
                0000000000000010 ffffffff 01 000000        # deallocated
                """.replaceAll("#[^\\n]*", "")));
        assertThat(encode(new LbaStatusData(List.of())::encode)).isEqualTo(hex("00000004 00000000"));
    }
}
