package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.protocol.scsi.CdbError;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SenseReason;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What one logical unit advertises and enforces, derived once from its geometry: the one place per
 * limit (DESIGN §10) that the Block Limits VPD (B0h), the Logical Block Provisioning VPD (B2h) and
 * REPORT SUPPORTED OPERATION CODES read to advertise and the handlers read to enforce. Lengths are
 * in logical blocks.
 *
 * <p>WRITE SAME is supported only up to 4096-byte blocks: Linux 7.3 sd hits a kernel BUG in
 * scsi_alloc_sgtables (via sd_setup_write_same16_cmnd) on LUNs with a larger logical block size when
 * WRITE SAME is advertised (DESIGN §4). For those LUNs it is not supported at all — not listed by
 * RSOC, MAXIMUM WRITE SAME LENGTH 0, LBPWS / LBPWS10 0 — and, since what is not advertised is not
 * executed, a WRITE SAME there is INVALID COMMAND OPERATION CODE like any command the device server
 * does not implement (SPC-5 §4.2.5.1 / §6.35.1; SBC-4 §4.7.3.4 requires LBPWS = 1 for WRITE SAME(16)
 * with UNMAP, and a WRITE SAME without UNMAP on such a LUN would still be a WRITE SAME RSOC denies).
 *
 * <p>Knobs ({@link DeviceKnobs}, issue 11) replace the defaults: {@code commands:} removes commands from
 * {@link #supported} (or adds WRITE SAME above 4 KiB blocks, to reproduce the 7.3 bug on purpose), {@code limits:}
 * sets the lengths. {@code commands.compare} and {@code commands.write-zeroes} have no SCSI command of their own
 * (Linux zeroes with WRITE SAME): they are NVMe-only.
 *
 * @param maximumTransferLength    8 MiB worth of blocks, at least 1 (SBC-4 §6.6.3)
 * @param optimalTransferLength    max(1 MiB, PBS) worth of blocks, at most the maximum. Not smaller: Linux 6.1
 *                                 sd sets max_sectors to it (seen in the initiator VM: one physical block
 *                                 made every request 4 KiB). mkfs ignores it while io_min = PBS.
 * @param transferGranularity      PBS / LBS, capped at 2^15 (the field is 16 bits; 512 B / 32 MiB needs 2^16);
 *                                 also the OPTIMAL UNMAP GRANULARITY (a hint: any range may be unmapped)
 * @param maximumCompareAndWrite   blocks per COMPARE AND WRITE (both halves must fit one maximum transfer)
 * @param maximumWriteSameLength   blocks per WRITE SAME (1 GiB worth); 0 where WRITE SAME is not supported
 * @param maximumUnmapLbaCount     blocks per UNMAP command, FFFFFFFFh = no limit (SBC-4 §6.6.3)
 * @param maximumUnmapDescriptors  descriptors per UNMAP parameter list
 * @param maximumPrefetchLength    blocks per PRE-FETCH: one maximum transfer (the backend reads them)
 * @param lbpws                    WRITE SAME(16) with UNMAP = 1 (B2h LBPWS)
 * @param lbpws10                  WRITE SAME(10) with UNMAP = 1 (B2h LBPWS10)
 * @param supported                the commands RSOC lists and the dispatcher accepts
 * @param optimalUnmapGranularity  B0h OPTIMAL UNMAP GRANULARITY (a hint; Linux discard_granularity)
 * @param unmapGranularityAlignment B0h UNMAP GRANULARITY ALIGNMENT, sent with UGAVALID = 1
 * @param lbpu                     B2h LBPU: UNMAP is supported
 * @param dpoFua                   DPOFUA of the mode parameter header (SBC-4 §6.5.1): Linux sends FUA writes
 * @param thirdPartyCopy           3PC of the standard INQUIRY data: EXTENDED COPY is supported
 * @param mediumRotationRate       B1h MEDIUM ROTATION RATE: 1 = non-rotating, else rpm (Linux queue/rotational)
 * @param writeCache               the default WCE of the caching mode page; empty = the backend's cache decides
 */
record UnitLimits(long maximumTransferLength, long optimalTransferLength, int transferGranularity,
                  int maximumCompareAndWrite, long maximumWriteSameLength, long maximumUnmapLbaCount,
                  int maximumUnmapDescriptors, long maximumPrefetchLength, boolean lbpws, boolean lbpws10,
                  Set<ScsiOpcode> supported, long optimalUnmapGranularity, long unmapGranularityAlignment,
                  boolean lbpu, boolean dpoFua, boolean thirdPartyCopy, int mediumRotationRate,
                  java.util.Optional<Boolean> writeCache) {
    /** A typical rotational disk's rate for {@code rotational: true}: any value above 1 makes Linux say rotational. */
    static final int ROTATIONAL_RPM = 7200;

    static final int MAXIMUM_TRANSFER_BYTES = 8 << 20;
    static final int OPTIMAL_TRANSFER_BYTES = 1 << 20;
    static final long WRITE_SAME_BYTES = 1L << 30;
    static final int WRITE_SAME_SUPPORTED_UP_TO = 4096;
    static final int UNMAP_DESCRIPTORS = 256;
    /**
     * EXTENDED COPY (LID1) limits, the same for every logical unit: 16 CSCDs, 16 segments (32 + 28 bytes
     * each fit the 1 KiB descriptor lists), segments of at most one maximum transfer's worth of bytes.
     */
    static final io.blocktarget.protocol.scsi.ExtendedCopyParameters.Limits COPY_LIMITS =
            new io.blocktarget.protocol.scsi.ExtendedCopyParameters.Limits(16, 16, 1024, MAXIMUM_TRANSFER_BYTES);

    UnitLimits {
        supported = Collections.unmodifiableSet(supported.isEmpty()
                ? EnumSet.noneOf(ScsiOpcode.class) : EnumSet.copyOf(supported));
    }

    /** The ZBC IN / ZBC OUT commands, supported on zoned logical units only. */
    static final Set<ScsiOpcode> ZBC = EnumSet.of(ScsiOpcode.ZBC_IN_REPORT_ZONES, ScsiOpcode.ZBC_OUT_CLOSE_ZONE,
            ScsiOpcode.ZBC_OUT_FINISH_ZONE, ScsiOpcode.ZBC_OUT_OPEN_ZONE, ScsiOpcode.ZBC_OUT_RESET_WRITE_POINTER);
    /**
     * What a host-managed zoned unit does not support (ZBC-2 §4.1: no logical block provisioning — LBPME = 0 — so no
     * UNMAP, GET LBA STATUS or WRITE SAME with UNMAP; SANITIZE would have to reset every zone, which it does not;
     * ORWRITE reads and rewrites blocks in place, which a sequential write required zone forbids).
     */
    static final Set<ScsiOpcode> NOT_ZONED = EnumSet.of(ScsiOpcode.UNMAP, ScsiOpcode.GET_LBA_STATUS, ScsiOpcode.ORWRITE_16,
            ScsiOpcode.SANITIZE_OVERWRITE, ScsiOpcode.SANITIZE_BLOCK_ERASE, ScsiOpcode.SANITIZE_CRYPTOGRAPHIC_ERASE,
            ScsiOpcode.SANITIZE_EXIT_FAILURE_MODE);

    /** The limits before knobs existed, with today's unmap, FUA, copy, rotation and cache defaults. */
    UnitLimits(long maximumTransferLength, long optimalTransferLength, int transferGranularity,
               int maximumCompareAndWrite, long maximumWriteSameLength, long maximumUnmapLbaCount,
               int maximumUnmapDescriptors, long maximumPrefetchLength, boolean lbpws, boolean lbpws10,
               Set<ScsiOpcode> supported) {
        this(maximumTransferLength, optimalTransferLength, transferGranularity, maximumCompareAndWrite,
                maximumWriteSameLength, maximumUnmapLbaCount, maximumUnmapDescriptors, maximumPrefetchLength, lbpws,
                lbpws10, supported, transferGranularity, 0, true, true, true,
                io.blocktarget.protocol.scsi.BlockDeviceCharacteristicsVpd.NON_ROTATING, java.util.Optional.empty());
    }

    static UnitLimits of(BlockGeometry g) {
        return of(g, DeviceKnobs.DEFAULTS, false);
    }

    /** With {@code zoned}: the ZBC commands in, provisioning and SANITIZE out (see {@link #NOT_ZONED}). */
    static UnitLimits of(BlockGeometry g, boolean zoned) {
        return of(g, DeviceKnobs.DEFAULTS, zoned);
    }

    static UnitLimits of(BlockGeometry g, DeviceKnobs knobs) {
        return of(g, knobs, false);
    }

    /**
     * The one derivation: geometry defaults, then what the LUN's knobs say (validated by the config module); a zoned
     * unit adds the ZBC commands and has no provisioning ({@link #NOT_ZONED}) whatever the knobs say.
     */
    static UnitLimits of(BlockGeometry g, DeviceKnobs knobs, boolean zoned) {
        int lbs = g.logicalBlockSize();
        long maxTransfer = knobs.limit(Limit.MAX_TRANSFER).map(b -> b / lbs)
                .orElse((long) Math.max(1, MAXIMUM_TRANSFER_BYTES / lbs));
        int granularity = knobs.limit(Limit.OPTIMAL_TRANSFER_GRANULARITY).map(b -> (int) (b / lbs))
                .orElse(Math.min(g.logicalBlocksPerPhysicalBlock(), 1 << 15));
        long optimal = knobs.limit(Limit.OPTIMAL_TRANSFER).map(b -> b / lbs)
                .orElse(Math.min(maxTransfer, Math.max(OPTIMAL_TRANSFER_BYTES, g.physicalBlockSize()) / lbs));
        int caw = (int) Math.min(255, Math.max(1, maxTransfer / 2));
        boolean writeSame = knobs.command(Command.WRITE_SAME, lbs <= WRITE_SAME_SUPPORTED_UP_TO);
        boolean unmap = knobs.command(Command.UNMAP, true);
        boolean copy = knobs.command(Command.COPY, true);
        Set<ScsiOpcode> ops = EnumSet.allOf(ScsiOpcode.class);
        ops.remove(ScsiOpcode.WRITE_ATOMIC_16); // only with atomic writes: withAtomicWrites()
        ops.remove(ScsiOpcode.GET_STREAM_STATUS); // only with data placement: withStreams()
        if (!knobs.removable().orElse(false)) {
            ops.remove(ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL); // removable: true only (RemovableMedium)
        }
        if (!writeSame) {
            ops.remove(ScsiOpcode.WRITE_SAME_10);
            ops.remove(ScsiOpcode.WRITE_SAME_16);
        }
        if (!unmap) {
            ops.remove(ScsiOpcode.UNMAP);
        }
        if (!knobs.command(Command.COMPARE_AND_WRITE, true)) {
            ops.remove(ScsiOpcode.COMPARE_AND_WRITE);
        }
        if (!knobs.command(Command.VERIFY, true)) {
            ops.removeAll(EnumSet.of(ScsiOpcode.VERIFY_10, ScsiOpcode.VERIFY_12, ScsiOpcode.VERIFY_16));
        }
        if (!knobs.command(Command.SET_TARGET_PORT_GROUPS, false)) {
            ops.remove(ScsiOpcode.SET_TARGET_PORT_GROUPS);   // implicit ALUA only (InquiryHandler: TPGS 01b)
        }
        if (!knobs.command(Command.GET_LBA_STATUS, true)) {
            ops.remove(ScsiOpcode.GET_LBA_STATUS);
        }
        if (!copy) {
            ops.removeAll(EnumSet.of(ScsiOpcode.EXTENDED_COPY_LID1, ScsiOpcode.RECEIVE_COPY_RESULTS_COPY_STATUS,
                    ScsiOpcode.RECEIVE_COPY_RESULTS_OPERATING_PARAMETERS));
        }
        ops.removeAll(zoned ? NOT_ZONED : ZBC);
        boolean provisioning = unmap && !zoned;
        long writeSameLength = !writeSame ? 0
                : knobs.limit(Limit.MAX_WRITE_SAME).map(b -> b / lbs).orElse(Math.max(1, WRITE_SAME_BYTES / lbs));
        long unmapGranularity = knobs.limit(Limit.UNMAP_GRANULARITY).map(b -> b / lbs)
                .orElse((long) Math.min(g.logicalBlocksPerPhysicalBlock(), 1 << 15));
        int rotation = knobs.rotational().orElse(false) ? ROTATIONAL_RPM
                : io.blocktarget.protocol.scsi.BlockDeviceCharacteristicsVpd.NON_ROTATING;
        return new UnitLimits(maxTransfer, optimal, granularity, caw, writeSameLength,
                zoned ? 0 : knobs.limit(Limit.MAX_UNMAP).map(b -> b / lbs).orElse(0xFFFF_FFFFL),
                zoned ? 0 : knobs.limit(Limit.MAX_UNMAP_DESCRIPTORS).map(Long::intValue).orElse(UNMAP_DESCRIPTORS),
                maxTransfer, writeSame && provisioning, writeSame && provisioning, ops, unmapGranularity,
                knobs.limit(Limit.UNMAP_ALIGNMENT).map(b -> b / lbs).orElse(0L), provisioning,
                knobs.command(Command.FUA, true), copy, rotation, knobs.command(Command.WRITE_CACHE));
    }

    /** These limits with WRITE ATOMIC(16) supported: a logical unit whose device has atomic writes (SbcWriteAtomic). */
    UnitLimits withAtomicWrites() {
        Set<ScsiOpcode> ops = EnumSet.copyOf(supported);
        ops.add(ScsiOpcode.WRITE_ATOMIC_16);
        return new UnitLimits(maximumTransferLength, optimalTransferLength, transferGranularity, maximumCompareAndWrite,
                maximumWriteSameLength, maximumUnmapLbaCount, maximumUnmapDescriptors, maximumPrefetchLength, lbpws,
                lbpws10, ops, optimalUnmapGranularity, unmapGranularityAlignment, lbpu, dpoFua, thirdPartyCopy,
                mediumRotationRate, writeCache);
    }

    /** These limits with GET STREAM STATUS supported: a logical unit with data placement (ScsiStreams). */
    UnitLimits withStreams() {
        Set<ScsiOpcode> ops = EnumSet.copyOf(supported);
        ops.add(ScsiOpcode.GET_STREAM_STATUS);
        return new UnitLimits(maximumTransferLength, optimalTransferLength, transferGranularity, maximumCompareAndWrite,
                maximumWriteSameLength, maximumUnmapLbaCount, maximumUnmapDescriptors, maximumPrefetchLength, lbpws,
                lbpws10, ops, optimalUnmapGranularity, unmapGranularityAlignment, lbpu, dpoFua, thirdPartyCopy,
                mediumRotationRate, writeCache);
    }

    /** Commands REPORT SUPPORTED OPERATION CODES lists, in operation code order. */
    List<ScsiOpcode> supportedOpcodes() {
        return Arrays.stream(ScsiOpcode.values()).filter(supported::contains).toList();
    }

    boolean supports(ScsiOpcode opcode) {
        return supported.contains(opcode);
    }

    /**
     * The refusal of a command this logical unit does not list in RSOC, checked before the CDB is
     * parsed (an unsupported command has no fields to check): INVALID COMMAND OPERATION CODE for an
     * operation code, INVALID FIELD IN CDB at the SERVICE ACTION field for a service action of an
     * operation code that has others (SPC-5 §4.2.5.2). Empty when supported or unknown to
     * {@link ScsiOpcode} (the parser refuses those itself).
     */
    Optional<CdbError> refusal(int code, int serviceAction) {
        if (ScsiOpcode.definesServiceActions(code)) {
            if (supported.stream().noneMatch(s -> s.code() == code)) {
                // no service action of it is supported (ZBC IN / OUT on a unit that is not zoned): the operation
                // code itself is unsupported (SPC-5 §4.2.5.1)
                boolean known = Arrays.stream(ScsiOpcode.values()).anyMatch(o -> o.code() == code);
                return known ? Optional.of(new CdbError(SenseReason.INVALID_COMMAND_OPERATION_CODE,
                        Optional.of(FieldPointer.cdb(0, 7)))) : Optional.empty();
            }
            Optional<ScsiOpcode> op = ScsiOpcode.of(code, serviceAction);
            if (op.isPresent() && !supports(op.get())) {
                return Optional.of(new CdbError(SenseReason.INVALID_FIELD_IN_CDB, Optional.of(FieldPointer.cdb(1, 4))));
            }
            return Optional.empty();
        }
        Optional<ScsiOpcode> op = ScsiOpcode.of(code, -1);
        if (op.isPresent() && !supports(op.get())) {
            return Optional.of(new CdbError(SenseReason.INVALID_COMMAND_OPERATION_CODE,
                    Optional.of(FieldPointer.cdb(0, 7))));
        }
        return Optional.empty();
    }
}
