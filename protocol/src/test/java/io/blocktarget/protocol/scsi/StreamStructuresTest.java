package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SBC-5 stream structures byte for byte against the SBC-5 / SPC-5 tables, read the way Linux sd reads them
 * (sd_read_block_limits_ext, sd_read_io_hints, sd_is_perm_stream).
 */
class StreamStructuresTest {

    /** Hex with {@code #} comments to end of line. */
    private static byte[] vector(String text) {
        return Bytes.hex(text.replaceAll("#[^\n]*", ""));
    }

    @Test
    void blockLimitsExtensionVpd() {
        BlockLimitsExtensionVpd page = new BlockLimitsExtensionVpd(true, 7, 8, 0x4000);
        byte[] got = Bytes.encode(out -> page.encode(out, Peripheral.DIRECT_ACCESS_BLOCK_DEVICE));
        assertThat(got).isEqualTo(vector("""
                00 B7 003C          # peripheral, page code, page length 60
                00 01               # 4 reserved, 5 RSCS
                0007 0008           # 6 MAXIMUM NUMBER OF STREAMS, 8 OPTIMAL STREAM WRITE SIZE
                00004000            # 10 STREAM GRANULARITY SIZE
                """ + "00".repeat(50)));
        assertThat(got[5] & 1).as("sd: rscs = vpd->data[5] & 1").isEqualTo(1);
        assertThat(new BlockLimitsExtensionVpd(true, 63, 1, 1).maximumNumberOfStreams()).isEqualTo(63);
        assertThatThrownBy(() -> new BlockLimitsExtensionVpd(true, 64, 1, 1))
                .as("SBC-5 §4.32.3: RSCS needs fewer than 64 streams").isInstanceOf(IllegalArgumentException.class);
        assertThat(new BlockLimitsExtensionVpd(false, 64, 1, 1).maximumNumberOfStreams()).isEqualTo(64);
        assertThatThrownBy(() -> new BlockLimitsExtensionVpd(false, 1, 0x1_0000, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void extendedInquiryVpdWithGroupSup() {
        ExtendedInquiryVpd page = new ExtendedInquiryVpd(0, false, false, false, false, true, false, true, true, true,
                false, false, false, true, false, 252);
        byte[] got = Bytes.encode(out -> page.encode(out, Peripheral.DIRECT_ACCESS_BLOCK_DEVICE));
        assertThat(got).isEqualTo(vector("""
                00 86 003C          # peripheral, page code, page length 60
                00                  # 4 ACTIVATE MICROCODE, SPT, GRD_CHK, APP_CHK, REF_CHK
                17                  # 5 GROUP_SUP, HEADSUP, ORDSUP, SIMPSUP
                01                  # 6 V_SUP
                00                  # 7 LUICLR
                0000000000          # 8-12
                FC                  # 13 MAXIMUM SUPPORTED SENSE DATA LENGTH
                """ + "00".repeat(50)));
        ExtendedInquiryVpd all = new ExtendedInquiryVpd(7, true, true, true, true, true, true, true, true, true, true,
                true, true, true, true, 0);
        byte[] allBits = Bytes.encode(out -> all.encode(out, Peripheral.DIRECT_ACCESS_BLOCK_DEVICE));
        assertThat(allBits[4]).isEqualTo((byte) 0x3F);
        assertThat(allBits[5]).isEqualTo((byte) 0x3F);
        assertThat(allBits[6]).isEqualTo((byte) 0x0F);
        assertThat(allBits[7]).isEqualTo((byte) 0x01);
        assertThatThrownBy(() -> new ExtendedInquiryVpd(8, false, false, false, false, false, false, false, false,
                false, false, false, false, false, false, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ioAdviceHintsGroupingModePageAsSdWalksIt() {
        IoAdviceHintsGroupingModePage page = new IoAdviceHintsGroupingModePage(List.of(
                IoAdviceHintsGroupingModePage.GroupDescriptor.STREAM, IoAdviceHintsGroupingModePage.GroupDescriptor.STREAM,
                IoAdviceHintsGroupingModePage.GroupDescriptor.NONE));
        byte[] got = Bytes.encode(page::encode);
        assertThat(got).isEqualTo(vector("""
                4A 05 003C                  # SPF | 0Ah, subpage 05h, page length 12 + 3 × 16
                000000000000000000000000    # 4-15 reserved
                04 000000 000000000000000000000000   # group 0: ST_ENBLE
                04 000000 000000000000000000000000   # group 1: ST_ENBLE
                00 000000 000000000000000000000000   # group 2: not a stream
                """));
        // sd: start = header + 16, st_enble = byte 0 bit 2 of each 16-byte descriptor
        assertThat(got[16] & 0x04).isNotZero();
        assertThat(got[48] & 0x04).isZero();
        IoAdviceHintsGroupingModePage flags = new IoAdviceHintsGroupingModePage(List.of(
                new IoAdviceHintsGroupingModePage.GroupDescriptor(2, true, true, true)));
        assertThat(Bytes.encode(flags::encode)[16]).isEqualTo((byte) 0x87);
    }

    @Test
    void ioAdviceHintsGroupingModePageLimitsAndChangeableValues() {
        IoAdviceHintsGroupingModePage max = IoAdviceHintsGroupingModePage.streams(64);
        assertThat(max.pageLength()).isEqualTo(0x040C);
        assertThat(Bytes.encode(max::encode)).hasSize(1040);
        assertThatThrownBy(() -> IoAdviceHintsGroupingModePage.streams(65)).isInstanceOf(IllegalArgumentException.class);
        IoAdviceHintsGroupingModePage changeable = IoAdviceHintsGroupingModePage.streams(7).changeable();
        byte[] bytes = Bytes.encode(changeable::encode);
        assertThat(bytes).hasSize(16 + 7 * 16);
        for (int i = 4; i < bytes.length; i++) {
            assertThat(bytes[i]).as("byte %d", i).isZero();
        }
    }

    @Test
    void ioAdviceHintsGroupingModePageDecodesWhatItEncodes() {
        IoAdviceHintsGroupingModePage page = new IoAdviceHintsGroupingModePage(List.of(
                IoAdviceHintsGroupingModePage.GroupDescriptor.STREAM,
                new IoAdviceHintsGroupingModePage.GroupDescriptor(1, false, true, false)));
        byte[] bytes = Bytes.encode(page::encode);
        assertThat(Bytes.decode(bytes, IoAdviceHintsGroupingModePage::decode)).contains(page);
        byte[] psSet = bytes.clone();
        psSet[0] |= (byte) 0x80;                                      // PS is ignored in a MODE SELECT page
        assertThat(Bytes.decode(psSet, IoAdviceHintsGroupingModePage::decode)).contains(page);
        byte[] wrongSubpage = bytes.clone();
        wrongSubpage[1] = 0x06;
        assertThat(Bytes.decode(wrongSubpage, IoAdviceHintsGroupingModePage::decode)).isEmpty();
        byte[] noSpf = bytes.clone();
        noSpf[0] = 0x0A;
        assertThat(Bytes.decode(noSpf, IoAdviceHintsGroupingModePage::decode)).isEmpty();
        byte[] ragged = bytes.clone();
        ragged[3] = (byte) (ragged[3] + 1);                           // not 12 + 16n
        assertThat(Bytes.decode(ragged, IoAdviceHintsGroupingModePage::decode)).isEmpty();
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        assertThat(Bytes.decode(truncated, IoAdviceHintsGroupingModePage::decode)).isEmpty();
        assertThat(Bytes.decode(java.util.Arrays.copyOf(bytes, 15), IoAdviceHintsGroupingModePage::decode)).isEmpty();
    }

    @Test
    void getStreamStatusDataAsSdReadsIt() {
        GetStreamStatusData data = new GetStreamStatusData(6, List.of(
                new GetStreamStatusData.StreamStatus(true, 1, 1),
                new GetStreamStatusData.StreamStatus(true, 2, 0x3F),
                new GetStreamStatusData.StreamStatus(false, 0x1234, 0)));
        byte[] got = Bytes.encode(data::encode);
        assertThat(got).isEqualTo(vector("""
                00000018 0000 0006      # PARAMETER DATA LENGTH 24 (n - 7), reserved, NUMBER OF OPEN STREAMS 6
                80 00 0001 01 000000    # PERM, stream 1, relative lifetime 1
                80 00 0002 3F 000000    # PERM, stream 2, longest relative lifetime
                00 00 1234 00 000000    # not permanent
                """)).hasSize(data.size());
        // sd_is_perm_stream: be32 length >= 8 and byte 8 bit 7
        assertThat(got[3]).isGreaterThanOrEqualTo((byte) 8);
        assertThat(got[8] & 0x80).isNotZero();
        assertThat(Bytes.encode(new GetStreamStatusData(0, List.of())::encode)).isEqualTo(Bytes.hex("00000000 0000 0000"));
        assertThatThrownBy(() -> new GetStreamStatusData.StreamStatus(true, 1, 0x40))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GetStreamStatusData.StreamStatus(true, 0x1_0000, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(GetStreamStatusData.SERVICE_ACTION).isEqualTo(0x16);
    }
}
