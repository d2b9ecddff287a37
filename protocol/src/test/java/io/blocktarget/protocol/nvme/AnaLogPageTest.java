package io.blocktarget.protocol.nvme;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.blocktarget.protocol.nvme.TestBytes.encode;
import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static io.blocktarget.protocol.nvme.TestBytes.zeros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Asymmetric Namespace Access log page (NVMe Base 2.x §5.16.1.12, Figures "ANA log page", "ANA Group Descriptor"). */
class AnaLogPageTest {
    private static final AnaLogPage PAGE = new AnaLogPage(0x0102030405060708L, List.of(
            new AnaLogPage.Group(1, 9, AnaLogPage.OPTIMIZED, List.of(1, 3)),
            new AnaLogPage.Group(0xFFFF_FFFE, 0, AnaLogPage.CHANGE, List.of(0xFFFF_FFFE))));

    private static final String HEADER = "08 07 06 05 04 03 02 01"  // CHANGE COUNT
            + " 02 00" + zeros(6);                                  // NUMBER OF ANA GROUP DESCRIPTORS, reserved

    @Test
    void descriptorsCarryTheirNsidsInOrder() {
        assertThat(encode(out -> PAGE.encode(out, false))).isEqualTo(hex(HEADER
                + " 01 00 00 00  02 00 00 00  09 00 00 00 00 00 00 00  01" + zeros(15)   // ANAGRPID, NNSID, CHGCNT, state
                + " 01 00 00 00  03 00 00 00"                                          // NSIDs
                + " fe ff ff ff  01 00 00 00" + zeros(8) + " 0f" + zeros(15)
                + " fe ff ff ff"));
        assertThat(PAGE.size(false)).isEqualTo(16 + 32 + 8 + 32 + 4);
    }

    @Test
    void returnGroupsOnlyLeavesTheNsidsOut() {
        assertThat(encode(out -> PAGE.encode(out, true))).isEqualTo(hex(HEADER
                + " 01 00 00 00" + zeros(4) + " 09 00 00 00 00 00 00 00  01" + zeros(15)
                + " fe ff ff ff" + zeros(4) + zeros(8) + " 0f" + zeros(15)));
        assertThat(PAGE.size(true)).isEqualTo(16 + 2 * 32);
        assertThat(AnaLogPage.LSP_RGO).isEqualTo(1);
    }

    @Test
    void decodeReadsWhatEncodeWrote() {
        byte[] bytes = encode(out -> PAGE.encode(out, false));
        assertThat(AnaLogPage.decode(Unpooled.wrappedBuffer(bytes))).isEqualTo(PAGE);
    }

    @Test
    void groupZeroAndStatesBeyondFourBitsAreRefused() {
        assertThatThrownBy(() -> new AnaLogPage.Group(0, 0, AnaLogPage.OPTIMIZED, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AnaLogPage.Group(1, 0, 0x10, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new AnaLogPage.Group(1, 0, 0xF, List.of()).state()).isEqualTo(0xF);
    }
}
