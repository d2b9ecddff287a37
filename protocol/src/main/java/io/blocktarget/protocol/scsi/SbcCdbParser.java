package io.blocktarget.protocol.scsi;

import static io.blocktarget.protocol.scsi.CdbFields.invalidField;

/** The SBC-4 half of {@link CdbParser}: block commands, unified across their CDB sizes. */
final class SbcCdbParser {
    private SbcCdbParser() {
    }

    static Cdb parse(CdbFields f, int code) {
        return switch (code) {
            case 0x08 -> readWrite6(f, ScsiOpcode.READ_6);
            case 0x0A -> readWrite6(f, ScsiOpcode.WRITE_6);
            case 0x28 -> readWrite(f, ScsiOpcode.READ_10);
            case 0xA8 -> readWrite(f, ScsiOpcode.READ_12);
            case 0x88 -> readWrite(f, ScsiOpcode.READ_16);
            case 0x2A -> readWrite(f, ScsiOpcode.WRITE_10);
            case 0xAA -> readWrite(f, ScsiOpcode.WRITE_12);
            case 0x8A -> readWrite(f, ScsiOpcode.WRITE_16);
            case 0x8B -> orWrite(f);
            case 0x2F -> verify(f, ScsiOpcode.VERIFY_10);
            case 0x8F -> verify(f, ScsiOpcode.VERIFY_16);
            case 0x2E -> verify(f, ScsiOpcode.WRITE_AND_VERIFY_10);
            case 0x8E -> verify(f, ScsiOpcode.WRITE_AND_VERIFY_16);
            case 0xAF -> verify(f, ScsiOpcode.VERIFY_12);
            case 0xAE -> verify(f, ScsiOpcode.WRITE_AND_VERIFY_12);
            case 0x34 -> preFetch(f, ScsiOpcode.PRE_FETCH_10);
            case 0x90 -> preFetch(f, ScsiOpcode.PRE_FETCH_16);
            case 0x37 -> readDefectData10(f);
            case 0x48 -> sanitize(f);
            case 0xB7 -> readDefectData12(f);
            case 0x35 -> synchronizeCache(f, ScsiOpcode.SYNCHRONIZE_CACHE_10);
            case 0x91 -> synchronizeCache(f, ScsiOpcode.SYNCHRONIZE_CACHE_16);
            case 0x41 -> writeSame(f, ScsiOpcode.WRITE_SAME_10);
            case 0x93 -> writeSame(f, ScsiOpcode.WRITE_SAME_16);
            case 0x42 -> unmap(f);
            case 0x89 -> compareAndWrite(f);
            case 0x9C -> writeAtomic(f);
            case 0x25 -> new ReadCapacity10Cdb(); // LBA and PMI are obsolete in SBC-4 and ignored
            case 0x9E -> serviceActionIn16(f);
            case 0x94 -> zbcOut(f);
            case 0x95 -> zbcIn(f);
            default -> throw new CdbFields.Rejected(CdbParser.unsupportedOpcode());
        };
    }

    /** LBA of a 10/12/16-byte CDB: bytes 2-5, or 2-9 for the 16-byte form. */
    private static long lba(CdbFields f) {
        return f.length() == 16 ? f.u64(2) : f.u32(2);
    }

    /** TRANSFER LENGTH / NUMBER OF LOGICAL BLOCKS of a 10/12/16-byte CDB. */
    private static long count(CdbFields f) {
        return switch (f.length()) {
            case 10 -> f.u16(7);
            case 12 -> f.u32(6);
            default -> f.u32(10);
        };
    }

    /** SBC-4 §5.8 / §5.33: 21-bit LBA, and a TRANSFER LENGTH of 0 means 256 blocks. */
    private static Cdb readWrite6(CdbFields f, ScsiOpcode op) {
        f.reserved(1, 0xE0);
        long lba = ((long) f.bits(1, 4, 0) << 16) | f.u16(2);
        long length = f.u8(4) == 0 ? 256 : f.u8(4);
        return op == ScsiOpcode.READ_6
                ? new ReadCdb(op, lba, length, false, false)
                : new WriteCdb(op, lba, length, false, false);
    }

    /**
     * READ/WRITE(10/12/16), SBC-4 §5.9-5.12, §5.34-5.36. RDPROTECT/WRPROTECT must be zero: we never
     * report PROTECT = 1 (SBC-4 §4.22.2, Table 102 row "no protection information"). Byte 1 bit 2
     * is RARC for READ (ignored) and reserved for WRITE; bits 1-0 are obsolete.
     */
    private static Cdb readWrite(CdbFields f, ScsiOpcode op) {
        boolean read = op == ScsiOpcode.READ_10 || op == ScsiOpcode.READ_12 || op == ScsiOpcode.READ_16;
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        if (!read) {
            f.reserved(1, 0x04);
        }
        long lba = lba(f);
        long length = count(f);
        f.checkLbaRange(lba, length);
        boolean dpo = f.bit(1, 4);
        boolean fua = f.bit(1, 3);
        if (read) {
            return new ReadCdb(op, lba, length, dpo, fua);
        }
        // GROUP NUMBER, bits 5-0 of the byte before CONTROL's predecessor: 6 (10-byte), 10 (12), 14 (16)
        int groupByte = switch (op) {
            case WRITE_10 -> 6;
            case WRITE_12 -> 10;
            default -> 14;
        };
        return new WriteCdb(op, lba, length, dpo, fua, f.bits(groupByte, 5, 0));
    }

    /**
     * ORWRITE(16), SBC-4 §5.14: ORPROTECT (byte 1 bits 7-5) must be zero — no protection information, as for WRITE;
     * bit 2 is reserved, bits 1-0 obsolete (ignored); DPO, FUA; GROUP NUMBER ignored.
     */
    private static Cdb orWrite(CdbFields f) {
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        f.reserved(1, 0x04);
        long lba = f.u64(2);
        long length = f.u32(10);
        f.checkLbaRange(lba, length);
        return new OrWriteCdb(lba, length, f.bit(1, 4), f.bit(1, 3));
    }

    /**
     * VERIFY / WRITE AND VERIFY (10/12/16), SBC-4 §5.30-5.32, §5.38-5.40: VRPROTECT/WRPROTECT zero;
     * BYTCHK 10b is reserved, and 11b (compare one block against every LBA) exists for VERIFY only.
     */
    private static Cdb verify(CdbFields f, ScsiOpcode op) {
        boolean writeAndVerify = op == ScsiOpcode.WRITE_AND_VERIFY_10 || op == ScsiOpcode.WRITE_AND_VERIFY_12
                || op == ScsiOpcode.WRITE_AND_VERIFY_16;
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        f.reserved(1, 0x08);
        ByteCheck bytchk = ByteCheck.fromCode(f.bits(1, 2, 1))
                .filter(b -> !(writeAndVerify && b == ByteCheck.COMPARE_ONE_BLOCK))
                .orElseThrow(() -> invalidField(1, 2));
        long lba = lba(f);
        long length = count(f);
        f.checkLbaRange(lba, length);
        boolean dpo = f.bit(1, 4);
        return writeAndVerify
                ? new WriteAndVerifyCdb(op, lba, length, dpo, bytchk)
                : new VerifyCdb(op, lba, length, dpo, bytchk);
    }

    /**
     * PRE-FETCH (10)/(16), SBC-4 §5.12-5.13: IMMED only; bit 0 of the 10-byte CDB is obsolete (ignored),
     * of the 16-byte one reserved; GROUP NUMBER is ignored.
     */
    private static Cdb preFetch(CdbFields f, ScsiOpcode op) {
        f.reserved(1, op == ScsiOpcode.PRE_FETCH_16 ? 0xFD : 0xFC);
        long lba = lba(f);
        long length = f.length() == 16 ? f.u32(10) : f.u16(7);
        f.checkLbaRange(lba, length);
        return new PreFetchCdb(op, lba, length, f.bit(1, 1));
    }

    /**
     * SANITIZE (SBC-4 §5.30): byte 1 IMMED, ZNR, AUSE, SERVICE ACTION; bytes 2-6 reserved. ZNR (zoned no reset) has a
     * meaning for zoned block devices only, and those do not support SANITIZE here (UnitLimits): on every unit that
     * does, bit 6 is reserved and refused (SPC-5 §4.4.2).
     */
    private static Cdb sanitize(CdbFields f) {
        f.reserved(1, 0x40);
        SanitizeCdb.ServiceAction sa = SanitizeCdb.ServiceAction.fromCode(f.bits(1, 4, 0))
                .orElseThrow(() -> invalidField(1, 4));
        f.reservedBytes(2, 6);
        return new SanitizeCdb(sa, f.bit(1, 7), f.bit(1, 5), f.u16(7));
    }

    /** READ DEFECT DATA (10), SBC-4 §5.18: DEFECT LIST FORMAT 111b is reserved. */
    private static Cdb readDefectData10(CdbFields f) {
        f.reservedBytes(1, 1);
        f.reserved(2, 0xE0);
        int format = defectListFormat(f, 2);
        f.reservedBytes(3, 6);
        return new ReadDefectDataCdb(ScsiOpcode.READ_DEFECT_DATA_10, f.bit(2, 4), f.bit(2, 3), format, 0, f.u16(7));
    }

    /** READ DEFECT DATA (12), SBC-4 §5.19: ADDRESS DESCRIPTOR INDEX in bytes 2-5. */
    private static Cdb readDefectData12(CdbFields f) {
        f.reserved(1, 0xE0);
        int format = defectListFormat(f, 1);
        f.reservedBytes(10, 10);
        return new ReadDefectDataCdb(ScsiOpcode.READ_DEFECT_DATA_12, f.bit(1, 4), f.bit(1, 3), format, f.u32(2),
                f.u32(6));
    }

    private static int defectListFormat(CdbFields f, int at) {
        int format = f.bits(at, 2, 0);
        if (format == 0b111) {
            throw invalidField(at, 2);
        }
        return format;
    }

    /** SBC-4 §5.26-5.27: IMMED only; SYNC_NV (bit 2) and the 10-byte RELADR (bit 0) are obsolete. */
    private static Cdb synchronizeCache(CdbFields f, ScsiOpcode op) {
        f.reserved(1, op == ScsiOpcode.SYNCHRONIZE_CACHE_16 ? 0xF9 : 0xF8);
        long lba = lba(f);
        long blocks = count(f);
        f.checkLbaRange(lba, blocks);
        return new SynchronizeCacheCdb(op, lba, blocks, f.bit(1, 1));
    }

    /**
     * WRITE SAME (SBC-4 §5.47-5.48): WRPROTECT zero; PBDATA / LBDATA (obsolete in SBC-4, bits 2-1)
     * are not supported; ANCHOR without UNMAP is INVALID FIELD IN CDB. NDOB exists in the 16-byte
     * CDB only.
     */
    private static Cdb writeSame(CdbFields f, ScsiOpcode op) {
        boolean sixteen = op == ScsiOpcode.WRITE_SAME_16;
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        f.reserved(1, 0x06); // bit 0: NDOB in the 16-byte CDB, obsolete RELADR in the 10-byte one
        boolean anchor = f.bit(1, 4);
        boolean unmap = f.bit(1, 3);
        if (anchor && !unmap) {
            throw invalidField(1, 4);
        }
        long lba = lba(f);
        long blocks = count(f);
        f.checkLbaRange(lba, blocks);
        return new WriteSameCdb(op, lba, blocks, unmap, anchor, sixteen && f.bit(1, 0));
    }

    /** SBC-4 §5.32.1: PARAMETER LIST LENGTH 1..7 → PARAMETER LIST LENGTH ERROR (0 is no data, not an error). */
    private static Cdb unmap(CdbFields f) {
        f.reserved(1, 0xFE);
        f.reservedBytes(2, 5);
        int length = f.u16(7);
        if (length > 0 && length < UnmapParameterList.HEADER_LENGTH) {
            throw new CdbFields.Rejected(new CdbError(SenseReason.PARAMETER_LIST_LENGTH_ERROR,
                    java.util.Optional.of(FieldPointer.cdb(7, 7))));
        }
        return new UnmapCdb(f.bit(1, 0), length);
    }

    /** SBC-4 §5.3: WRPROTECT zero, bytes 10-12 reserved, NUMBER OF LOGICAL BLOCKS in byte 13. */
    private static Cdb compareAndWrite(CdbFields f) {
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        f.reserved(1, 0x05);
        long lba = f.u64(2);
        f.reservedBytes(10, 12);
        int blocks = f.u8(13);
        f.checkLbaRange(lba, blocks);
        return new CompareAndWriteCdb(lba, blocks, f.bit(1, 4), f.bit(1, 3));
    }

    /**
     * WRITE ATOMIC(16), SBC-4 §5.48: WRPROTECT zero (no protection information), DPO, FUA, LBA (2-9), ATOMIC
     * BOUNDARY (10-11), TRANSFER LENGTH (12-13, 16 bits); byte 1 bit 2 reserved, bits 1-0 obsolete (ignored as in
     * WRITE(16)); GROUP NUMBER ignored. The device server checks the atomic limits, which the parser does not know.
     */
    private static Cdb writeAtomic(CdbFields f) {
        if (f.bits(1, 7, 5) != 0) {
            throw invalidField(1, 7);
        }
        f.reserved(1, 0x04);
        long lba = f.u64(2);
        int boundary = f.u16(10);
        int length = f.u16(12);
        f.checkLbaRange(lba, length);
        return new WriteAtomicCdb(lba, boundary, length, f.bit(1, 4), f.bit(1, 3));
    }

    /** SERVICE ACTION IN(16): READ CAPACITY(16) (SBC-4 §5.20) or GET LBA STATUS (§5.7). */
    /**
     * ZBC OUT (ZBC-2 §5.2): ZONE ID bytes 2-9, ZONE COUNT bytes 12-13, ALL byte 14 bit 0. Service actions other than
     * the four ZBC-2 defines for host-managed devices (05h SEQUENTIALIZE ZONE is host-aware only) are INVALID FIELD
     * at the SERVICE ACTION.
     */
    private static Cdb zbcOut(CdbFields f) {
        f.reserved(1, 0xE0);
        int sa = f.bits(1, 4, 0);
        ZbcOutCdb.Action action = null;
        for (ZbcOutCdb.Action a : ZbcOutCdb.Action.values()) {
            if (a.serviceAction() == sa) {
                action = a;
            }
        }
        if (action == null) {
            throw invalidField(1, 4);
        }
        f.reservedBytes(10, 11);
        f.reserved(14, 0xFE);
        return new ZbcOutCdb(action, f.u64(2), f.u16(12), f.bit(14, 0));
    }

    /** ZBC IN (ZBC-2 §5.4): REPORT ZONES only; REPORTING OPTIONS ZBC-2 does not define are INVALID FIELD. */
    private static Cdb zbcIn(CdbFields f) {
        f.reserved(1, 0xE0);
        if (f.bits(1, 4, 0) != ScsiOpcode.ZBC_IN_REPORT_ZONES.serviceAction()) {
            throw invalidField(1, 4);
        }
        f.reserved(14, 0x40);
        int options = f.bits(14, 5, 0);
        if (!ReportZonesCdb.defined(options)) {
            throw invalidField(14, 5);
        }
        return new ReportZonesCdb(f.u64(2), f.u32(10), f.bit(14, 7), options);
    }

    private static Cdb serviceActionIn16(CdbFields f) {
        f.reserved(1, 0xE0);
        int sa = f.bits(1, 4, 0);
        if (sa == ScsiOpcode.READ_CAPACITY_16.serviceAction()) {
            f.reserved(14, 0xFE); // bit 0 PMI is obsolete
            return new ReadCapacity16Cdb(f.u32(10));
        }
        if (sa == ScsiOpcode.GET_STREAM_STATUS.serviceAction()) {
            f.reserved(2, 0xFF);
            f.reserved(3, 0xFF);
            for (int b = 6; b <= 9; b++) {
                f.reserved(b, 0xFF);
            }
            f.reserved(14, 0xFF);
            return new GetStreamStatusCdb(f.u16(4), f.u32(10));
        }
        if (sa == ScsiOpcode.GET_LBA_STATUS.serviceAction()) {
            long lba = f.u64(2);
            f.checkLbaRange(lba, 0);
            f.reserved(14, 0xFC); // bits 1-0: REPORT TYPE (SBC-4 r17+), accepted and ignored
            return new GetLbaStatusCdb(lba, f.u32(10));
        }
        throw invalidField(1, 4);
    }
}
