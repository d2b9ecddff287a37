package io.blocktarget.scsi;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.protocol.scsi.BlockLimitsAtomicFields;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.WriteAtomicCdb;
import io.netty.buffer.ByteBuf;

import java.util.Optional;

/**
 * WRITE ATOMIC(16) (SBC-4 §5.48, atomic writes §4.29) and what the Block Limits VPD says about it (§6.6.3), from the
 * device's {@link AtomicWrites} shared with NVMe. One place per limit: the same values are advertised and enforced.
 *
 * <p>Advertised: MAXIMUM ATOMIC TRANSFER LENGTH = max, ATOMIC ALIGNMENT = alignment, ATOMIC TRANSFER LENGTH
 * GRANULARITY = granularity, and for the ATOMIC BOUNDARY form MAXIMUM ATOMIC TRANSFER LENGTH WITH ATOMIC BOUNDARY =
 * MAXIMUM ATOMIC BOUNDARY SIZE = max: a write with a non-zero ATOMIC BOUNDARY is no longer than max and is applied
 * as one atomic unit, which is at least what SBC-4 asks (each part between boundaries atomic). Linux sd
 * (sd_config_atomic) uses the boundary-less form whenever MAXIMUM ATOMIC TRANSFER LENGTH is non-zero, and enables
 * atomics only when granularity and alignment divide the unit sizes it derives (unit_min = granularity).
 *
 * <p>Checks, in this order (the CDB's fields are the parser's): LBA OUT OF RANGE (SBC-4 §4.5 — the range before the
 * atomic limits, as for every command family, so a write past the end is told so whatever its length); then, each
 * CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN CDB with the field pointer: ATOMIC BOUNDARY above MAXIMUM ATOMIC
 * BOUNDARY SIZE; TRANSFER LENGTH above MAXIMUM ATOMIC TRANSFER LENGTH (WITH ATOMIC BOUNDARY when the boundary is
 * non-zero); LBA not a multiple of ATOMIC ALIGNMENT; TRANSFER LENGTH not a multiple of ATOMIC TRANSFER LENGTH
 * GRANULARITY. A Data-Out Buffer shorter than the transfer
 * (EDTL) cannot be written all or nothing and is refused the same way at TRANSFER LENGTH, writing nothing — unlike
 * WRITE, which writes the whole blocks that arrived. DPO is accepted and ignored (no cache), FUA reaches the
 * backend, as does write-through when WCE = 0.
 */
final class SbcWriteAtomic {
    private final BlockDevice device;
    private final ModePages modePages;
    private final LunState state;

    SbcWriteAtomic(BlockDevice device, ModePages modePages, LunState state) {
        this.device = device;
        this.modePages = modePages;
        this.state = state;
    }

    /** The Block Limits atomic fields; empty (all zeros) without atomic writes. */
    static Optional<BlockLimitsAtomicFields> blockLimits(LunState state) {
        return state.atomicWrites().map(a -> new BlockLimitsAtomicFields(a.maxBlocks(), a.alignmentBlocks(),
                a.granularityBlocks(), a.maxBlocks(), a.maxBlocks()));
    }

    void execute(Task task, WriteAtomicCdb cdb) {
        Optional<AtomicWrites> configured = state.atomicWrites();
        if (configured.isEmpty()) { // RSOC does not list it then; the dispatcher refuses it before this
            task.fail(SenseReason.INVALID_COMMAND_OPERATION_CODE);
            return;
        }
        AtomicWrites a = configured.get();
        long length = cdb.transferLength();
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (!Transfers.inRange(task, geometry, cdb.lba(), length)) {
            return;
        }
        if (cdb.atomicBoundary() > a.maxBlocks()) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteAtomicCdb.ATOMIC_BOUNDARY_FIELD);
            return;
        }
        if (length > a.maxBlocks()) {   // the same max with and without ATOMIC BOUNDARY
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteAtomicCdb.TRANSFER_LENGTH_FIELD);
            return;
        }
        if (cdb.lba() % a.alignmentBlocks() != 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteAtomicCdb.LBA_FIELD);
            return;
        }
        if (length % a.granularityBlocks() != 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteAtomicCdb.TRANSFER_LENGTH_FIELD);
            return;
        }
        int bytes = Transfers.bytes(geometry, length);
        if (bytes == 0) {
            task.good();                // SBC-4 §5.48: TRANSFER LENGTH 0 is not an error
            return;
        }
        ByteBuf data = task.writeData(bytes, geometry.logicalBlockSize());
        if (data.readableBytes() != bytes) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteAtomicCdb.TRANSFER_LENGTH_FIELD);
            return;
        }
        // WCE first: no walk down the device decorators while the cache is enabled (the default)
        boolean forceUnitAccess = cdb.fua() || !modePages.writeCacheEnabled() && device.volatileWriteCache();
        AtomicWrites.write(state.rangeLocks(), device, cdb.lba(), data, forceUnitAccess, (ok, failure) -> {
            if (failure != null) {
                task.fail(failure);
            } else {
                ScsiStreams.written(state, 0, cdb.lba(), bytes / geometry.logicalBlockSize());
                task.good(bytes);
            }
        });
    }
}
