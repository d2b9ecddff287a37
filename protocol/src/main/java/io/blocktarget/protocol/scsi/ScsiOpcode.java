package io.blocktarget.protocol.scsi;

import java.util.HexFormat;
import java.util.Optional;

/**
 * The commands the device server handles, each identified by operation code and, for commands
 * with a SERVICE ACTION field, by service action (SPC-4 §4.2.5.1, §4.2.5.2).
 *
 * <p>Each constant also carries its CDB USAGE DATA (SPC-4 §6.35.3, Table 237): byte 0 is the
 * operation code, the service action sits where the CDB keeps it, every other bit is one exactly
 * when {@link Cdb#parse} evaluates it. Bits we read only to reject them count as evaluated;
 * reserved, obsolete and ignored bits (GROUP NUMBER, RARC, DLD, the SCOPE/TYPE byte of the PERSISTENT
 * RESERVE OUT service actions that ignore it) are zero. The CONTROL byte maps
 * NACA and LINK (0x05) because the parser rejects both (SAM-5 §5.2).
 */
public enum ScsiOpcode {
    TEST_UNIT_READY(0x00, -1, "00 00 00 00 00 05"),
    REQUEST_SENSE(0x03, -1, "03 01 00 00 ff 05"),
    READ_6(0x08, -1, "08 1f ff ff ff 05"),
    WRITE_6(0x0A, -1, "0a 1f ff ff ff 05"),
    INQUIRY(0x12, -1, "12 03 ff ff ff 05"),
    MODE_SELECT_6(0x15, -1, "15 11 00 00 ff 05"),
    RESERVE_6(0x16, -1, "16 11 00 00 00 05"),
    RELEASE_6(0x17, -1, "17 11 00 00 00 05"),
    MODE_SENSE_6(0x1A, -1, "1a 08 ff ff ff 05"),
    START_STOP_UNIT(0x1B, -1, "1b 01 00 0f f7 05"),
    /** PREVENT ALLOW MEDIUM REMOVAL, SBC-4 §5.15: removable logical units only. */
    PREVENT_ALLOW_MEDIUM_REMOVAL(0x1E, -1, "1e 00 00 00 03 05"),
    READ_CAPACITY_10(0x25, -1, "25 00 00 00 00 00 00 00 00 05"),
    READ_10(0x28, -1, "28 f8 ff ff ff ff 00 ff ff 05"),
    WRITE_10(0x2A, -1, "2a f8 ff ff ff ff 3f ff ff 05"),
    WRITE_AND_VERIFY_10(0x2E, -1, "2e f6 ff ff ff ff 00 ff ff 05"),
    VERIFY_10(0x2F, -1, "2f f6 ff ff ff ff 00 ff ff 05"),
    PRE_FETCH_10(0x34, -1, "34 02 ff ff ff ff 00 ff ff 05"),
    SYNCHRONIZE_CACHE_10(0x35, -1, "35 02 ff ff ff ff 00 ff ff 05"),
    READ_DEFECT_DATA_10(0x37, -1, "37 00 1f 00 00 00 00 ff ff 05"),
    WRITE_SAME_10(0x41, -1, "41 fe ff ff ff ff 00 ff ff 05"),
    UNMAP(0x42, -1, "42 01 00 00 00 00 00 ff ff 05"),
    /** SANITIZE, SBC-4 §5.30: one row per service action. */
    SANITIZE_OVERWRITE(0x48, 0x01, "48 a1 00 00 00 00 00 ff ff 05"),
    SANITIZE_BLOCK_ERASE(0x48, 0x02, "48 a2 00 00 00 00 00 ff ff 05"),
    SANITIZE_CRYPTOGRAPHIC_ERASE(0x48, 0x03, "48 a3 00 00 00 00 00 ff ff 05"),
    SANITIZE_EXIT_FAILURE_MODE(0x48, 0x1F, "48 bf 00 00 00 00 00 ff ff 05"),
    MODE_SELECT_10(0x55, -1, "55 11 00 00 00 00 00 ff ff 05"),
    MODE_SENSE_10(0x5A, -1, "5a 18 ff ff 00 00 00 ff ff 05"),
    PERSISTENT_RESERVE_IN_READ_KEYS(0x5E, 0x00, "5e 00 00 00 00 00 00 ff ff 05"),
    PERSISTENT_RESERVE_IN_READ_RESERVATION(0x5E, 0x01, "5e 01 00 00 00 00 00 ff ff 05"),
    PERSISTENT_RESERVE_IN_REPORT_CAPABILITIES(0x5E, 0x02, "5e 02 00 00 00 00 00 ff ff 05"),
    PERSISTENT_RESERVE_IN_READ_FULL_STATUS(0x5E, 0x03, "5e 03 00 00 00 00 00 ff ff 05"),
    PERSISTENT_RESERVE_OUT_REGISTER(0x5F, 0x00, "5f 00 00 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_RESERVE(0x5F, 0x01, "5f 01 ff 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_RELEASE(0x5F, 0x02, "5f 02 ff 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_CLEAR(0x5F, 0x03, "5f 03 00 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_PREEMPT(0x5F, 0x04, "5f 04 ff 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_PREEMPT_AND_ABORT(0x5F, 0x05, "5f 05 ff 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_REGISTER_AND_IGNORE_EXISTING_KEY(0x5F, 0x06, "5f 06 00 00 00 ff ff ff ff 05"),
    PERSISTENT_RESERVE_OUT_REGISTER_AND_MOVE(0x5F, 0x07, "5f 07 ff 00 00 ff ff ff ff 05"),
    /** EXTENDED COPY (LID1), SPC-4 §6.4. */
    EXTENDED_COPY_LID1(0x83, 0x00, "83 00 00 00 00 00 00 00 00 00 ff ff ff ff 00 05"),
    /** RECEIVE COPY RESULTS, SPC-4 §6.18: COPY STATUS and OPERATING PARAMETERS. */
    RECEIVE_COPY_RESULTS_COPY_STATUS(0x84, 0x00, "84 00 ff 00 00 00 00 00 00 00 ff ff ff ff 00 05"),
    RECEIVE_COPY_RESULTS_OPERATING_PARAMETERS(0x84, 0x03, "84 03 00 00 00 00 00 00 00 00 ff ff ff ff 00 05"),
    READ_16(0x88, -1, "88 f8 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    COMPARE_AND_WRITE(0x89, -1, "89 f8 ff ff ff ff ff ff ff ff 00 00 00 ff 00 05"),
    WRITE_16(0x8A, -1, "8a f8 ff ff ff ff ff ff ff ff ff ff ff ff 3f 05"),
    /** ORWRITE(16), SBC-4 §5.14: the data-out OR the medium, written back under one range lock. */
    ORWRITE_16(0x8B, -1, "8b f8 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    WRITE_AND_VERIFY_16(0x8E, -1, "8e f6 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    VERIFY_16(0x8F, -1, "8f f6 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    PRE_FETCH_16(0x90, -1, "90 02 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    SYNCHRONIZE_CACHE_16(0x91, -1, "91 02 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    WRITE_SAME_16(0x93, -1, "93 ff ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    /** WRITE ATOMIC(16), SBC-4 §5.48: listed and accepted only on logical units with atomic writes. */
    WRITE_ATOMIC_16(0x9C, -1, "9c fc ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    /** ZBC OUT, ZBC-2 §5.2-§5.6: zoned logical units only. */
    ZBC_OUT_CLOSE_ZONE(0x94, 0x01, "94 01 ff ff ff ff ff ff ff ff 00 00 ff ff 01 05"),
    ZBC_OUT_FINISH_ZONE(0x94, 0x02, "94 02 ff ff ff ff ff ff ff ff 00 00 ff ff 01 05"),
    ZBC_OUT_OPEN_ZONE(0x94, 0x03, "94 03 ff ff ff ff ff ff ff ff 00 00 ff ff 01 05"),
    ZBC_OUT_RESET_WRITE_POINTER(0x94, 0x04, "94 04 ff ff ff ff ff ff ff ff 00 00 ff ff 01 05"),
    /** ZBC IN / REPORT ZONES, ZBC-2 §5.4: zoned logical units only. */
    ZBC_IN_REPORT_ZONES(0x95, 0x00, "95 00 ff ff ff ff ff ff ff ff ff ff ff ff bf 05"),
    /** SERVICE ACTION IN(16) / READ CAPACITY(16), SBC-4 §5.20. */
    READ_CAPACITY_16(0x9E, 0x10, "9e 10 00 00 00 00 00 00 00 00 ff ff ff ff 00 05"),
    /** SERVICE ACTION IN(16) / GET LBA STATUS, SBC-4 §5.7. */
    GET_LBA_STATUS(0x9E, 0x12, "9e 12 ff ff ff ff ff ff ff ff ff ff ff ff 00 05"),
    /** SBC-5 §5.9: the streams of a logical unit with data placement (issue 32); listed only there. */
    GET_STREAM_STATUS(0x9E, 0x16, "9e 16 00 00 ff ff 00 00 00 00 ff ff ff ff 00 05"),
    REPORT_LUNS(0xA0, -1, "a0 00 ff 00 00 00 ff ff ff ff 00 05"),
    /** MAINTENANCE IN / REPORT TARGET PORT GROUPS, SPC-4 §6.36. */
    REPORT_TARGET_PORT_GROUPS(0xA3, 0x0A, "a3 0a e0 00 00 00 ff ff ff ff 00 05"),
    /** MAINTENANCE IN / REPORT SUPPORTED OPERATION CODES, SPC-4 §6.35. */
    REPORT_SUPPORTED_OPERATION_CODES(0xA3, 0x0C, "a3 0c 87 ff ff ff ff ff ff ff 00 05"),
    /** MAINTENANCE OUT / SET TARGET PORT GROUPS, SPC-5 §6.41: explicit asymmetric access (issue 29). */
    SET_TARGET_PORT_GROUPS(0xA4, 0x0A, "a4 0a 00 00 00 00 ff ff ff ff 00 05"),
    READ_12(0xA8, -1, "a8 f8 ff ff ff ff ff ff ff ff 00 05"),
    WRITE_12(0xAA, -1, "aa f8 ff ff ff ff ff ff ff ff 3f 05"),
    WRITE_AND_VERIFY_12(0xAE, -1, "ae f6 ff ff ff ff ff ff ff ff 00 05"),
    VERIFY_12(0xAF, -1, "af f6 ff ff ff ff ff ff ff ff 00 05"),
    READ_DEFECT_DATA_12(0xB7, -1, "b7 1f ff ff ff ff ff ff ff ff 00 05");

    private final int code;
    private final int serviceAction;
    private final byte[] usageData;

    ScsiOpcode(int code, int serviceAction, String usageHex) {
        this.code = code;
        this.serviceAction = serviceAction;
        this.usageData = HexFormat.ofDelimiter(" ").parseHex(usageHex);
    }

    /** OPERATION CODE, byte 0 of the CDB. */
    public int code() {
        return code;
    }

    /** SERVICE ACTION, or -1 when the operation code has none. */
    public int serviceAction() {
        return serviceAction;
    }

    public boolean hasServiceAction() {
        return serviceAction >= 0;
    }

    /** CDB length in bytes, from the group code (SPC-4 §4.2.5.1). */
    public int cdbLength() {
        return usageData.length;
    }

    /**
     * Where the TRANSFER LENGTH (or NUMBER OF LOGICAL BLOCKS) field of a READ/WRITE-shaped CDB of this
     * opcode starts, by CDB size (SBC-4 §5): the field pointer of sense data about it.
     */
    public FieldPointer transferLengthField() {
        return switch (cdbLength()) {
            case 6 -> FieldPointer.cdb(4, 7);
            case 10 -> FieldPointer.cdb(7, 7);
            case 12 -> FieldPointer.cdb(6, 7);
            default -> FieldPointer.cdb(10, 7);
        };
    }

    /** CDB USAGE DATA for REPORT SUPPORTED OPERATION CODES one-command format; a fresh copy. */
    /**
     * The CDB byte whose bits 5-0 are the GROUP NUMBER the parser reads (WRITE(10/12/16), SBC-4 §4.22), or -1. A
     * logical unit without streams leaves those bits out of its CDB usage data: it ignores them.
     */
    public int groupNumberByte() {
        return switch (this) {
            case WRITE_10 -> 6;
            case WRITE_12 -> 10;
            case WRITE_16 -> 14;
            default -> -1;
        };
    }

    public byte[] cdbUsageData() {
        return usageData.clone();
    }

    /** values() clones its array on every call; this is parsed once per CDB. */
    private static final ScsiOpcode[] VALUES = values();

    /**
     * By operation code, for the codes none of whose commands has a service action: the answer of {@link #of} for any
     * service action, ready made (null for the other codes). The device server asks once per command; a scan of
     * every constant was a visible share of an iSCSI read (issue 31).
     */
    private static final Optional<ScsiOpcode>[] PLAIN = plainTable();

    @SuppressWarnings("unchecked")
    private static Optional<ScsiOpcode>[] plainTable() {
        Optional<ScsiOpcode>[] table = new Optional[256];
        for (int code = 0; code < 256; code++) {
            Optional<ScsiOpcode> found = Optional.empty();
            boolean plain = true;
            for (ScsiOpcode op : VALUES) {
                if (op.code == code) {
                    plain &= op.serviceAction < 0;
                    if (found.isEmpty()) {
                        found = Optional.of(op);
                    }
                }
            }
            table[code] = plain ? found : null;
        }
        return table;
    }

    /** The command for an operation code and service action ({@code serviceAction} ignored when the code has none). */
    public static Optional<ScsiOpcode> of(int code, int serviceAction) {
        if (code >= 0 && code < PLAIN.length && PLAIN[code] != null) {
            return PLAIN[code];
        }
        for (ScsiOpcode op : VALUES) {
            if (op.code == code && (op.serviceAction < 0 || op.serviceAction == serviceAction)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code code} is an operation code that SPC-4 / SBC-4 define with a SERVICE ACTION field in
     * byte 1 (SPC-4 §4.2.5.2; REPORT SUPPORTED OPERATION CODES must tell these apart, §6.35.1).
     */
    public static boolean definesServiceActions(int code) {
        return switch (code & 0xFF) {
            case 0x48, 0x5E, 0x5F, 0x7F, 0x83, 0x84, 0x94, 0x95, 0x9E, 0x9F, 0xA3, 0xA4, 0xA9, 0xAB -> true;
            default -> false;
        };
    }

    /**
     * CDB length implied by the GROUP CODE, bits 7-5 of the operation code (SPC-4 §4.2.5.1, Table 4):
     * group 0 → 6, groups 1 and 2 → 10, group 4 → 16, group 5 → 12; group 3 (reserved, and 7Fh
     * variable length) and the vendor specific groups 6 and 7 have no fixed length and yield -1.
     */
    public static int cdbLengthForGroup(int code) {
        return switch ((code & 0xFF) >>> 5) {
            case 0 -> 6;
            case 1, 2 -> 10;
            case 4 -> 16;
            case 5 -> 12;
            default -> -1;
        };
    }
}
