package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.GetLbaStatusCdb;
import io.blocktarget.protocol.scsi.LbaStatusData;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.UnmapParameterList;
import io.blocktarget.protocol.scsi.WriteSameCdb;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Logical block provisioning (SBC-4 §4.7): UNMAP, WRITE SAME (10)/(16) and GET LBA STATUS.
 *
 * <p>WRITE SAME is supported (and so advertised) only up to 4096-byte blocks: Linux 7.3 sd crashes
 * with a kernel BUG in scsi_alloc_sgtables, via sd_setup_write_same16_cmnd, on LUNs with a larger
 * block size when WRITE SAME is advertised (DESIGN §4; the initiator VM README, "7.3 guest crash").
 * Above that the dispatcher refuses it before it gets here; see {@link UnitLimits}. UNMAP is
 * supported at every size.
 */
final class SbcProvisioning {
    /** A non-zero WRITE SAME pattern is written in pieces of this many bytes (at least one block). */
    static final int WRITE_SAME_PIECE_BYTES = 1 << 20;

    private final BlockDevice device;
    private final UnitLimits limits;
    private final RangeLock rangeLock;
    /** The LUN's state: its data placement learns what UNMAP and WRITE SAME did (ScsiStreams). */
    private final io.blocktarget.block.lun.LunState state;

    SbcProvisioning(BlockDevice device, UnitLimits limits, RangeLock rangeLock,
                    io.blocktarget.block.lun.LunState state) {
        this.device = device;
        this.limits = limits;
        this.rangeLock = rangeLock;
        this.state = state;
    }

    /**
     * UNMAP (SBC-4 §5.32): ANCHOR is refused (ANC_SUP = 0); more descriptors than MAXIMUM UNMAP BLOCK
     * DESCRIPTOR COUNT or more blocks than MAXIMUM UNMAP LBA COUNT is INVALID FIELD IN PARAMETER LIST;
     * every range is checked before any is unmapped (the backend does so).
     */
    void unmap(Task task, UnmapCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (cdb.anchor()) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(1, 0));
            return;
        }
        ByteBuf list = task.parameterList(cdb.parameterListLength(), FieldPointer.cdb(7, 7));
        if (list == null) {
            return;
        }
        Parsed<UnmapParameterList> parsed = UnmapParameterList.parse(list);
        if (parsed instanceof Parsed.Invalid<UnmapParameterList> invalid) {
            task.fail(invalid);
            return;
        }
        List<UnmapParameterList.Descriptor> descriptors = ((Parsed.Ok<UnmapParameterList>) parsed).value().descriptors();
        if (descriptors.size() > limits.maximumUnmapDescriptors()) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(2, 7));
            return;
        }
        List<BlockRange> ranges = new ArrayList<>(descriptors.size());
        long total = 0;
        long first = Long.MAX_VALUE;
        long end = 0;
        for (int i = 0; i < descriptors.size(); i++) {
            UnmapParameterList.Descriptor d = descriptors.get(i);
            total += d.numberOfBlocks();
            if (total > limits.maximumUnmapLbaCount()) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, UnmapParameterList.numberOfBlocksField(i));
                return;
            }
            if (!geometry.contains(d.lba(), d.numberOfBlocks())) {
                task.fail(SenseReason.LBA_OUT_OF_RANGE);
                return;
            }
            ranges.add(new BlockRange(d.lba(), d.numberOfBlocks()));
            first = Math.min(first, d.lba());
            end = Math.max(end, d.lba() + d.numberOfBlocks());
        }
        if (ranges.isEmpty()) {
            task.good(cdb.parameterListLength());
            return;
        }
        long transferred = cdb.parameterListLength();
        rangeLock.acquireShared(first, end - first, lease -> device.unmap(ranges, done(task, lease, transferred,
                () -> ranges.forEach(r -> ScsiStreams.deallocated(state, r.lba(), r.count())))));
    }

    /**
     * WRITE SAME (SBC-4 §5.47-5.48). WSNZ = 1, so 0 blocks is INVALID FIELD IN CDB; more than MAXIMUM
     * WRITE SAME LENGTH likewise. A block of zeros (or NDOB) becomes an unmap (UNMAP = 1) or a
     * write-zeroes (UNMAP = 0), both of which read back as zeros (LBPRZ = 1). Any other pattern is
     * written repeatedly in pieces of {@value #WRITE_SAME_PIECE_BYTES} bytes, one after the other.
     */
    void writeSame(Task task, WriteSameCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long lba = cdb.lba();
        long blocks = cdb.numberOfBlocks();
        // SBC-4 §5.47 / §5.48: UNMAP = 1 where LBPWS (16) / LBPWS10 (10) is zero is INVALID FIELD IN CDB
        boolean unmapAdvertised = cdb.opcode() == ScsiOpcode.WRITE_SAME_16 ? limits.lbpws() : limits.lbpws10();
        if (cdb.unmap() && !unmapAdvertised) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteSameCdb.UNMAP_FIELD);
            return;
        }
        // SBC-4 §5.47: ANCHOR = 1 where the Logical Block Provisioning VPD page has ANC_SUP = 0 (we anchor nothing)
        // is INVALID FIELD IN CDB — the same rule UNMAP's ANCHOR follows
        if (cdb.anchor()) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, WriteSameCdb.ANCHOR_FIELD);
            return;
        }
        if (blocks == 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, cdb.opcode().transferLengthField());
            return;
        }
        if (!Transfers.check(task, geometry, cdb.opcode(), lba, blocks, limits.maximumWriteSameLength())) {
            return;
        }
        int lbs = geometry.logicalBlockSize();
        ByteBuf block = null;
        if (!cdb.ndob()) {
            block = task.exactData(lbs);
            if (block == null) {
                return;
            }
        }
        long transferred = cdb.ndob() ? 0 : lbs;
        if (block == null || isZero(block)) {
            rangeLock.acquireShared(lba, blocks, lease -> {
                IoCallback<Void> callback = done(task, lease, transferred, cdb.unmap()
                        ? () -> ScsiStreams.deallocated(state, lba, blocks)
                        : () -> ScsiStreams.written(state, 0, lba, blocks));
                if (cdb.unmap()) {
                    device.unmap(List.of(new BlockRange(lba, blocks)), callback);
                } else {
                    device.writeZeroes(lba, blocks, callback);
                }
            });
            return;
        }
        int pieceBlocks = (int) Math.min(blocks, Math.max(1, WRITE_SAME_PIECE_BYTES / lbs));
        ByteBuf piece = Task.allocate(pieceBlocks * lbs);
        for (int i = 0; i < pieceBlocks; i++) {
            piece.writeBytes(block, block.readerIndex(), lbs);
        }
        rangeLock.acquireShared(lba, blocks, lease -> new PieceWriter(device, lba, lba + blocks, piece, (ok, failure) -> {
            piece.release();
            done(task, lease, transferred, () -> ScsiStreams.written(state, 0, lba, blocks)).complete(ok, failure);
        }).start());
    }

    /** Most LBA status descriptors one GET LBA STATUS returns (16 KiB of parameter data). */
    static final int MAXIMUM_LBA_STATUS_DESCRIPTORS = 1024;

    /**
     * GET LBA STATUS (SBC-4 §5.7): LBA status descriptors from the STARTING LOGICAL BLOCK ADDRESS on, one per run of
     * blocks the backend reports mapped or deallocated ({@link BlockDevice#provisioning}: the RAM disk by its chunks,
     * which an UNMAP covering them whole frees; other backends "mapped or unknown"), each at most 2^32 − 1 blocks, as
     * many as the ALLOCATION LENGTH holds (at least one, at most {@value #MAXIMUM_LBA_STATUS_DESCRIPTORS}) and none
     * past the end of the medium. The first descriptor starts at the starting LBA itself, so it contains it (§5.7.2)
     * whatever the allocation unit and whatever LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT says. No block is
     * anchored (ANC_SUP = 0).
     */
    void getLbaStatus(Task task, GetLbaStatusCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long lba = cdb.startingLba();
        if (lba >= geometry.blockCount()) {
            task.fail(SenseReason.LBA_OUT_OF_RANGE);
            return;
        }
        long room = (cdb.allocationLength() - LbaStatusData.HEADER_LENGTH) / LbaStatusData.DESCRIPTOR_LENGTH;
        int wanted = (int) Math.max(1, Math.min(room, MAXIMUM_LBA_STATUS_DESCRIPTORS));
        List<LbaStatusData.Descriptor> descriptors = new ArrayList<>();
        while (descriptors.size() < wanted && lba < geometry.blockCount()) {
            long max = Math.min(geometry.blockCount() - lba, 0xFFFF_FFFFL);
            io.blocktarget.block.ProvisioningRun run = device.provisioning(lba, max);
            long blocks = Math.min(run.blocks(), max);
            descriptors.add(new LbaStatusData.Descriptor(lba, blocks, run.mapped()
                    ? LbaStatusData.ProvisioningStatus.MAPPED : LbaStatusData.ProvisioningStatus.DEALLOCATED));
            lba += blocks;
        }
        ByteBuf out = Task.allocate(LbaStatusData.HEADER_LENGTH + LbaStatusData.DESCRIPTOR_LENGTH * descriptors.size());
        new LbaStatusData(descriptors).encode(out);
        task.parameterData(out, cdb.allocationLength());
    }

    private static boolean isZero(ByteBuf block) {
        int end = block.readerIndex() + block.readableBytes();
        for (int i = block.readerIndex(); i < end; i += 8) {
            if (block.getLong(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Releases the lease, then fails the task or runs {@code recorded} (the placement's count) and completes it. */
    private static IoCallback<Void> done(Task task, RangeLock.Lease lease, long transferred, Runnable recorded) {
        return (ok, failure) -> {
            lease.release();
            if (failure != null) {
                task.fail(failure);
            } else {
                recorded.run();
                task.good(transferred);
            }
        };
    }
}
