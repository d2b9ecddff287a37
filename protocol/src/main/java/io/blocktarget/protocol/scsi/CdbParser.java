package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.Optional;

import static io.blocktarget.protocol.scsi.CdbFields.invalidField;

/**
 * {@link Cdb#parse}: operation code → CDB length by group (SPC-4 §4.2.5.1) → service action →
 * fields in byte order → CONTROL byte. The first offending field wins. Checks reject what the spec
 * says to reject and the reserved bits of the bytes we read (SPC-4 §4.4.2 lets a recipient check
 * them); obsolete bits are ignored because old initiators still set them.
 */
final class CdbParser {
    private CdbParser() {
    }

    static Cdb parse(ByteBuf buf) {
        if (!buf.isReadable()) {
            return new CdbError(SenseReason.INVALID_COMMAND_OPERATION_CODE, Optional.empty());
        }
        int code = buf.getUnsignedByte(buf.readerIndex());
        int length = ScsiOpcode.cdbLengthForGroup(code);
        if (length < 0 || ScsiOpcode.of(code, -1).isEmpty() && !ScsiOpcode.definesServiceActions(code)) {
            return unsupportedOpcode();
        }
        if (buf.readableBytes() < length) {
            // the transport handed over fewer bytes than the group code implies
            return new CdbError(SenseReason.INVALID_FIELD_IN_CDB, Optional.of(FieldPointer.cdb(0, 7)));
        }
        CdbFields f = new CdbFields(buf, buf.readerIndex(), length);
        try {
            Cdb cdb = switch (code) {
                case 0x00 -> testUnitReady(f);
                case 0x03 -> requestSense(f);
                case 0x12 -> inquiry(f);
                case 0x15, 0x55 -> modeSelect(f, code == 0x55 ? ScsiOpcode.MODE_SELECT_10 : ScsiOpcode.MODE_SELECT_6);
                case 0x1A, 0x5A -> modeSense(f, code == 0x5A ? ScsiOpcode.MODE_SENSE_10 : ScsiOpcode.MODE_SENSE_6);
                case 0x16 -> reserve6(f, new Reserve6Cdb());
                case 0x17 -> reserve6(f, new Release6Cdb());
                case 0x1B -> startStopUnit(f);
                case 0x1E -> preventAllowMediumRemoval(f);
                case 0x5E -> persistentReserveIn(f);
                case 0x5F -> persistentReserveOut(f);
                case 0xA0 -> reportLuns(f);
                case 0xA3 -> maintenanceIn(f);
                case 0xA4 -> maintenanceOut(f);
                case 0x83 -> extendedCopy(f);
                case 0x84 -> receiveCopyResults(f);
                default -> SbcCdbParser.parse(f, code);
            };
            f.checkControl();
            return cdb;
        } catch (CdbFields.Rejected r) {
            return r.error;
        }
    }

    static CdbError unsupportedOpcode() {
        return new CdbError(SenseReason.INVALID_COMMAND_OPERATION_CODE, Optional.of(FieldPointer.cdb(0, 7)));
    }

    private static Cdb testUnitReady(CdbFields f) {
        f.reservedBytes(1, 4);
        return new TestUnitReadyCdb();
    }

    private static Cdb requestSense(CdbFields f) {
        f.reserved(1, 0xFE);
        f.reservedBytes(2, 3);
        return new RequestSenseCdb(f.bit(1, 0), f.u8(4));
    }

    /** SPC-4 §6.6.1: PAGE CODE must be zero when EVPD is zero; CMDDT (obsolete, SPC-2) is not supported. */
    private static Cdb inquiry(CdbFields f) {
        f.reserved(1, 0xFC);
        if (f.bit(1, 1)) {
            throw invalidField(1, 1);
        }
        boolean evpd = f.bit(1, 0);
        if (!evpd && f.u8(2) != 0) {
            throw invalidField(2, 7);
        }
        return new InquiryCdb(evpd, f.u8(2), f.u16(3));
    }

    /**
     * SPC-4 §6.9.1: PF = 0 would mean vendor specific page format, which we do not speak; SP = 1
     * asks to save pages we cannot save (INVALID FIELD IN CDB).
     */
    private static Cdb modeSelect(CdbFields f, ScsiOpcode opcode) {
        f.reserved(1, 0xEE);
        if (!f.bit(1, 4)) {
            throw invalidField(1, 4);
        }
        if (f.bit(1, 0)) {
            throw invalidField(1, 0);
        }
        if (opcode == ScsiOpcode.MODE_SELECT_6) {
            f.reservedBytes(2, 3);
            return new ModeSelectCdb(opcode, f.u8(4));
        }
        f.reservedBytes(2, 6);
        return new ModeSelectCdb(opcode, f.u16(7));
    }

    /** SPC-4 §6.11.1: PC = 11b (saved values) → SAVING PARAMETERS NOT SUPPORTED; LLBAA only in the 10-byte CDB. */
    private static Cdb modeSense(CdbFields f, ScsiOpcode opcode) {
        boolean ten = opcode == ScsiOpcode.MODE_SENSE_10;
        f.reserved(1, ten ? 0xE7 : 0xF7);
        PageControl pc = PageControl.fromCode(f.bits(2, 7, 6)).orElseThrow();
        if (pc == PageControl.SAVED) {
            throw new CdbFields.Rejected(new CdbError(SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED,
                    Optional.of(FieldPointer.cdb(2, 7))));
        }
        int allocation;
        if (ten) {
            f.reservedBytes(4, 6);
            allocation = f.u16(7);
        } else {
            allocation = f.u8(4);
        }
        return new ModeSenseCdb(opcode, f.bit(1, 3), ten && f.bit(1, 4), pc, f.bits(2, 5, 0), f.u8(3), allocation);
    }

    /** SPC-2 §7.21: third-party (3RDPTY) and extent (obsolete) reservations are not supported. */
    private static Cdb reserve6(CdbFields f, Cdb cdb) {
        if (f.bit(1, 4)) {
            throw invalidField(1, 4);
        }
        if (f.bit(1, 0)) {
            throw invalidField(1, 0);
        }
        return cdb;
    }

    private static Cdb startStopUnit(CdbFields f) {
        f.reserved(1, 0xFE);
        f.reservedBytes(2, 2);
        f.reserved(3, 0xF0);
        f.reserved(4, 0x08);
        return new StartStopUnitCdb(f.bit(1, 0), f.bits(3, 3, 0), f.bits(4, 7, 4), f.bit(4, 2), f.bit(4, 1),
                f.bit(4, 0));
    }

    /** SBC-4 §5.15: bytes 1-3 reserved; byte 4 bits 7-2 reserved, PREVENT 10b / 11b obsolete values, refused. */
    private static Cdb preventAllowMediumRemoval(CdbFields f) {
        f.reservedBytes(1, 3);
        f.reserved(4, 0xFC);
        if (f.bit(4, 1)) {
            throw invalidField(4, 1);
        }
        return new PreventAllowMediumRemovalCdb(f.bit(4, 0));
    }

    private static Cdb persistentReserveIn(CdbFields f) {
        f.reserved(1, 0xE0);
        PrInServiceAction sa = PrInServiceAction.fromCode(f.bits(1, 4, 0)).orElseThrow(() -> invalidField(1, 4));
        f.reservedBytes(2, 6);
        return new PersistentReserveInCdb(sa, f.u16(7));
    }

    /**
     * SPC-4 §6.16.1: SCOPE must be LU_SCOPE (0h) and TYPE a defined type for the service actions
     * that use them (RESERVE, RELEASE, PREEMPT, PREEMPT AND ABORT, REGISTER AND MOVE); REGISTER,
     * REGISTER AND IGNORE EXISTING KEY and CLEAR ignore both fields.
     */
    private static Cdb persistentReserveOut(CdbFields f) {
        f.reserved(1, 0xE0);
        PrOutServiceAction sa = PrOutServiceAction.fromCode(f.bits(1, 4, 0)).orElseThrow(() -> invalidField(1, 4));
        Optional<PrType> type = Optional.empty();
        if (sa == PrOutServiceAction.RESERVE || sa == PrOutServiceAction.RELEASE
                || sa == PrOutServiceAction.PREEMPT || sa == PrOutServiceAction.PREEMPT_AND_ABORT
                || sa == PrOutServiceAction.REGISTER_AND_MOVE) {
            if (f.bits(2, 7, 4) != 0) {
                throw invalidField(2, 7);
            }
            type = Optional.of(PrType.fromCode(f.bits(2, 3, 0)).orElseThrow(() -> invalidField(2, 3)));
        }
        f.reservedBytes(3, 4);
        return new PersistentReserveOutCdb(sa, type, f.u32(5));
    }

    /** EXTENDED COPY (SPC-4 §6.4.1): service action 00h (LID1) only; bytes 2-9 and 14 reserved. */
    private static Cdb extendedCopy(CdbFields f) {
        f.reserved(1, 0xE0);
        if (f.bits(1, 4, 0) != ScsiOpcode.EXTENDED_COPY_LID1.serviceAction()) {
            throw invalidField(1, 4);
        }
        f.reservedBytes(2, 9);
        f.reservedBytes(14, 14);
        return new ExtendedCopyCdb(f.u32(10));
    }

    /** RECEIVE COPY RESULTS (SPC-4 §6.18.1): COPY STATUS (00h) or OPERATING PARAMETERS (03h). */
    private static Cdb receiveCopyResults(CdbFields f) {
        f.reserved(1, 0xE0);
        int sa = f.bits(1, 4, 0);
        if (sa != ScsiOpcode.RECEIVE_COPY_RESULTS_COPY_STATUS.serviceAction()
                && sa != ScsiOpcode.RECEIVE_COPY_RESULTS_OPERATING_PARAMETERS.serviceAction()) {
            throw invalidField(1, 4);
        }
        f.reservedBytes(3, 9);
        f.reservedBytes(14, 14);
        boolean operating = sa == ScsiOpcode.RECEIVE_COPY_RESULTS_OPERATING_PARAMETERS.serviceAction();
        return new ReceiveCopyResultsCdb(operating, operating ? 0 : f.u8(2), f.u32(10));
    }

    /** SPC-4 §6.33: SELECT REPORT 00h..02h; the SPC-5 administrative selections are not supported. */
    private static Cdb reportLuns(CdbFields f) {
        f.reservedBytes(1, 1);
        SelectReport select = SelectReport.fromCode(f.u8(2)).orElseThrow(() -> invalidField(2, 7));
        f.reservedBytes(3, 5);
        f.reservedBytes(10, 10);
        return new ReportLunsCdb(select, f.u32(6));
    }

    /**
     * REPORT TARGET PORT GROUPS (SPC-4 §6.36.1): PARAMETER DATA FORMAT 000b or 001b, others are
     * reserved (INVALID FIELD IN CDB).
     */
    private static Cdb reportTargetPortGroups(CdbFields f) {
        f.reserved(2, 0x1F);
        int format = f.bits(2, 7, 5);
        if (format > 1) {
            throw invalidField(2, 7);
        }
        f.reservedBytes(3, 5);
        f.reservedBytes(10, 10);
        return new ReportTargetPortGroupsCdb(format == 1, f.u32(6));
    }

    /**
     * MAINTENANCE IN: REPORT TARGET PORT GROUPS or REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35.1). Reporting options 001b
     * for an operation code with service actions, or 010b for one without, are INVALID FIELD IN CDB.
     */
    private static Cdb maintenanceIn(CdbFields f) {
        f.reserved(1, 0xE0);
        if (f.bits(1, 4, 0) == ScsiOpcode.REPORT_TARGET_PORT_GROUPS.serviceAction()) {
            return reportTargetPortGroups(f);
        }
        if (f.bits(1, 4, 0) != ScsiOpcode.REPORT_SUPPORTED_OPERATION_CODES.serviceAction()) {
            throw invalidField(1, 4);
        }
        f.reserved(2, 0x78);
        ReportingOptions options = ReportingOptions.fromCode(f.bits(2, 2, 0)).orElseThrow(() -> invalidField(2, 2));
        int requested = f.u8(3);
        boolean hasSa = ScsiOpcode.definesServiceActions(requested);
        if (options == ReportingOptions.ONE_COMMAND && hasSa
                || options == ReportingOptions.ONE_COMMAND_WITH_SERVICE_ACTION && !hasSa) {
            throw invalidField(2, 2);
        }
        f.reservedBytes(10, 10);
        return new ReportSupportedOperationCodesCdb(f.bit(2, 7), options, requested, f.u16(4), f.u32(6));
    }

    /**
     * MAINTENANCE OUT: SET TARGET PORT GROUPS (SPC-5 §6.41) is its only service action served; any other is INVALID
     * FIELD IN CDB at the SERVICE ACTION field.
     */
    private static Cdb maintenanceOut(CdbFields f) {
        f.reserved(1, 0xE0);
        if (f.bits(1, 4, 0) != ScsiOpcode.SET_TARGET_PORT_GROUPS.serviceAction()) {
            throw invalidField(1, 4);
        }
        f.reservedBytes(2, 5);
        f.reservedBytes(10, 10);
        return new SetTargetPortGroupsCdb(f.u32(6));
    }
}
