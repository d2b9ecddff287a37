package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.CompareAndWriteCdb;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;

/**
 * COMPARE AND WRITE (SBC-4 §5.3): the data-out holds NUMBER OF LOGICAL BLOCKS of verify data then as
 * many of write data. Under an exclusive range lease (which every write on this logical unit
 * honours) the blocks are read and compared; on a match the write data is written, otherwise
 * MISCOMPARE with INFORMATION = offset of the first differing byte.
 */
final class CompareAndWrite {
    private final BlockDevice device;
    private final UnitLimits limits;
    private final RangeLock rangeLock;
    /** The LUN's state: its data placement counts the write (default placement, ScsiStreams). */
    private final io.blocktarget.block.lun.LunState state;

    CompareAndWrite(BlockDevice device, UnitLimits limits, RangeLock rangeLock,
                    io.blocktarget.block.lun.LunState state) {
        this.device = device;
        this.limits = limits;
        this.rangeLock = rangeLock;
        this.state = state;
    }

    void execute(Task task, CompareAndWriteCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long lba = cdb.lba();
        int blocks = cdb.numberOfBlocks();
        // the range first, then the limit (Transfers.check): SBC-4 §5.3.2, more than MAXIMUM COMPARE AND WRITE LENGTH
        // is INVALID FIELD IN CDB at NUMBER OF LOGICAL BLOCKS (byte 13)
        if (!Transfers.inRange(task, geometry, lba, blocks)) {
            return;
        }
        if (blocks > limits.maximumCompareAndWrite()) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(13, 7));
            return;
        }
        int half = Transfers.bytes(geometry, blocks);
        ByteBuf data = task.exactData(2L * half); // zero blocks: no data-out either
        if (data == null) {
            return;
        }
        if (blocks == 0) {
            task.good(); // SBC-4 §5.3.2: zero blocks is not an error
            return;
        }
        ByteBuf verify = data.slice(data.readerIndex(), half);
        ByteBuf write = data.slice(data.readerIndex() + half, half);
        rangeLock.acquireExclusive(lba, blocks, lease -> device.read(lba, blocks, (medium, readFailure) -> {
            if (readFailure != null) {
                lease.release();
                task.fail(readFailure);
                return;
            }
            int diff;
            try {
                diff = Transfers.firstDifference(medium, medium.readerIndex(), verify, verify.readerIndex(), half);
            } finally {
                medium.release();
            }
            if (diff >= 0) {
                lease.release();
                Transfers.miscompare(task, diff);
                return;
            }
            device.write(lba, write, cdb.fua(), (ok, writeFailure) -> {
                lease.release();
                if (writeFailure != null) {
                    task.fail(writeFailure);
                } else {
                    ScsiStreams.written(state, 0, lba, blocks);
                    task.good(2L * half);
                }
            });
        }));
    }
}
