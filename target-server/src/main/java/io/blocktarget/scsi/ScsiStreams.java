package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.protocol.scsi.BlockLimitsExtensionVpd;
import io.blocktarget.protocol.scsi.ExtendedInquiryVpd;
import io.blocktarget.protocol.scsi.GetStreamStatusCdb;
import io.blocktarget.protocol.scsi.GetStreamStatusData;
import io.blocktarget.protocol.scsi.IoAdviceHintsGroupingModePage;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * SCSI permanent streams (SBC-5 §4.32, issue 32) of a logical unit with data placement, as Linux sd reads them
 * ({@code sd_read_block_limits_ext}, {@code sd_read_io_hints}, {@code sd_is_perm_stream}, {@code sd_group_number}):
 * the Block Limits Extension VPD page (B7h, RSCS) and the Extended INQUIRY VPD page (86h, GROUP_SUP), listed in page
 * 00h; the IO Advice Hints Grouping mode page (0Ah / 05h) with ST_ENBLE in the descriptors of GROUP NUMBER
 * 0..streams-1; GET STREAM STATUS reporting stream identifiers 0..streams-1 as permanent; and each WRITE's GROUP
 * NUMBER into the LUN's media model — and the other commands that write (COMPARE AND WRITE, ORWRITE, WRITE ATOMIC,
 * WRITE SAME) on the default placement, UNMAP and WRITE SAME with UNMAP as deallocation.
 *
 * <p>{@code streams: N} are N permanent streams, stream identifier = GROUP NUMBER 0..N-1, because sd counts the
 * leading descriptors from GROUP NUMBER 0 and caps a write's lifetime hint (1 NONE .. 5 EXTREME) at that count: six
 * (the default) let all five hints through as GROUP NUMBER 1..5. GROUP NUMBER 0 is the default placement (shared with
 * NVMe handle 0); a GROUP NUMBER of N or more names no stream and uses the default placement too.
 */
final class ScsiStreams {
    private final LunState state;
    private final io.blocktarget.block.BlockDevice device;

    private ScsiStreams(LunState state, io.blocktarget.block.BlockDevice device) {
        this.state = state;
        this.device = device;
    }

    /** The streams of a unit whose state has a placement, else null (the unit has none, byte for byte as before). */
    static ScsiStreams of(LunState state, io.blocktarget.block.BlockDevice device) {
        return state.placement() == null ? null : new ScsiStreams(state, device);
    }

    /** The placement now (a resize replaces it, with the same configuration). */
    private Placement placement() {
        return state.placement();
    }

    /** Permanent streams: stream identifiers 0..streams-1. */
    int streams() {
        return placement().streams();
    }

    /**
     * B7h: RSCS; MAXIMUM NUMBER OF STREAMS; OPTIMAL STREAM WRITE SIZE the physical block (at most FFFFh blocks);
     * STREAM GRANULARITY SIZE the reclaim unit in optimal stream write sizes (the reclaim unit in blocks where the
     * physical block does not divide it).
     */
    BlockLimitsExtensionVpd blockLimitsExtension() {
        BlockGeometry geometry = device.geometry();
        long unitBlocks = placement().geometry().reclaimUnitBlocks();
        long osws = Math.min(0xFFFF, geometry.physicalBlockSize() / geometry.logicalBlockSize());
        if (unitBlocks % osws != 0) {
            osws = 1;
        }
        return new BlockLimitsExtensionVpd(true, streams(), (int) osws, unitBlocks / osws);
    }

    /**
     * 86h: GROUP_SUP (GROUP NUMBER honoured), the task attributes the task set runs (SIMPLE, ORDERED, HEAD OF QUEUE),
     * V_SUP where the device has a volatile cache, LUICLR (unit attentions are per I_T nexus).
     */
    ExtendedInquiryVpd extendedInquiry() {
        return new ExtendedInquiryVpd(0, false, false, false, false, true, false, true, true, true, false, false,
                false, device.volatileWriteCache(), true, 0);
    }

    /** 0Ah / 05h: GROUP NUMBER 0..streams-1 are streams. */
    IoAdviceHintsGroupingModePage modePage() {
        return IoAdviceHintsGroupingModePage.streams(streams());
    }

    /**
     * GET STREAM STATUS: every permanent stream from STARTING STREAM IDENTIFIER on (none when it is past the last),
     * relative lifetime 0 (not given); NUMBER OF OPEN STREAMS 0 (permanent streams are not opened). Cut to the
     * allocation length.
     */
    void getStreamStatus(Task task, GetStreamStatusCdb cdb) {
        List<GetStreamStatusData.StreamStatus> list = new ArrayList<>();
        for (int id = cdb.startingStreamIdentifier(); id < streams(); id++) {
            list.add(new GetStreamStatusData.StreamStatus(true, id, 0));
        }
        GetStreamStatusData data = new GetStreamStatusData(0, list);
        ByteBuf out = Task.allocate(data.size());
        data.encode(out);
        task.parameterData(out, (int) Math.min(cdb.allocationLength(), Integer.MAX_VALUE));
    }

    /** Completed deallocation (UNMAP, WRITE SAME with UNMAP) of {@code blocks} at {@code lba}, into the media model. */
    static void deallocated(LunState state, long lba, long blocks) {
        Placement placement = state.placement();
        if (placement != null && placement.covers(lba, blocks)) {
            placement.deallocate(lba, blocks);
        }
    }

    /** A completed write of {@code blocks} at {@code lba} with {@code groupNumber}, into the media model. */
    static void written(LunState state, int groupNumber, long lba, long blocks) {
        Placement placement = state.placement();
        if (placement != null && placement.covers(lba, blocks)) {
            placement.writeGroup(groupNumber < placement.streams() ? groupNumber : 0, lba, blocks);
        }
    }
}
