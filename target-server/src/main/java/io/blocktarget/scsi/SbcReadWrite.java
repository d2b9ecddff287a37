package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.ByteCheck;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.netty.buffer.ByteBuf;

/**
 * READ / WRITE (6/10/12/16), VERIFY (10/16), WRITE AND VERIFY (10/16) and SYNCHRONIZE CACHE (10/16),
 * SBC-4 §5. A transfer length of 0 moves nothing and is not an error (SBC-4 §5.9), except for the
 * 6-byte CDBs where the parser already made it 256. DPO is accepted and ignored (no cache to
 * bypass); FUA reaches the backend.
 */
final class SbcReadWrite {
    private final BlockDevice device;
    private final UnitLimits limits;
    private final ModePages modePages;
    private final RangeLock rangeLock;

    SbcReadWrite(BlockDevice device, UnitLimits limits, ModePages modePages, RangeLock rangeLock) {
        this.device = device;
        this.limits = limits;
        this.modePages = modePages;
        this.rangeLock = rangeLock;
    }

    /** Data-in is the backend's buffer itself (slices of RAM chunks): no copy. */
    void read(Task task, ReadCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (!Transfers.check(task, geometry, cdb.opcode(), cdb.lba(), cdb.transferLength(), limits.maximumTransferLength())) {
            return;
        }
        int bytes = Transfers.bytes(geometry, cdb.transferLength());
        if (bytes == 0) {
            task.good();
            return;
        }
        device.read(cdb.lba(), (int) cdb.transferLength(), (data, failure) -> {
            if (failure != null) {
                task.fail(failure);
            } else {
                task.dataIn(data, bytes);
            }
        });
    }

    void write(Task task, WriteCdb cdb) {
        write(task, cdb.opcode(), cdb.lba(), cdb.transferLength(), cdb.fua(), ByteCheck.NONE);
    }

    /**
     * WRITE AND VERIFY (SBC-4 §5.38): the write, then with BYTCHK = 1 the blocks are read back and
     * compared with the data-out (MISCOMPARE with the offset if the medium did not keep them).
     */
    void writeAndVerify(Task task, WriteAndVerifyCdb cdb) {
        write(task, cdb.opcode(), cdb.lba(), cdb.transferLength(), false, cdb.byteCheck());
    }

    private void write(Task task, ScsiOpcode opcode, long lba, long blocks, boolean fua, ByteCheck verify) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (!Transfers.check(task, geometry, opcode, lba, blocks, limits.maximumTransferLength())) {
            return;
        }
        int bytes = Transfers.bytes(geometry, blocks);
        if (bytes == 0) {
            task.good();
            return;
        }
        ByteBuf data = task.blockData(bytes);
        if (data == null) {
            return;
        }
        // WCE = 0 on a device with a volatile cache: every write goes through (SBC-4 §6.5.5)
        boolean forceUnitAccess = fua || device.volatileWriteCache() && !modePages.writeCacheEnabled();
        rangeLock.acquireShared(lba, blocks, lease -> device.write(lba, data, forceUnitAccess, (ok, failure) -> {
            lease.release();
            if (failure != null) {
                task.fail(failure);
            } else if (verify == ByteCheck.COMPARE) {
                compare(task, lba, (int) blocks, data, false, bytes);
            } else {
                task.good(bytes);
            }
        }));
    }

    /**
     * VERIFY (SBC-4 §5.30): BYTCHK 0 checks the range only (the medium cannot fail a read), BYTCHK 1
     * compares every block with the data-out, BYTCHK 11b compares every block with one block of
     * data-out.
     */
    void verify(Task task, VerifyCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long blocks = cdb.verificationLength();
        // only a compare reads into memory: then the length is bounded like any transfer
        long maximum = cdb.byteCheck() == ByteCheck.NONE ? Long.MAX_VALUE : limits.maximumTransferLength();
        if (!Transfers.check(task, geometry, cdb.opcode(), cdb.lba(), blocks, maximum)) {
            return;
        }
        if (blocks == 0 || cdb.byteCheck() == ByteCheck.NONE) {
            task.good();
            return;
        }
        boolean oneBlock = cdb.byteCheck() == ByteCheck.COMPARE_ONE_BLOCK;
        int dataLength = oneBlock ? geometry.logicalBlockSize() : Transfers.bytes(geometry, blocks);
        ByteBuf expected = task.blockData(dataLength);
        if (expected != null) {
            compare(task, cdb.lba(), (int) blocks, expected, oneBlock, dataLength);
        }
    }

    private void compare(Task task, long lba, int blocks, ByteBuf expected, boolean oneBlock, int transferLength) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        device.read(lba, blocks, (medium, failure) -> {
            if (failure != null) {
                task.fail(failure);
                return;
            }
            try {
                int lbs = geometry.logicalBlockSize();
                int length = medium.readableBytes();
                for (int at = 0; at < length; at += oneBlock ? lbs : length) {
                    int span = oneBlock ? lbs : length;
                    int diff = Transfers.firstDifference(medium, medium.readerIndex() + at, expected,
                            expected.readerIndex(), span);
                    if (diff >= 0) {
                        Transfers.miscompare(task, at + diff);
                        return;
                    }
                }
                task.good(transferLength);
            } finally {
                medium.release();
            }
        });
    }

    /**
     * SYNCHRONIZE CACHE (SBC-4 §5.26-5.27): the range is checked, then the whole device is flushed
     * (the backends flush per device). IMMED is honoured by completing after the flush anyway, which
     * SBC-4 allows.
     */
    void synchronizeCache(Task task, SynchronizeCacheCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (!Transfers.check(task, geometry, cdb.opcode(), cdb.lba(), cdb.numberOfBlocks(), Long.MAX_VALUE)) {
            return;
        }
        device.flush((ok, failure) -> {
            if (failure != null) {
                task.fail(failure);
            } else {
                task.good();
            }
        });
    }
}
