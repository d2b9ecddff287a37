package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.ScsiOpcode;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What one logical unit advertises (Block Limits VPD, Logical Block Provisioning VPD, REPORT
 * SUPPORTED OPERATION CODES) and enforces, derived once from its geometry. Lengths are in logical
 * blocks.
 *
 * <p>WRITE SAME is executed at every block size but advertised only up to 4096-byte blocks: Linux
 * 7.3 sd hits a kernel BUG in scsi_alloc_sgtables (via sd_setup_write_same16_cmnd) on LUNs with a
 * larger logical block size when WRITE SAME is advertised (DESIGN §4). For those LUNs RSOC reports
 * WRITE SAME(10)/(16) as not supported, MAXIMUM WRITE SAME LENGTH is 0 and LBPWS / LBPWS10 are 0,
 * which makes sd set no_write_same. UNMAP stays advertised everywhere.
 *
 * @param maximumTransferLength    8 MiB worth of blocks, at least 1 (SBC-4 §6.6.3)
 * @param optimalTransferLength    max(1 MiB, PBS) worth of blocks, at most the maximum. Not smaller: Linux 6.1
 *                                 sd sets max_sectors to it (seen in the initiator VM: one physical block
 *                                 made every request 4 KiB). mkfs ignores it while io_min = PBS.
 * @param transferGranularity      PBS / LBS, capped at 2^15 (the field is 16 bits; 512 B / 32 MiB needs 2^16)
 * @param maximumCompareAndWrite   blocks per COMPARE AND WRITE (both halves must fit one maximum transfer)
 * @param maximumWriteSameLength   blocks per WRITE SAME (1 GiB worth); enforced even when not advertised
 * @param maximumUnmapLbaCount     blocks per UNMAP command, FFFFFFFFh = no limit (SBC-4 §6.6.3)
 * @param maximumUnmapDescriptors  descriptors per UNMAP parameter list
 * @param writeSameAdvertised      LBS ≤ 4096
 */
record UnitLimits(long maximumTransferLength, long optimalTransferLength, int transferGranularity,
                  int maximumCompareAndWrite, long maximumWriteSameLength, long maximumUnmapLbaCount,
                  int maximumUnmapDescriptors, boolean writeSameAdvertised) {
    static final int MAXIMUM_TRANSFER_BYTES = 8 << 20;
    static final int OPTIMAL_TRANSFER_BYTES = 1 << 20;
    static final long WRITE_SAME_BYTES = 1L << 30;
    static final int WRITE_SAME_ADVERTISED_UP_TO = 4096;
    static final int UNMAP_DESCRIPTORS = 256;

    static UnitLimits of(BlockGeometry g) {
        int lbs = g.logicalBlockSize();
        long maxTransfer = Math.max(1, MAXIMUM_TRANSFER_BYTES / lbs);
        int granularity = Math.min(g.logicalBlocksPerPhysicalBlock(), 1 << 15);
        long optimal = Math.min(maxTransfer, Math.max(OPTIMAL_TRANSFER_BYTES, g.physicalBlockSize()) / lbs);
        int caw = (int) Math.min(255, Math.max(1, maxTransfer / 2));
        return new UnitLimits(maxTransfer, optimal, granularity, caw, WRITE_SAME_BYTES / lbs, 0xFFFF_FFFFL,
                UNMAP_DESCRIPTORS, lbs <= WRITE_SAME_ADVERTISED_UP_TO);
    }

    /** Commands REPORT SUPPORTED OPERATION CODES lists: all we execute, minus WRITE SAME when not advertised. */
    List<ScsiOpcode> supportedOpcodes() {
        Set<ScsiOpcode> ops = EnumSet.allOf(ScsiOpcode.class);
        if (!writeSameAdvertised) {
            ops.remove(ScsiOpcode.WRITE_SAME_10);
            ops.remove(ScsiOpcode.WRITE_SAME_16);
        }
        return Arrays.stream(ScsiOpcode.values()).filter(ops::contains).toList();
    }
}
