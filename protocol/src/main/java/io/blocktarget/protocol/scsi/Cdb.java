package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * A parsed COMMAND DESCRIPTOR BLOCK (SPC-4 §4.2): one record per command family, or a
 * {@link CdbError}. Parsing is pure and total — it reads, never changes device state, and never
 * throws for any input — so the device server can switch over the result before any I/O:
 * <pre>{@code
 * switch (Cdb.parse(cdbBytes)) {
 *     case CdbError e -> checkCondition(e.senseData());
 *     case ReadCdb r -> read(r.lba(), r.transferLength(), r.fua());
 *     ...
 * }
 * }</pre>
 */
public sealed interface Cdb permits TestUnitReadyCdb, RequestSenseCdb, InquiryCdb, ModeSenseCdb, ModeSelectCdb,
        StartStopUnitCdb, ReadCapacity10Cdb, ReadCapacity16Cdb, GetLbaStatusCdb, ReadCdb, WriteCdb, VerifyCdb,
        WriteAndVerifyCdb, SynchronizeCacheCdb, UnmapCdb, WriteSameCdb, CompareAndWriteCdb, ReportLunsCdb,
        ReportSupportedOperationCodesCdb, PersistentReserveInCdb, PersistentReserveOutCdb, Reserve6Cdb, Release6Cdb,
        PreFetchCdb, ReadDefectDataCdb, ReportTargetPortGroupsCdb, SanitizeCdb, ExtendedCopyCdb, ReceiveCopyResultsCdb,
        WriteAtomicCdb, ReportZonesCdb, ZbcOutCdb, OrWriteCdb, PreventAllowMediumRemovalCdb, GetStreamStatusCdb,
        SetTargetPortGroupsCdb, CdbError {

    /**
     * Parses the CDB at {@code cdb}'s reader index; indices are left untouched and extra trailing
     * bytes (the iSCSI CDB field is always 16 bytes) are ignored.
     */
    static Cdb parse(ByteBuf cdb) {
        return CdbParser.parse(cdb);
    }
}
