package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Optional;

import static io.blocktarget.protocol.scsi.Bytes.cdb;
import static io.blocktarget.protocol.scsi.ScsiOpcode.*;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link Cdb#parse}: every opcode, valid forms field by field, and every rejection with its field pointer. */
class CdbParserTest {

    // ---- SPC commands -------------------------------------------------------------------------

    @Test
    void testUnitReady() {
        // Linux scsi_scan / sd_spinup_disk: TEST UNIT READY is six zero bytes
        assertThat(cdb("00 00 00 00 00 00")).isEqualTo(new TestUnitReadyCdb());
    }

    @Test
    void requestSense() {
        assertThat(cdb("03 01 00 00 fc 00")).isEqualTo(new RequestSenseCdb(true, 252));
        assertThat(cdb("03 00 00 00 12 00")).isEqualTo(new RequestSenseCdb(false, 18));
    }

    @Test
    void inquiry() {
        // Linux scsi_probe_lun: standard INQUIRY, 36 bytes first
        assertThat(cdb("12 00 00 00 24 00")).isEqualTo(new InquiryCdb(false, 0, 36));
        // Linux scsi_vpd_inquiry shape: EVPD=1, page code, 16-bit allocation length
        assertThat(cdb("12 01 b0 00 40 00")).isEqualTo(new InquiryCdb(true, 0xB0, 64));
        assertThat(cdb("12 01 83 01 00 00")).isEqualTo(new InquiryCdb(true, 0x83, 256));
    }

    @Test
    void modeSense6And10() {
        // Linux sd.c sd_read_write_protect_flag, first attempt: all pages (3Fh) but only 4 bytes
        assertThat(cdb("1a 00 3f 00 04 00")).isEqualTo(
                new ModeSenseCdb(MODE_SENSE_6, false, false, PageControl.CURRENT, 0x3F, 0, 4));
        // its third attempt: 255 bytes
        assertThat(cdb("1a 00 3f 00 ff 00")).isEqualTo(
                new ModeSenseCdb(MODE_SENSE_6, false, false, PageControl.CURRENT, 0x3F, 0, 255));
        // DBD = 1, caching page
        assertThat(cdb("1a 08 08 00 20 00")).isEqualTo(
                new ModeSenseCdb(MODE_SENSE_6, true, false, PageControl.CURRENT, 0x08, 0, 32));
        // MODE SENSE(10): LLBAA, DBD, changeable values of page 0Ah subpage FFh, allocation 0x0102
        assertThat(cdb("5a 18 4a ff 00 00 00 01 02 00")).isEqualTo(
                new ModeSenseCdb(MODE_SENSE_10, true, true, PageControl.CHANGEABLE, 0x0A, 0xFF, 258));
        assertThat(cdb("5a 00 bf 00 00 00 00 00 10 00")).isEqualTo(
                new ModeSenseCdb(MODE_SENSE_10, false, false, PageControl.DEFAULT, 0x3F, 0, 16));
        assertThat(((ModeSenseCdb) cdb("5a 00 3f 00 00 00 00 00 10 00")).tenByte()).isTrue();
    }

    @Test
    void modeSelect() {
        // Linux scsi_mode_select: PF=1, SP=0
        assertThat(cdb("15 10 00 00 18 00")).isEqualTo(new ModeSelectCdb(MODE_SELECT_6, 24));
        assertThat(cdb("55 10 00 00 00 00 00 01 00 00")).isEqualTo(new ModeSelectCdb(MODE_SELECT_10, 256));
    }

    @Test
    void startStopUnit() {
        assertThat(cdb("1b 01 00 00 01 00")).isEqualTo(new StartStopUnitCdb(true, 0, 0, false, false, true));
        assertThat(cdb("1b 00 00 0f 36 00")).isEqualTo(new StartStopUnitCdb(false, 15, 3, true, true, false));
    }

    @Test
    void persistentReserveIn() {
        assertThat(cdb("5e 00 00 00 00 00 00 10 00 00"))
                .isEqualTo(new PersistentReserveInCdb(PrInServiceAction.READ_KEYS, 4096));
        assertThat(cdb("5e 03 00 00 00 00 00 00 08 00"))
                .isEqualTo(new PersistentReserveInCdb(PrInServiceAction.READ_FULL_STATUS, 8));
    }

    @Test
    void persistentReserveOut() {
        // REGISTER: scope/type ignored, parameter list length 24
        assertThat(cdb("5f 00 ff 00 00 00 00 00 18 00")).isEqualTo(
                new PersistentReserveOutCdb(PrOutServiceAction.REGISTER, Optional.empty(), 24));
        // RESERVE with LU_SCOPE, WRITE EXCLUSIVE - REGISTRANTS ONLY
        assertThat(cdb("5f 01 05 00 00 00 00 00 18 00")).isEqualTo(new PersistentReserveOutCdb(
                PrOutServiceAction.RESERVE, Optional.of(PrType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY), 24));
        assertThat(cdb("5f 05 08 00 00 ff ff ff ff 00")).isEqualTo(new PersistentReserveOutCdb(
                PrOutServiceAction.PREEMPT_AND_ABORT, Optional.of(PrType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS),
                0xFFFF_FFFFL));
    }

    @Test
    void reserveRelease6() {
        assertThat(cdb("16 00 00 00 00 00")).isEqualTo(new Reserve6Cdb());
        assertThat(cdb("17 00 00 00 00 00")).isEqualTo(new Release6Cdb());
    }

    @Test
    void reportLuns() {
        // Linux scsi_report_lun_scan: SELECT REPORT 0, allocation length (511 + 1) * 8
        assertThat(cdb("a0 00 00 00 00 00 00 00 10 00 00 00"))
                .isEqualTo(new ReportLunsCdb(SelectReport.LOGICAL_UNITS, 4096));
        assertThat(cdb("a0 00 02 00 00 00 ff ff ff ff 00 00"))
                .isEqualTo(new ReportLunsCdb(SelectReport.ALL_LOGICAL_UNITS, 0xFFFF_FFFFL));
        // SPC-3 and later: an allocation length below 16 is not an error, the data is truncated
        assertThat(cdb("a0 00 00 00 00 00 00 00 00 08 00 00"))
                .isEqualTo(new ReportLunsCdb(SelectReport.LOGICAL_UNITS, 8));
    }

    @Test
    void reportSupportedOperationCodes() {
        // Linux scsi_report_opcode(WRITE SAME(16)), drivers/scsi/scsi.c: reporting options 001b; older
        // kernels ask for the whole 512-byte sd buffer, current ones for 4 + COMMAND_SIZE(opcode) = 20
        assertThat(cdb("a3 0c 01 93 00 00 00 00 02 00 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                false, ReportingOptions.ONE_COMMAND, 0x93, 0, 512));
        assertThat(cdb("a3 0c 01 93 00 00 00 00 00 14 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                false, ReportingOptions.ONE_COMMAND, 0x93, 0, 20));
        // ... and with a service action (sa != 0): reporting options 011b, SA in bytes 4-5
        assertThat(cdb("a3 0c 03 9e 00 10 00 00 00 14 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                false, ReportingOptions.ONE_COMMAND_EITHER, 0x9E, 0x10, 20));
        assertThat(cdb("a3 0c 82 9e 00 10 00 00 01 00 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                true, ReportingOptions.ONE_COMMAND_WITH_SERVICE_ACTION, 0x9E, 0x10, 256));
        assertThat(cdb("a3 0c 00 00 00 00 00 01 00 00 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                false, ReportingOptions.ALL, 0, 0, 65536));
        assertThat(cdb("a3 0c 03 28 00 00 00 00 00 20 00 00")).isEqualTo(new ReportSupportedOperationCodesCdb(
                false, ReportingOptions.ONE_COMMAND_EITHER, 0x28, 0, 32));
    }

    // ---- SBC commands -------------------------------------------------------------------------

    @Test
    void read6TransferLengthZeroMeans256() {
        assertThat(cdb("08 1f ff ff 00 00")).isEqualTo(new ReadCdb(READ_6, 0x1FFFFF, 256, false, false));
        assertThat(cdb("08 00 00 10 01 00")).isEqualTo(new ReadCdb(READ_6, 16, 1, false, false));
        assertThat(cdb("0a 01 02 03 00 00")).isEqualTo(new WriteCdb(WRITE_6, 0x010203, 256, false, false));
        assertThat(cdb("0a 00 00 00 ff 00")).isEqualTo(new WriteCdb(WRITE_6, 0, 255, false, false));
    }

    @Test
    void read10_12_16() {
        // Linux sd_setup_rw10_cmnd: FUA in byte 1 bit 3, GROUP NUMBER 0
        assertThat(cdb("28 08 00 00 10 00 00 00 80 00")).isEqualTo(new ReadCdb(READ_10, 4096, 128, false, true));
        assertThat(cdb("28 10 ff ff ff ff 00 ff ff 00"))
                .isEqualTo(new ReadCdb(READ_10, 0xFFFF_FFFFL, 0xFFFF, true, false));
        // RARC (bit 2), obsolete bits 1-0 and GROUP NUMBER are accepted and ignored
        assertThat(cdb("28 07 00 00 00 01 3f 00 00 00")).isEqualTo(new ReadCdb(READ_10, 1, 0, false, false));
        assertThat(cdb("a8 18 00 00 00 02 ff ff ff ff 00 00"))
                .isEqualTo(new ReadCdb(READ_12, 2, 0xFFFF_FFFFL, true, true));
        assertThat(cdb("88 00 00 00 00 01 00 00 00 00 00 01 00 00 00 00"))
                .isEqualTo(new ReadCdb(READ_16, 1L << 32, 65536, false, false));
        assertThat(cdb("88 00 7f ff ff ff ff ff ff fe 00 00 00 01 00 00"))
                .isEqualTo(new ReadCdb(READ_16, Long.MAX_VALUE - 1, 1, false, false));
    }

    @Test
    void write10_12_16() {
        assertThat(cdb("2a 08 00 00 00 00 00 00 08 00")).isEqualTo(new WriteCdb(WRITE_10, 0, 8, false, true));
        assertThat(cdb("aa 10 00 00 00 10 00 00 00 20 00 00")).isEqualTo(new WriteCdb(WRITE_12, 16, 32, true, false));
        assertThat(cdb("8a 00 00 00 00 00 00 00 00 07 00 00 00 01 00 00"))
                .isEqualTo(new WriteCdb(WRITE_16, 7, 1, false, false));
    }

    /** PREVENT ALLOW MEDIUM REMOVAL (SBC-4 §5.15): PREVENT 00b / 01b; the obsolete 1xb and reserved bits refused. */
    @Test
    void preventAllowMediumRemoval() {
        assertThat(cdb("1e 00 00 00 01 00")).isEqualTo(new PreventAllowMediumRemovalCdb(true));
        assertThat(cdb("1e 00 00 00 00 00")).isEqualTo(new PreventAllowMediumRemovalCdb(false));
        assertThat(cdb("1e 00 00 00 02 00")).isEqualTo(CdbError.invalidField(4, 1));
        assertThat(cdb("1e 00 00 00 03 00")).isEqualTo(CdbError.invalidField(4, 1));
        assertThat(cdb("1e 00 00 00 04 00")).isEqualTo(CdbError.invalidField(4, 2));
        assertThat(cdb("1e 01 00 00 00 00")).isEqualTo(CdbError.invalidField(1, 0));
        assertThat(cdb("1e 00 00 00 00 01")).isEqualTo(CdbError.invalidField(5, 0));    // LINK
    }

    /** ORWRITE(16), SBC-4 §5.14: ORPROTECT refused, bit 2 reserved, obsolete bits 1-0 and GROUP NUMBER ignored. */
    @Test
    void orWrite16() {
        assertThat(cdb("8b 18 00 00 00 00 00 00 01 00 00 00 00 10 00 00"))
                .isEqualTo(new OrWriteCdb(256, 16, true, true));
        assertThat(cdb("8b 03 00 00 00 00 00 00 00 05 00 00 00 00 1f 00")).isEqualTo(new OrWriteCdb(5, 0, false, false));
        assertThat(cdb("8b 20 00 00 00 00 00 00 00 00 00 00 00 01 00 00")).isEqualTo(CdbError.invalidField(1, 7));
        assertThat(cdb("8b 04 00 00 00 00 00 00 00 00 00 00 00 01 00 00")).isEqualTo(CdbError.invalidField(1, 2));
        assertThat(cdb("8b 00 80 00 00 00 00 00 00 00 00 00 00 01 00 00"))
                .isEqualTo(new CdbError(SenseReason.LBA_OUT_OF_RANGE, Optional.empty()));
    }

    @Test
    void verifyAndWriteAndVerify() {
        assertThat(cdb("2f 00 00 00 00 05 00 00 01 00"))
                .isEqualTo(new VerifyCdb(VERIFY_10, 5, 1, false, ByteCheck.NONE));
        assertThat(cdb("2f 12 00 00 00 05 00 00 01 00"))
                .isEqualTo(new VerifyCdb(VERIFY_10, 5, 1, true, ByteCheck.COMPARE));
        assertThat(cdb("8f 06 00 00 00 00 00 00 00 09 00 00 00 04 00 00"))
                .isEqualTo(new VerifyCdb(VERIFY_16, 9, 4, false, ByteCheck.COMPARE_ONE_BLOCK));
        assertThat(cdb("2e 02 00 00 00 01 00 00 02 00"))
                .isEqualTo(new WriteAndVerifyCdb(WRITE_AND_VERIFY_10, 1, 2, false, ByteCheck.COMPARE));
        assertThat(cdb("8e 10 00 00 00 00 00 00 00 01 00 00 00 02 00 00"))
                .isEqualTo(new WriteAndVerifyCdb(WRITE_AND_VERIFY_16, 1, 2, true, ByteCheck.NONE));
    }

    /** SBC-4 §5.32 / §5.39: the 12-byte forms, LBA bytes 2-5, VERIFICATION / TRANSFER LENGTH bytes 6-9. */
    @Test
    void verify12AndWriteAndVerify12() {
        assertThat(cdb("af 12 00 00 01 00 00 01 00 00 00 00"))
                .isEqualTo(new VerifyCdb(ScsiOpcode.VERIFY_12, 256, 65536, true, ByteCheck.COMPARE));
        assertThat(cdb("af 06 ff ff ff ff ff ff ff ff 1f 00"))   // GROUP NUMBER ignored
                .isEqualTo(new VerifyCdb(ScsiOpcode.VERIFY_12, 0xFFFF_FFFFL, 0xFFFF_FFFFL, false,
                        ByteCheck.COMPARE_ONE_BLOCK));
        assertThat(cdb("af 01 00 00 00 00 00 00 00 00 00 00"))   // bit 0 obsolete
                .isEqualTo(new VerifyCdb(ScsiOpcode.VERIFY_12, 0, 0, false, ByteCheck.NONE));
        assertThat(cdb("ae 02 00 00 00 07 00 00 00 03 00 00"))
                .isEqualTo(new WriteAndVerifyCdb(ScsiOpcode.WRITE_AND_VERIFY_12, 7, 3, false, ByteCheck.COMPARE));
        assertThat(((VerifyCdb) cdb("af 00 00 00 00 00 00 00 00 01 00 00")).verificationLengthField())
                .isEqualTo(FieldPointer.cdb(6, 7));
    }

    /** SBC-4 §5.12 / §5.13: IMMED, LBA, PREFETCH LENGTH (bytes 7-8 / 10-13). */
    @Test
    void preFetch() {
        assertThat(cdb("34 02 00 00 10 00 1f 00 08 00"))       // IMMED, GROUP NUMBER ignored
                .isEqualTo(new PreFetchCdb(ScsiOpcode.PRE_FETCH_10, 4096, 8, true));
        assertThat(cdb("34 01 00 00 00 01 00 00 00 00"))       // bit 0 obsolete
                .isEqualTo(new PreFetchCdb(ScsiOpcode.PRE_FETCH_10, 1, 0, false));
        assertThat(cdb("90 00 00 00 00 01 00 00 00 00 00 01 00 00 00 00"))
                .isEqualTo(new PreFetchCdb(ScsiOpcode.PRE_FETCH_16, 1L << 32, 65536, false));
        assertThat(((PreFetchCdb) cdb("90 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00")).prefetchLengthField())
                .isEqualTo(FieldPointer.cdb(10, 7));
        assertThat(cdb("90 00 7f ff ff ff ff ff ff ff 00 00 00 02 00 00"))
                .isEqualTo(new CdbError(SenseReason.LBA_OUT_OF_RANGE, Optional.empty()));
    }

    /** SBC-4 §5.18 / §5.19: REQ_PLIST, REQ_GLIST, DEFECT LIST FORMAT, ADDRESS DESCRIPTOR INDEX, ALLOCATION LENGTH. */
    @Test
    void readDefectData() {
        // sg_reassign / sginfo -d ask READ DEFECT DATA(10) for the grown list in long block format (011b)
        assertThat(cdb("37 00 0b 00 00 00 00 00 04 00"))
                .isEqualTo(new ReadDefectDataCdb(ScsiOpcode.READ_DEFECT_DATA_10, false, true, 3, 0, 4));
        assertThat(cdb("37 00 1d 00 00 00 00 ff ff 00"))
                .isEqualTo(new ReadDefectDataCdb(ScsiOpcode.READ_DEFECT_DATA_10, true, true, 5, 0, 0xFFFF));
        assertThat(cdb("b7 10 00 00 00 02 00 01 00 00 00 00"))
                .isEqualTo(new ReadDefectDataCdb(ScsiOpcode.READ_DEFECT_DATA_12, true, false, 0, 2, 65536));
    }

    /** SPC-4 §6.4.1 / §6.18.1: sg_xcopy's EXTENDED COPY (LID1) and RECEIVE COPY RESULTS CDBs. */
    @Test
    void extendedCopyAndReceiveCopyResults() {
        assertThat(cdb("83 00 00 00 00 00 00 00 00 00 00 00 00 5c 00 00")).isEqualTo(new ExtendedCopyCdb(92));
        assertThat(cdb("84 03 00 00 00 00 00 00 00 00 00 00 01 00 00 00"))
                .isEqualTo(new ReceiveCopyResultsCdb(true, 0, 256));
        assertThat(cdb("84 00 07 00 00 00 00 00 00 00 00 00 00 0c 00 00"))
                .isEqualTo(new ReceiveCopyResultsCdb(false, 7, 12));
    }

    /** SPC-4 §6.36.1: PARAMETER DATA FORMAT 000b / 001b, ALLOCATION LENGTH bytes 6-9. */
    @Test
    void reportTargetPortGroups() {
        // Linux scsi_dh_alua submit_rtpg: MAINTENANCE IN, SA 0Ah, extended header, its buffer length
        assertThat(cdb("a3 2a 20 00 00 00 00 00 01 00 00 00")).isInstanceOf(CdbError.class); // SA bits 7-5 reserved
        assertThat(cdb("a3 0a 20 00 00 00 00 00 01 00 00 00")).isEqualTo(new ReportTargetPortGroupsCdb(true, 256));
        assertThat(cdb("a3 0a 00 00 00 00 ff ff ff ff 00 00"))
                .isEqualTo(new ReportTargetPortGroupsCdb(false, 0xFFFF_FFFFL));
    }

    /** SPC-5 §6.41: MAINTENANCE OUT, SA 0Ah, PARAMETER LIST LENGTH bytes 6-9. */
    @Test
    void setTargetPortGroups() {
        // Linux scsi_dh_alua submit_stpg: MAINTENANCE OUT, SA 0Ah, a header and one descriptor (8 bytes)
        assertThat(cdb("a4 0a 00 00 00 00 00 00 00 08 00 00")).isEqualTo(new SetTargetPortGroupsCdb(8));
        assertThat(cdb("a4 0a 00 00 00 00 ff ff ff ff 00 00")).isEqualTo(new SetTargetPortGroupsCdb(0xFFFF_FFFFL));
        assertThat(cdb("a4 2a 00 00 00 00 00 00 00 08 00 00")).as("SA bits 7-5 reserved")
                .isInstanceOf(CdbError.class);
    }

    @Test
    void synchronizeCache() {
        // Linux sd_sync_cache: SYNCHRONIZE CACHE(10), whole medium
        assertThat(cdb("35 00 00 00 00 00 00 00 00 00"))
                .isEqualTo(new SynchronizeCacheCdb(SYNCHRONIZE_CACHE_10, 0, 0, false));
        assertThat(cdb("35 07 00 00 00 10 00 00 20 00"))  // IMMED + both obsolete bits
                .isEqualTo(new SynchronizeCacheCdb(SYNCHRONIZE_CACHE_10, 16, 32, true));
        assertThat(cdb("91 02 00 00 00 00 00 00 01 00 00 00 00 08 00 00"))
                .isEqualTo(new SynchronizeCacheCdb(SYNCHRONIZE_CACHE_16, 256, 8, true));
    }

    @Test
    void writeSame() {
        // Linux sd_setup_write_same16_cmnd with UNMAP (discard mode "writesame_16")
        assertThat(cdb("93 08 00 00 00 00 00 00 10 00 00 00 08 00 00 00"))
                .isEqualTo(new WriteSameCdb(WRITE_SAME_16, 4096, 2048, true, false, false));
        assertThat(cdb("93 19 00 00 00 00 00 00 00 01 00 00 00 01 00 00"))
                .isEqualTo(new WriteSameCdb(WRITE_SAME_16, 1, 1, true, true, true));
        // Linux sd_setup_write_same10_cmnd (write zeroes, no UNMAP)
        assertThat(cdb("41 00 00 00 00 08 00 00 10 00"))
                .isEqualTo(new WriteSameCdb(WRITE_SAME_10, 8, 16, false, false, false));
        // WRITE SAME(10) bit 0 is obsolete (RELADR), never NDOB
        assertThat(cdb("41 01 00 00 00 08 00 00 10 00"))
                .isEqualTo(new WriteSameCdb(WRITE_SAME_10, 8, 16, false, false, false));
    }

    @Test
    void unmap() {
        // Linux sd_setup_unmap_cmnd: one descriptor, parameter list length 24
        assertThat(cdb("42 00 00 00 00 00 00 00 18 00")).isEqualTo(new UnmapCdb(false, 24));
        assertThat(cdb("42 01 00 00 00 00 00 00 00 00")).isEqualTo(new UnmapCdb(true, 0));
        assertThat(cdb("42 00 00 00 00 00 00 00 08 00")).isEqualTo(new UnmapCdb(false, 8));
    }

    @Test
    void compareAndWrite() {
        assertThat(cdb("89 18 00 00 00 00 00 00 00 20 00 00 00 01 00 00"))
                .isEqualTo(new CompareAndWriteCdb(32, 1, true, true));
        assertThat(cdb("89 02 00 00 00 00 00 00 00 20 00 00 00 00 00 00")) // FUA_NV obsolete
                .isEqualTo(new CompareAndWriteCdb(32, 0, false, false));
    }

    @Test
    void readCapacity() {
        assertThat(cdb("25 00 00 00 00 00 00 00 00 00")).isEqualTo(new ReadCapacity10Cdb());
        // obsolete RELADR / LBA / PMI are ignored
        assertThat(cdb("25 01 00 00 00 10 00 00 01 00")).isEqualTo(new ReadCapacity10Cdb());
        // Linux sd.c read_capacity_16: cmd[0] = 9Eh, cmd[1] = SAI_READ_CAPACITY_16, cmd[13] = RC16_LEN (32)
        assertThat(cdb("9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00")).isEqualTo(new ReadCapacity16Cdb(32));
        assertThat(cdb("9e 10 00 00 00 00 00 00 00 00 00 00 00 20 01 00")).isEqualTo(new ReadCapacity16Cdb(32));
    }

    @Test
    void getLbaStatus() {
        assertThat(cdb("9e 12 00 00 00 00 00 00 10 00 00 00 10 00 00 00"))
                .isEqualTo(new GetLbaStatusCdb(4096, 4096));
        assertThat(cdb("9e 12 00 00 00 00 00 00 00 00 00 00 00 18 03 00"))
                .isEqualTo(new GetLbaStatusCdb(0, 24));
    }

    @Test
    void extraTrailingBytesOfThe16ByteIscsiCdbFieldAreIgnored() {
        assertThat(cdb("00 00 00 00 00 00 ff ff ff ff ff ff ff ff ff ff")).isEqualTo(new TestUnitReadyCdb());
        assertThat(cdb("28 00 00 00 00 01 00 00 01 00 ee ee ee ee ee ee"))
                .isEqualTo(new ReadCdb(READ_10, 1, 1, false, false));
    }

    @Test
    void fieldPointersForExecuteTimeChecks() {
        assertThat(((ReadCdb) cdb("08 00 00 00 01 00")).transferLengthField()).isEqualTo(FieldPointer.cdb(4, 7));
        assertThat(((ReadCdb) cdb("28 00 00 00 00 00 00 00 01 00")).transferLengthField())
                .isEqualTo(FieldPointer.cdb(7, 7));
        assertThat(((WriteCdb) cdb("aa 00 00 00 00 00 00 00 00 01 00 00")).transferLengthField())
                .isEqualTo(FieldPointer.cdb(6, 7));
        assertThat(((WriteSameCdb) cdb("93 08 00 00 00 00 00 00 00 00 00 00 00 00 00 00")).numberOfBlocksField())
                .isEqualTo(FieldPointer.cdb(10, 7));
        assertThat(((VerifyCdb) cdb("2f 00 00 00 00 00 00 00 01 00")).verificationLengthField())
                .isEqualTo(FieldPointer.cdb(7, 7));
    }

    // ---- rejections ---------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} -> {1} @ byte {2} bit {3}")
    @CsvSource(delimiter = ';', textBlock = """
            # unknown / unsupported operation codes, any group
            04 00 00 00 00 00;                                  INVALID_COMMAND_OPERATION_CODE; 0; 7
            3b 00 00 00 00 00 00 00 00 00;                      INVALID_COMMAND_OPERATION_CODE; 0; 7
            7f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00;    INVALID_COMMAND_OPERATION_CODE; 0; 7
            # MAINTENANCE OUT: SET TARGET PORT GROUPS (SA 0Ah) only; reserved bytes 2-5 and 10
            a4 00 00 00 00 00 00 00 00 00 00 00;                INVALID_FIELD_IN_CDB; 1; 4
            a4 0b 00 00 00 00 00 00 00 08 00 00;                INVALID_FIELD_IN_CDB; 1; 4
            a4 0a 00 00 00 01 00 00 00 08 00 00;                INVALID_FIELD_IN_CDB; 5; 0
            a4 0a 00 00 00 00 00 00 00 08 01 00;                INVALID_FIELD_IN_CDB; 10; 0
            # EXTENDED COPY: only LID1 (SA 00h), reserved bytes; RECEIVE COPY RESULTS: SA 00h / 03h only
            83 01 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            83 00 00 00 00 00 00 00 00 01 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 9; 0
            83 00 00 00 00 00 00 00 00 00 00 00 00 20 80 00;    INVALID_FIELD_IN_CDB; 14; 7
            84 01 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            84 04 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            84 00 00 01 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 3; 0
            c0 00 00 00 00 00;                                  INVALID_COMMAND_OPERATION_CODE; 0; 7
            ff 00 00 00 00 00;                                  INVALID_COMMAND_OPERATION_CODE; 0; 7
            # CDB shorter than its group code implies
            28 00 00 00 00;                                     INVALID_FIELD_IN_CDB; 0; 7
            # CONTROL byte: NACA, then LINK
            00 00 00 00 00 04;                                  INVALID_FIELD_IN_CDB; 5; 2
            00 00 00 00 00 01;                                  INVALID_FIELD_IN_CDB; 5; 0
            28 00 00 00 00 00 00 00 01 04;                      INVALID_FIELD_IN_CDB; 9; 2
            88 00 00 00 00 00 00 00 00 00 00 00 00 01 00 05;    INVALID_FIELD_IN_CDB; 15; 2
            a0 00 00 00 00 00 00 00 10 00 00 01;                INVALID_FIELD_IN_CDB; 11; 0
            # vendor specific control bits are not ours to judge
            # TEST UNIT READY / REQUEST SENSE reserved bytes and bits
            00 00 00 01 00 00;                                  INVALID_FIELD_IN_CDB; 3; 0
            03 02 00 00 12 00;                                  INVALID_FIELD_IN_CDB; 1; 1
            03 00 80 00 12 00;                                  INVALID_FIELD_IN_CDB; 2; 7
            # INQUIRY: CMDDT, page code without EVPD, reserved bits
            12 02 00 00 24 00;                                  INVALID_FIELD_IN_CDB; 1; 1
            12 00 80 00 24 00;                                  INVALID_FIELD_IN_CDB; 2; 7
            12 20 00 00 24 00;                                  INVALID_FIELD_IN_CDB; 1; 5
            # MODE SENSE: saved values, reserved bits
            1a 00 c8 00 20 00;                                  SAVING_PARAMETERS_NOT_SUPPORTED; 2; 7
            5a 00 ff 00 00 00 00 00 20 00;                      SAVING_PARAMETERS_NOT_SUPPORTED; 2; 7
            1a 10 3f 00 20 00;                                  INVALID_FIELD_IN_CDB; 1; 4
            5a 01 3f 00 00 00 00 00 20 00;                      INVALID_FIELD_IN_CDB; 1; 0
            5a 00 3f 00 00 01 00 00 20 00;                      INVALID_FIELD_IN_CDB; 5; 0
            # MODE SELECT: PF=0, SP=1, reserved
            15 00 00 00 18 00;                                  INVALID_FIELD_IN_CDB; 1; 4
            15 11 00 00 18 00;                                  INVALID_FIELD_IN_CDB; 1; 0
            55 12 00 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 1; 1
            55 10 00 00 00 00 80 00 18 00;                      INVALID_FIELD_IN_CDB; 6; 7
            # RESERVE / RELEASE (6): third party, extent
            16 10 00 00 00 00;                                  INVALID_FIELD_IN_CDB; 1; 4
            17 01 00 00 00 00;                                  INVALID_FIELD_IN_CDB; 1; 0
            # START STOP UNIT reserved fields
            1b 02 00 00 01 00;                                  INVALID_FIELD_IN_CDB; 1; 1
            1b 00 00 10 01 00;                                  INVALID_FIELD_IN_CDB; 3; 4
            1b 00 00 00 09 00;                                  INVALID_FIELD_IN_CDB; 4; 3
            # PERSISTENT RESERVE IN/OUT: service action, scope, type, reserved
            5e 04 00 00 00 00 00 10 00 00;                      INVALID_FIELD_IN_CDB; 1; 4
            5e 20 00 00 00 00 00 10 00 00;                      INVALID_FIELD_IN_CDB; 1; 5
            5f 08 00 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 1; 4
            5f 01 13 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 2; 7
            5f 01 02 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 2; 3
            5f 04 00 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 2; 3
            5f 07 00 00 00 00 00 00 28 00;                      INVALID_FIELD_IN_CDB; 2; 3
            5f 00 00 00 01 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 4; 0
            # REPORT LUNS: SELECT REPORT, reserved
            a0 00 10 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 7
            a0 00 03 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 7
            a0 01 00 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 1; 0
            a0 00 00 00 00 00 00 00 10 00 01 00;                INVALID_FIELD_IN_CDB; 10; 0
            # MAINTENANCE IN: other service actions, reporting options, SA-ness mismatch
            a3 0b 00 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 1; 4
            # REPORT TARGET PORT GROUPS: PARAMETER DATA FORMAT 010b..111b reserved, reserved bits / bytes
            a3 0a 40 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 7
            a3 0a e0 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 7
            a3 0a 01 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 0
            a3 0a 00 00 00 01 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 5; 0
            a3 0a 00 00 00 00 00 00 10 00 80 00;                INVALID_FIELD_IN_CDB; 10; 7
            # PRE-FETCH: reserved bits of byte 1 (bit 0 obsolete in (10), reserved in (16)), CONTROL
            34 04 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 2
            34 00 00 00 00 00 00 00 01 04;                      INVALID_FIELD_IN_CDB; 9; 2
            90 01 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 0
            90 80 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 7
            # READ DEFECT DATA: reserved bits and bytes, DEFECT LIST FORMAT 111b reserved
            37 01 00 00 00 00 00 00 08 00;                      INVALID_FIELD_IN_CDB; 1; 0
            37 00 20 00 00 00 00 00 08 00;                      INVALID_FIELD_IN_CDB; 2; 5
            37 00 07 00 00 00 00 00 08 00;                      INVALID_FIELD_IN_CDB; 2; 2
            37 00 00 00 00 00 10 00 08 00;                      INVALID_FIELD_IN_CDB; 6; 4
            b7 80 00 00 00 00 00 00 00 08 00 00;                INVALID_FIELD_IN_CDB; 1; 7
            b7 1f 00 00 00 00 00 00 00 08 00 00;                INVALID_FIELD_IN_CDB; 1; 2
            b7 00 00 00 00 00 00 00 00 08 01 00;                INVALID_FIELD_IN_CDB; 10; 0
            # VERIFY(12) / WRITE AND VERIFY(12): VRPROTECT / WRPROTECT, reserved bit 3, BYTCHK 10b, 11b for WAV
            af 20 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 7
            af 08 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 3
            af 04 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 2
            ae 06 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 2
            ae 40 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 7
            a3 0c 04 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 2
            a3 0c 01 9e 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 2
            a3 0c 02 28 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 2
            a3 0c 40 00 00 00 00 00 10 00 00 00;                INVALID_FIELD_IN_CDB; 2; 6
            # READ/WRITE(6): reserved (old LUN) bits
            08 20 00 00 01 00;                                  INVALID_FIELD_IN_CDB; 1; 5
            0a 80 00 00 01 00;                                  INVALID_FIELD_IN_CDB; 1; 7
            # RDPROTECT / WRPROTECT / VRPROTECT: no protection information
            28 20 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 7
            a8 e0 00 00 00 00 00 00 00 01 00 00;                INVALID_FIELD_IN_CDB; 1; 7
            88 40 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 7
            2a 20 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 7
            8a 80 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 7
            2f 20 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 7
            2e 20 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 7
            93 20 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 7
            89 20 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 7
            # WRITE reserved bit 2
            2a 04 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 2
            # BYTCHK 10b reserved; 11b reserved for WRITE AND VERIFY; VERIFY reserved bit 3
            2f 04 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 2
            8e 06 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 2
            8f 08 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 3
            # SYNCHRONIZE CACHE reserved bits
            35 08 00 00 00 00 00 00 00 00;                      INVALID_FIELD_IN_CDB; 1; 3
            91 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00;    INVALID_FIELD_IN_CDB; 1; 0
            # WRITE SAME: ANCHOR without UNMAP, PBDATA, LBDATA
            93 10 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            41 10 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 4
            41 04 00 00 00 00 00 00 01 00;                      INVALID_FIELD_IN_CDB; 1; 2
            93 02 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 1
            # UNMAP: reserved, parameter list length 1..7
            42 02 00 00 00 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 1; 1
            42 00 00 00 01 00 00 00 18 00;                      INVALID_FIELD_IN_CDB; 4; 0
            42 00 00 00 00 00 00 00 07 00;                      PARAMETER_LIST_LENGTH_ERROR; 7; 7
            42 00 00 00 00 00 00 00 01 00;                      PARAMETER_LIST_LENGTH_ERROR; 7; 7
            # COMPARE AND WRITE: reserved bits and bytes 10-12
            89 04 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 2
            89 01 00 00 00 00 00 00 00 00 00 00 00 01 00 00;    INVALID_FIELD_IN_CDB; 1; 0
            89 00 00 00 00 00 00 00 00 00 00 01 00 01 00 00;    INVALID_FIELD_IN_CDB; 11; 0
            # SERVICE ACTION IN(16): unknown service action, reserved bits
            9e 11 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            9e 00 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 4
            9e 30 00 00 00 00 00 00 00 00 00 00 00 20 00 00;    INVALID_FIELD_IN_CDB; 1; 5
            9e 10 00 00 00 00 00 00 00 00 00 00 00 20 02 00;    INVALID_FIELD_IN_CDB; 14; 1
            9e 12 00 00 00 00 00 00 00 00 00 00 00 20 04 00;    INVALID_FIELD_IN_CDB; 14; 2
            """)
    void rejected(String hex, SenseReason reason, int field, int bit) {
        assertThat(cdb(hex)).isEqualTo(new CdbError(reason, Optional.of(FieldPointer.cdb(field, bit))));
    }

    @ParameterizedTest
    @CsvSource(textBlock = """
            88 00 80 00 00 00 00 00 00 00 00 00 00 01 00 00
            88 00 7f ff ff ff ff ff ff ff 00 00 00 01 00 00
            8a 00 ff ff ff ff ff ff ff ff 00 00 00 00 00 00
            8f 00 7f ff ff ff ff ff ff f0 00 00 00 20 00 00
            93 08 7f ff ff ff ff ff ff ff 00 00 00 02 00 00
            91 00 7f ff ff ff ff ff ff ff 00 00 00 02 00 00
            89 00 7f ff ff ff ff ff ff ff 00 00 00 02 00 00
            9e 12 80 00 00 00 00 00 00 00 00 00 00 20 00 00
            """)
    void lbaRangesBeyond2pow63AreOutOfRange(String hex) {
        assertThat(cdb(hex)).isEqualTo(new CdbError(SenseReason.LBA_OUT_OF_RANGE, Optional.empty()));
    }

    @Test
    void emptyBufferIsAnInvalidOpcodeWithoutPointer() {
        assertThat(cdb("")).isEqualTo(new CdbError(SenseReason.INVALID_COMMAND_OPERATION_CODE, Optional.empty()));
    }

    @Test
    void firstOffendingFieldWinsAndControlIsCheckedLast() {
        // RDPROTECT (byte 1) and NACA (byte 9) both wrong: byte 1 is reported
        assertThat(cdb("28 20 00 00 00 00 00 00 01 04"))
                .isEqualTo(CdbError.invalidField(1, 7));
    }

    @Test
    void cdbErrorSenseData() {
        CdbError error = (CdbError) cdb("12 00 80 00 24 00");
        assertThat(Bytes.encode(out -> error.senseData().encodeFixed(out))).isEqualTo(Bytes.hex(
                "70 00 05 00000000 0a 00000000 24 00 00 | cf 00 02")); // SKSV C/D BPV bit 7, field 2
    }
}
