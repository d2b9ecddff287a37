package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** SET TARGET PORT GROUPS parameter list (SPC-5 §6.41): header, 4-byte descriptors, truncated lists. */
class SetTargetPortGroupsParametersTest {

    private static Parsed<SetTargetPortGroupsParameters> parse(String hex) {
        ByteBuf list = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
        try {
            return SetTargetPortGroupsParameters.parse(list);
        } finally {
            list.release();
        }
    }

    @Test
    void linuxAluaHandlersListIsOneDescriptor() {
        // Linux scsi_dh_alua submit_stpg: stpg_data[4] = active/optimized, bytes 6-7 = the group id
        assertThat(parse("00 00 00 00 00 00 00 02")).isEqualTo(Parsed.ok(new SetTargetPortGroupsParameters(List.of(
                new SetTargetPortGroupsParameters.Descriptor(0x0, 2, 4)))));
    }

    @Test
    void descriptorsKeepTheirOffsetsAndOnlyTheLowNibbleIsTheState() {
        assertThat(parse("ff ff ff ff f2 ff 00 01 0e 00 ab cd")).isEqualTo(Parsed.ok(
                new SetTargetPortGroupsParameters(List.of(new SetTargetPortGroupsParameters.Descriptor(0x2, 1, 4),
                        new SetTargetPortGroupsParameters.Descriptor(0xE, 0xABCD, 8)))));
        assertThat(parse("00 00 00 00")).as("a header alone: no descriptor")
                .isEqualTo(Parsed.ok(new SetTargetPortGroupsParameters(List.of())));
    }

    @Test
    void aListEndingInsideTheHeaderOrADescriptorIsALengthError() {
        for (String hex : List.of("", "00", "00 00 00", "00 00 00 00 00", "00 00 00 00 00 00 00", "00 00 00 00"
                + " 00 00 00 01 02")) {
            assertThat(parse(hex)).as(hex).isEqualTo(Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR));
        }
    }

    @Test
    void encodeIsWhatParseReads() {
        SetTargetPortGroupsParameters p = new SetTargetPortGroupsParameters(List.of(
                new SetTargetPortGroupsParameters.Descriptor(0x3, 7, 4)));
        ByteBuf out = Unpooled.buffer();
        p.encode(out);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("0000000003000007");
        assertThat(SetTargetPortGroupsParameters.parse(out)).isEqualTo(Parsed.ok(p));
        out.release();
    }
}
