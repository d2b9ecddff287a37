package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** MODE SENSE data: headers (SPC-4 Tables 429-430), block descriptors (SBC-4 §6.4.2), pages 08h, 0Ah, 1Ch. */
class ModePagesTest {

    static final ControlModePage CONTROL = new ControlModePage(0, false, false, false, 1, 0, false, true, 0, 0);
    static final CachingModePage CACHING = new CachingModePage(true, false);
    static final InformationalExceptionsModePage IEC =
            new InformationalExceptionsModePage(false, false, false, true, false, false, 0, 0, 0);

    @Test
    void cachingPage() {
        assertThat(encode(CACHING::encode)).isEqualTo(hex("08 12 04" + "00".repeat(17)));
        assertThat(encode(new CachingModePage(false, true)::encode)).isEqualTo(hex("08 12 01" + "00".repeat(17)));
        // changeable values: only WCE
        assertThat(encode(CachingModePage.CHANGEABLE::encode)).isEqualTo(hex("08 12 04" + "00".repeat(17)));
    }

    @Test
    void controlPage() {
        assertThat(encode(CONTROL::encode)).isEqualTo(hex("""
                0a 0a   # page code, PAGE LENGTH
                00      # 2: TST 0, D_SENSE 0
                10      # 3: QUEUE ALGORITHM MODIFIER 1, QERR 0
                00      # 4: SWP 0
                40      # 5: TAS
                0000 0000 0000
                """.replaceAll("#[^\\n]*", "")));
        ControlModePage all = new ControlModePage(7, true, true, true, 0xF, 3, true, true, 0x1234, 0xABCD);
        assertThat(encode(all::encode)).isEqualTo(hex("0a 0a f6 f6 08 40 0000 1234 abcd"));
        assertThat(encode(ControlModePage.CHANGEABLE::encode)).isEqualTo(hex("0a 0a 04 00 08 00 0000 0000 0000")); // D_SENSE, SWP
    }

    @Test
    void informationalExceptionsPage() {
        assertThat(encode(IEC::encode)).isEqualTo(hex("1c 0a 08 00 00000000 00000000"));
        InformationalExceptionsModePage all =
                new InformationalExceptionsModePage(true, true, true, true, true, true, 6, 0x10, 0x20);
        assertThat(encode(all::encode)).isEqualTo(hex("1c 0a bd 06 00000010 00000020"));
        assertThat(encode(InformationalExceptionsModePage.CHANGEABLE::encode)).isEqualTo(hex("1c 0a" + "00".repeat(10)));
    }

    @Test
    void modeSense6WithShortBlockDescriptor() {
        ModeSenseData data = new ModeSenseData(0, true, true, Optional.of(new BlockDescriptor(0x200000, 4096)),
                false, List.of(CACHING));
        assertThat(encode(data::encode6)).isEqualTo(hex("""
                1f          # 0: MODE DATA LENGTH = 32 - 1
                00          # 1: MEDIUM TYPE
                90          # 2: WP, DPOFUA
                08          # 3: BLOCK DESCRIPTOR LENGTH
                00200000 00 001000   # short descriptor: blocks, reserved, block length 4096
                08 12 04 0000000000000000000000000000000000
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void modeSense6WithoutDescriptorAllPages() {
        ModeSenseData data = new ModeSenseData(0, false, false, Optional.empty(), false,
                List.of(CACHING, CONTROL, IEC));
        byte[] bytes = encode(data::encode6);
        assertThat(bytes).hasSize(4 + 20 + 12 + 12);
        assertThat(java.util.Arrays.copyOfRange(bytes, 0, 4)).isEqualTo(hex("2f 00 00 00"));
        assertThat(java.util.Arrays.copyOfRange(bytes, 4, 7)).isEqualTo(hex("08 12 04"));
        assertThat(java.util.Arrays.copyOfRange(bytes, 24, 26)).isEqualTo(hex("0a 0a"));
        assertThat(java.util.Arrays.copyOfRange(bytes, 36, 38)).isEqualTo(hex("1c 0a"));
    }

    @Test
    void shortDescriptorSaturates() {
        ModeSenseData data = new ModeSenseData(0, false, false, Optional.of(new BlockDescriptor(1L << 33, 512)),
                false, List.of());
        assertThat(encode(data::encode6)).isEqualTo(hex("0b 00 00 08 ffffffff 00 000200"));
    }

    @Test
    void modeSense10LongLba() {
        ModeSenseData data = new ModeSenseData(0, false, true, Optional.of(new BlockDescriptor(1L << 33, 65536)),
                true, List.of(CONTROL));
        assertThat(encode(data::encode10)).isEqualTo(hex("""
                0022        # 0-1: MODE DATA LENGTH = 36 - 2
                00 10       # 2: MEDIUM TYPE, 3: DPOFUA
                01 00       # 4: LONGLBA, 5: reserved
                0010        # 6-7: BLOCK DESCRIPTOR LENGTH 16
                0000000200000000 00000000 00010000   # long descriptor
                0a 0a 00 10 00 40 0000 0000 0000
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void modeSense10ShortDescriptorAndNoPages() {
        ModeSenseData data = new ModeSenseData(0, true, false, Optional.of(new BlockDescriptor(16, 512)),
                false, List.of());
        assertThat(encode(data::encode10)).isEqualTo(hex("000e 00 80 00 00 0008 00000010 00 000200"));
        ModeSenseData bare = new ModeSenseData(0, false, false, Optional.empty(), false, List.of());
        assertThat(encode(bare::encode10)).isEqualTo(hex("0006 00 00 00 00 0000"));
        assertThatThrownBy(() -> encode(new ModeSenseData(0, false, false, Optional.empty(), true, List.of())::encode6))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void selectPages() {
        List<ModePage> all = List.of(CACHING, CONTROL, IEC);
        assertThat(ModeSenseData.selectPages(all, 0x3F, 0x00)).isEqualTo(Parsed.ok(all));
        assertThat(ModeSenseData.selectPages(all, 0x3F, 0xFF)).isEqualTo(Parsed.ok(all));
        assertThat(ModeSenseData.selectPages(all, 0x0A, 0x00)).isEqualTo(Parsed.ok(List.of(CONTROL)));
        assertThat(ModeSenseData.selectPages(all, 0x08, 0xFF)).isEqualTo(Parsed.ok(List.of(CACHING)));
        assertThat(ModeSenseData.selectPages(all, 0x19, 0x00))
                .isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(2, 5)));
        assertThat(ModeSenseData.selectPages(all, 0x0A, 0x01))
                .isEqualTo(Parsed.invalid(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(3, 7)));
    }
}
