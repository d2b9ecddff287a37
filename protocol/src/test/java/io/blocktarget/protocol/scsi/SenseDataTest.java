package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Optional;
import java.util.OptionalLong;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Sense data vectors from SPC-4 §4.5.3 Table 45 (fixed) and §4.5.2 Tables 26, 28, 30 (descriptor). */
class SenseDataTest {

    @Test
    void fixedInvalidCommandOperationCode() {
        byte[] sense = encode(out -> SenseData.of(SenseReason.INVALID_COMMAND_OPERATION_CODE).encodeFixed(out));
        assertThat(sense).isEqualTo(hex("""
                70          # 0: VALID=0, RESPONSE CODE 70h
                00          # 1: obsolete
                05          # 2: ILLEGAL REQUEST
                00 00 00 00 # 3-6: INFORMATION
                0a          # 7: ADDITIONAL SENSE LENGTH
                00 00 00 00 # 8-11: COMMAND-SPECIFIC INFORMATION
                20 00       # 12-13: ASC/ASCQ
                00          # 14: FRU
                00 00 00    # 15-17: SKSV=0
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void fixedWithFieldPointerInCdb() {
        SenseData data = SenseData.of(SenseReason.INVALID_FIELD_IN_CDB, Optional.of(FieldPointer.cdb(1, 4)));
        assertThat(encode(data::encodeFixed)).isEqualTo(hex(
                "70 00 05 00000000 0a 00000000 24 00 00 | cc 00 01")); // SKSV|C/D|BPV|bit 4 = cc, field 1
    }

    @Test
    void fixedWithParameterPointerWithoutBit() {
        SenseData data = SenseData.of(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                Optional.of(FieldPointer.parameterByte(0x0123)));
        assertThat(encode(data::encodeFixed)).isEqualTo(hex(
                "70 00 05 00000000 0a 00000000 26 00 00 | 80 01 23")); // SKSV only, field 0123h
    }

    @Test
    void fixedMiscompareWithInformation() {
        // COMPARE AND WRITE miscompare at byte offset 0x1234 of the Data-Out buffer (SBC-4 §5.3)
        SenseData data = SenseData.of(SenseReason.MISCOMPARE_DURING_VERIFY).withInformation(0x1234);
        assertThat(encode(data::encodeFixed)).isEqualTo(hex(
                "f0 00 0e 00001234 0a 00000000 1d 00 00 000000")); // VALID=1
    }

    @Test
    void fixedInformationTooLargeClearsValid() {
        SenseData data = SenseData.of(SenseReason.MISCOMPARE_DURING_VERIFY).withInformation(0x1_0000_0000L);
        assertThat(encode(data::encodeFixed)).isEqualTo(hex("70 00 0e 00000000 0a 00000000 1d 00 00 000000"));
    }

    @Test
    void descriptorWithoutDescriptors() {
        SenseData data = SenseData.of(SenseReason.POWER_ON_RESET);
        assertThat(encode(out -> data.encode(out, true))).isEqualTo(hex(
                "72 06 29 00 00 0000 00")); // 0 RESPONSE CODE, 1 KEY, 2 ASC, 3 ASCQ, 4 SDAT_OVFL, 5-6, 7 length 0
    }

    @Test
    void descriptorWithInformationAndFieldPointer() {
        SenseData data = new SenseData(SenseKey.ILLEGAL_REQUEST, 0x24, 0x00, OptionalLong.of(0x0102030405060708L),
                Optional.of(FieldPointer.cdb(9, 2)));
        assertThat(encode(out -> data.encode(out, true))).isEqualTo(hex("""
                72 05 24 00 00 00 00 14
                00 0a 80 00 01 02 03 04 05 06 07 08
                02 06 00 00 ca 00 09 00
                """)); // info descriptor (type 0, VALID=1), SKS descriptor: SKSV|C/D|BPV|bit 2 = ca, field 9
    }

    @Test
    void copyAbortedCarriesTheSegmentNumberAndASegmentPointer() {
        // SPC §5.17.7.4: segment number in the third and fourth bytes of COMMAND-SPECIFIC INFORMATION;
        // segment pointer (SPC-4 §4.5.2.4.5): SKSV | SD (bit 5) | BPV | bit 7 = af, FIELD POINTER 0006h
        SenseData inSegment = SenseData.copyAborted(SenseReason.UNREACHABLE_COPY_TARGET, 0x0102,
                SegmentPointer.inSegment(6, 7));
        assertThat(encode(inSegment::encodeFixed)).isEqualTo(hex("70 00 0a 00000000 0a 00000102 08 04 00 af0006"));
        assertThat(encode(out -> inSegment.encode(out, true))).isEqualTo(hex("""
                72 0a 08 04 00 00 00 14
                01 0a 00 00 00 00 00 00 00 00 01 02
                02 06 00 00 af 00 06 00
                """)); // command-specific information descriptor (type 01h, a 4-byte quantity), SKS descriptor
        // SD = 0, no bit: the first byte of a CSCD descriptor in the parameter list
        SenseData inList = SenseData.copyAborted(SenseReason.COPY_ABORTED_READ_ERROR, 3,
                SegmentPointer.inParameterList(48));
        assertThat(encode(inList::encodeFixed)).isEqualTo(hex("70 00 0a 00000000 0a 00000003 11 00 00 800030"));
    }

    @Test
    void copyAbortedIsOnlyForCopyAbortedReasonsAndSixteenBitSegments() {
        assertThatThrownBy(() -> SenseData.copyAborted(SenseReason.LBA_OUT_OF_RANGE, 0,
                SegmentPointer.inSegment(20, 7))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SenseData.copyAborted(SenseReason.UNREACHABLE_COPY_TARGET, 0x10000,
                SegmentPointer.inSegment(4, 7))).isInstanceOf(IllegalArgumentException.class);
        SenseData last = SenseData.copyAborted(SenseReason.UNREACHABLE_COPY_TARGET, 0xFFFF,
                SegmentPointer.inSegment(4, 7));
        assertThat(encode(last::encodeFixed)).isEqualTo(hex("70 00 0a 00000000 0a 0000ffff 08 04 00 af0004"));
    }

    @Test
    void requestSenseWithNothingPending() {
        // REQUEST SENSE (SPC-4 §6.39) answers NO SENSE / NO ADDITIONAL SENSE INFORMATION in the format DESC asks
        SenseData none = SenseData.of(SenseReason.NO_SENSE);
        assertThat(encode(out -> none.encode(out, false))).isEqualTo(hex("70 00 00 00000000 0a 00000000 00 00 00 000000"));
        assertThat(encode(out -> none.encode(out, true))).isEqualTo(hex("72 00 00 00 00 0000 00"));
    }

    @Test
    void encodeChoosesFixedWhenDSenseIsZero() {
        SenseData data = SenseData.of(SenseReason.WRITE_PROTECTED);
        assertThat(encode(out -> data.encode(out, false))).isEqualTo(encode(data::encodeFixed)).hasSize(18);
    }

    @ParameterizedTest
    @CsvSource({
            "NO_SENSE,                              GOOD,            0x0, 0x00, 0x00",
            "INVALID_COMMAND_OPERATION_CODE,        CHECK_CONDITION, 0x5, 0x20, 0x00",
            "INVALID_FIELD_IN_CDB,                  CHECK_CONDITION, 0x5, 0x24, 0x00",
            "INVALID_FIELD_IN_PARAMETER_LIST,       CHECK_CONDITION, 0x5, 0x26, 0x00",
            "PARAMETER_VALUE_INVALID,               CHECK_CONDITION, 0x5, 0x26, 0x02",
            "PARAMETER_LIST_LENGTH_ERROR,           CHECK_CONDITION, 0x5, 0x1A, 0x00",
            "LBA_OUT_OF_RANGE,                      CHECK_CONDITION, 0x5, 0x21, 0x00",
            "LOGICAL_UNIT_NOT_SUPPORTED,            CHECK_CONDITION, 0x5, 0x25, 0x00",
            "SAVING_PARAMETERS_NOT_SUPPORTED,       CHECK_CONDITION, 0x5, 0x39, 0x00",
            "INSUFFICIENT_REGISTRATION_RESOURCES,   CHECK_CONDITION, 0x5, 0x55, 0x04",
            "WRITE_PROTECTED,                       CHECK_CONDITION, 0x7, 0x27, 0x00",
            "SPACE_ALLOCATION_FAILED_WRITE_PROTECT, CHECK_CONDITION, 0x7, 0x27, 0x07",
            "MISCOMPARE_DURING_VERIFY,              CHECK_CONDITION, 0xE, 0x1D, 0x00",
            "UNRECOVERED_READ_ERROR,                CHECK_CONDITION, 0x3, 0x11, 0x00",
            "WRITE_ERROR,                           CHECK_CONDITION, 0x3, 0x0C, 0x00",
            "POWER_ON_RESET,                        CHECK_CONDITION, 0x6, 0x29, 0x00",
            "REPORTED_LUNS_DATA_HAS_CHANGED,        CHECK_CONDITION, 0x6, 0x3F, 0x0E",
            "CAPACITY_DATA_HAS_CHANGED,             CHECK_CONDITION, 0x6, 0x2A, 0x09",
            "MODE_PARAMETERS_CHANGED,               CHECK_CONDITION, 0x6, 0x2A, 0x01",
            "LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE, CHECK_CONDITION, 0x2, 0x04, 0x00",
            "LOGICAL_UNIT_IS_IN_PROCESS_OF_BECOMING_READY, CHECK_CONDITION, 0x2, 0x04, 0x01",
            "INFORMATION_UNIT_IUCRC_ERROR_DETECTED, CHECK_CONDITION, 0xB, 0x47, 0x03",
            "INVALID_MESSAGE_ERROR,                 CHECK_CONDITION, 0xB, 0x49, 0x00",
            "DATA_PHASE_ERROR,                      CHECK_CONDITION, 0xB, 0x4B, 0x00",
            "INTERNAL_TARGET_FAILURE,               CHECK_CONDITION, 0x4, 0x44, 0x00",
            "RESERVATION_CONFLICT,                  RESERVATION_CONFLICT, 0x0, 0x00, 0x00",
    })
    void senseReasonTable(SenseReason reason, ScsiStatus status, String key, String asc, String ascq) {
        assertThat(reason.status()).isEqualTo(status);
        assertThat(reason.senseKey().code()).isEqualTo(Integer.decode(key));
        assertThat(reason.asc()).isEqualTo(Integer.decode(asc));
        assertThat(reason.ascq()).isEqualTo(Integer.decode(ascq));
    }

    @Test
    void statusCodes() {
        assertThat(ScsiStatus.CHECK_CONDITION.code()).isEqualTo(0x02);
        assertThat(ScsiStatus.RESERVATION_CONFLICT.code()).isEqualTo(0x18);
        assertThat(ScsiStatus.TASK_SET_FULL.code()).isEqualTo(0x28);
        assertThat(SenseReason.RESERVATION_CONFLICT.hasSenseData()).isFalse();
        assertThat(SenseReason.INVALID_FIELD_IN_CDB.hasSenseData()).isTrue();
        assertThat(SenseReason.NO_SENSE.hasSenseData()).isTrue();
    }

    @Test
    void fieldPointerRange() {
        assertThatThrownBy(() -> FieldPointer.cdb(0x10000, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FieldPointer.cdb(0, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThat(FieldPointer.parameter(4, 7).shifted(8)).isEqualTo(FieldPointer.parameter(12, 7));
    }
}
