package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;

/** Checks shared by the commands that move logical blocks, and the byte compare of VERIFY / COMPARE AND WRITE. */
final class Transfers {
    private Transfers() {
    }

    /**
     * A transfer of {@code count} blocks at {@code lba}: a range past the capacity is LBA OUT OF RANGE (SBC-4 §4.5),
     * then more than {@code maximum} blocks is INVALID FIELD IN CDB at the length field (SBC-4 §6.6.3: MAXIMUM
     * TRANSFER LENGTH, MAXIMUM WRITE SAME LENGTH...). The order is the one every command family keeps (issue 28):
     * the CDB's own fields (the parser), then the LBA range, then the advertised limits — so a request that runs past
     * the end is told so whatever its length. Overflow-safe: lba and count are non-negative (the parser rejects
     * ranges beyond 2^63) and compared by subtraction. Returns false after failing the task.
     */
    static boolean check(Task task, BlockGeometry g, ScsiOpcode opcode, long lba, long count, long maximum) {
        if (!inRange(task, g, lba, count)) {
            return false;
        }
        if (count > maximum) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, opcode.transferLengthField());
            return false;
        }
        return true;
    }

    /** LBA OUT OF RANGE when {@code [lba, lba + count)} is not within the capacity; false after failing the task. */
    static boolean inRange(Task task, BlockGeometry g, long lba, long count) {
        if (!g.contains(lba, count)) {
            task.fail(SenseReason.LBA_OUT_OF_RANGE);
            return false;
        }
        return true;
    }

    /** Bytes of {@code blocks} logical blocks; callers have bounded blocks by the maximum transfer. */
    static int bytes(BlockGeometry g, long blocks) {
        return Math.toIntExact(blocks << g.logicalBlockShift());
    }

    /**
     * Offset of the first byte where {@code medium} and {@code expected} differ, or -1. The sense
     * INFORMATION field reports it (SBC-4 §5.3, §5.30: offset from the start of the Data-Out Buffer).
     */
    static int firstDifference(ByteBuf medium, int mediumIndex, ByteBuf expected, int expectedIndex, int length) {
        int i = 0;
        while (i + Long.BYTES <= length
                && medium.getLong(mediumIndex + i) == expected.getLong(expectedIndex + i)) {
            i += Long.BYTES;
        }
        for (; i < length; i++) {
            if (medium.getByte(mediumIndex + i) != expected.getByte(expectedIndex + i)) {
                return i;
            }
        }
        return -1;
    }

    /** CHECK CONDITION, MISCOMPARE, MISCOMPARE DURING VERIFY OPERATION with INFORMATION = offset. */
    static void miscompare(Task task, long offset) {
        task.fail(SenseData.of(SenseReason.MISCOMPARE_DURING_VERIFY).withInformation(offset));
    }
}
