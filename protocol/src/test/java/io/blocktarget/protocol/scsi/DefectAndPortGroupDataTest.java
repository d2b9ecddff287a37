package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** READ DEFECT DATA headers (SBC-4 §5.18.2, §5.19.2) and REPORT TARGET PORT GROUPS data (SPC-4 §6.36.2), byte-exact. */
class DefectAndPortGroupDataTest {

    @Test
    void readDefectData10HeaderIsFourBytesWithTheValidBitsAndTheFormat() {
        // byte 1: reserved(7-5) PLISTV(4) GLISTV(3) DEFECT LIST FORMAT(2-0); bytes 2-3 DEFECT LIST LENGTH
        assertThat(Bytes.encode(new ReadDefectData(false, false, true, 0b011)::encode))
                .isEqualTo(Bytes.hex("00 0b 00 00"));
        assertThat(Bytes.encode(new ReadDefectData(false, true, true, 0b101)::encode))
                .isEqualTo(Bytes.hex("00 1d 00 00"));
        assertThat(new ReadDefectData(false, false, false, 0).length()).isEqualTo(4);
    }

    @Test
    void readDefectData12HeaderIsEightBytesWithGenerationCodeAndFourByteLength() {
        // bytes 2-3 GENERATION CODE, 4-7 DEFECT LIST LENGTH
        assertThat(Bytes.encode(new ReadDefectData(true, true, false, 0b100)::encode))
                .isEqualTo(Bytes.hex("00 14 00 00 00 00 00 00"));
        assertThat(new ReadDefectData(true, false, false, 0).length()).isEqualTo(8);
        assertThatThrownBy(() -> new ReadDefectData(true, false, false, 8)).isInstanceOf(IllegalArgumentException.class);
    }

    private static final TargetPortGroupsData.Group ONE = new TargetPortGroupsData.Group(true,
            TargetPortGroupsData.ACTIVE_OPTIMIZED, TargetPortGroupsData.AO_SUP, 1, 0, List.of(1));

    @Test
    void lengthOnlyHeaderThenOneDescriptorWithOnePort() {
        assertThat(Bytes.encode(new TargetPortGroupsData(false, 0, List.of(ONE))::encode)).isEqualTo(Bytes.hex(
                "00 00 00 0c"          // RETURN DATA LENGTH: 8 descriptor + 4 port
                + " 80 01 00 01"       // PREF, state 0h active/optimized; AO_SUP; TARGET PORT GROUP 1
                + " 00 00 00 01"       // reserved, STATUS CODE 0, vendor specific, TARGET PORT COUNT 1
                + " 00 00 00 01"));    // obsolete, RELATIVE TARGET PORT IDENTIFIER 1
    }

    @Test
    void extendedHeaderCarriesFormatTypeAndTransitionTimeAndCountsInTheLength() {
        TargetPortGroupsData.Group two = new TargetPortGroupsData.Group(false, 0x2, 0x07, 0x1234, 0x02,
                List.of(2, 0xFFFF));
        assertThat(Bytes.encode(new TargetPortGroupsData(true, 60, List.of(ONE, two))::encode)).isEqualTo(Bytes.hex(
                "00 00 00 20"          // 4 extended header + 12 + 16
                + " 10 3c 00 00"       // FORMAT TYPE 001b, IMPLICIT TRANSITION TIME 60 s
                + " 80 01 00 01 00 00 00 01 00 00 00 01"
                + " 02 07 12 34 00 02 00 02 00 00 00 02 00 00 ff ff"));
    }

    @Test
    void fieldsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> new TargetPortGroupsData.Group(false, 0x10, 0, 1, 0, List.of(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TargetPortGroupsData.Group(false, 0, 0, 0x10000, 0, List.of(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TargetPortGroupsData.Group(false, 0, 0, 1, 0, List.of(0x10000)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TargetPortGroupsData(false, 256, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
