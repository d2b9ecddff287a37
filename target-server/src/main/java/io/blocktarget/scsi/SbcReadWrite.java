package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.ByteCheck;
import io.blocktarget.protocol.scsi.OrWriteCdb;
import io.blocktarget.protocol.scsi.PreFetchCdb;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.netty.buffer.ByteBuf;

/**
 * READ / WRITE (6/10/12/16), VERIFY (10/12/16), WRITE AND VERIFY (10/12/16), SYNCHRONIZE CACHE (10/16)
 * and PRE-FETCH (10/16), SBC-4 §5. A transfer length of 0 moves nothing and is not an error (SBC-4 §5.9), except for the
 * 6-byte CDBs where the parser already made it 256. DPO is accepted and ignored (no cache to
 * bypass); FUA reaches the backend.
 */
final class SbcReadWrite {
    private final BlockDevice device;
    /**
     * The device's {@link BlockDevice#volatileWriteCache()}, fixed for its life: asked once, not through the decorator
     * chain per write (a RAM LUN reports WCE = 0, so every write asked it: 3 % of the event loop's samples).
     */
    private final boolean volatileCache;
    private final UnitLimits limits;
    private final ModePages modePages;
    private final RangeLock rangeLock;
    /** The LUN's state: its data placement, which each WRITE's GROUP NUMBER goes to (ScsiStreams). */
    private final io.blocktarget.block.lun.LunState state;

    SbcReadWrite(BlockDevice device, UnitLimits limits, ModePages modePages, RangeLock rangeLock,
                 io.blocktarget.block.lun.LunState state) {
        this.device = device;
        this.volatileCache = device.volatileWriteCache();
        this.limits = limits;
        this.modePages = modePages;
        this.rangeLock = rangeLock;
        this.state = state;
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
        write(task, cdb.opcode(), cdb.lba(), cdb.transferLength(), cdb.fua(), ByteCheck.NONE, cdb.groupNumber());
    }

    /**
     * WRITE AND VERIFY (SBC-4 §5.38): the write, then with BYTCHK = 1 the blocks are read back and
     * compared with the data-out (MISCOMPARE with the offset if the medium did not keep them).
     */
    void writeAndVerify(Task task, WriteAndVerifyCdb cdb) {
        write(task, cdb.opcode(), cdb.lba(), cdb.transferLength(), false, cdb.byteCheck(), 0);
    }

    private void write(Task task, ScsiOpcode opcode, long lba, long blocks, boolean fua, ByteCheck verify,
                       int groupNumber) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        if (!Transfers.check(task, geometry, opcode, lba, blocks, limits.maximumTransferLength())) {
            return;
        }
        int bytes = Transfers.bytes(geometry, blocks);
        if (bytes == 0) {
            task.good();
            return;
        }
        // EDTL short of the CDB: the whole blocks that arrived, the transport reports the overflow (Task.writeData)
        ByteBuf data = task.writeData(bytes, geometry.logicalBlockSize());
        long written = data.readableBytes() >> geometry.logicalBlockShift();
        if (written == 0) {
            task.good(bytes);
            return;
        }
        // WCE = 0 on a device with a volatile cache: every write goes through (SBC-4 §6.5.5)
        boolean forceUnitAccess = fua || !modePages.writeCacheEnabled() && volatileCache;
        rangeLock.acquireShared(lba, written, lease -> device.write(lba, data, forceUnitAccess, (ok, failure) -> {
            lease.release();
            if (failure == null) {
                ScsiStreams.written(state, groupNumber, lba, written);
            }
            if (failure != null) {
                task.fail(failure);
            } else if (verify == ByteCheck.COMPARE) {
                compare(task, lba, (int) written, data, false, bytes);
            } else {
                task.good(bytes);
            }
        }));
    }

    /**
     * ORWRITE(16) (SBC-4 §5.14): each block becomes the bitwise OR of the medium's data and the Data-Out Buffer's.
     * Read, OR and write run under an exclusive range lease — as COMPARE AND WRITE, so no write of either protocol
     * lands between the read and the write and none is lost. Limits as WRITE (MAXIMUM TRANSFER LENGTH); the whole
     * Data-Out Buffer is needed (INVALID FIELD IN COMMAND INFORMATION UNIT when short): half an OR is no OR, unlike a
     * WRITE, which writes the whole blocks that arrived. FUA and WCE = 0 reach the backend as for WRITE.
     */
    void orWrite(Task task, OrWriteCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long lba = cdb.lba();
        if (!Transfers.check(task, geometry, ScsiOpcode.ORWRITE_16, lba, cdb.transferLength(),
                limits.maximumTransferLength())) {
            return;
        }
        int bytes = Transfers.bytes(geometry, cdb.transferLength());
        if (bytes == 0) {
            task.good();                // SBC-4 §5.14: TRANSFER LENGTH 0 is not an error
            return;
        }
        ByteBuf data = task.blockData(bytes);
        if (data == null) {
            return;
        }
        int blocks = (int) cdb.transferLength();
        boolean forceUnitAccess = cdb.fua() || !modePages.writeCacheEnabled() && volatileCache;
        rangeLock.acquireExclusive(lba, blocks, lease -> device.read(lba, blocks, (medium, readFailure) -> {
            if (readFailure != null) {
                lease.release();
                task.fail(readFailure);
                return;
            }
            ByteBuf result = io.netty.buffer.Unpooled.directBuffer(bytes);
            try {
                int m = medium.readerIndex();
                int d = data.readerIndex();
                int i = 0;
                for (; i + Long.BYTES <= bytes; i += Long.BYTES) {
                    result.writeLong(medium.getLong(m + i) | data.getLong(d + i));
                }
                for (; i < bytes; i++) {
                    result.writeByte(medium.getByte(m + i) | data.getByte(d + i));
                }
            } finally {
                medium.release();
            }
            device.write(lba, result, forceUnitAccess, (ok, writeFailure) -> {
                lease.release();
                result.release();
                if (writeFailure != null) {
                    task.fail(writeFailure);
                } else {
                    ScsiStreams.written(state, 0, lba, blocks);
                    task.good(bytes);
                }
            });
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
        // VERIFY is one of the commands MAXIMUM TRANSFER LENGTH bounds (SBC-4 §6.6.4), with or without BYTCHK
        if (!Transfers.check(task, geometry, cdb.opcode(), cdb.lba(), blocks, limits.maximumTransferLength())) {
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

    /**
     * PRE-FETCH (SBC-4 §5.12-5.13). The blocks are read through the backend and dropped: a RAM disk holds
     * them in memory anyway, a file backend leaves them in the page cache (not with direct-io, where the
     * read proves only that they are readable). CONDITION MET says they all fit the cache; GOOD (with
     * PREFETCH LENGTH 0 = to the end of the medium) that only the first MAXIMUM PREFETCH LENGTH blocks
     * were fetched — both as SBC-4 says for a cache without room for all. An explicit PREFETCH LENGTH
     * above MAXIMUM PREFETCH LENGTH is INVALID FIELD IN CDB (SBC-4 §6.6.4). With IMMED the status goes
     * as soon as the CDB is validated and the read follows; a read error then has no command to fail.
     */
    void preFetch(Task task, PreFetchCdb cdb) {
        BlockGeometry geometry = device.geometry();   // read per command: a resize shows at once
        long lba = cdb.lba();
        long maximum = limits.maximumPrefetchLength();
        if (!Transfers.inRange(task, geometry, lba, cdb.prefetchLength())) {   // the range before the limit
            return;
        }
        if (cdb.prefetchLength() > maximum) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, cdb.prefetchLengthField());
            return;
        }
        if (lba >= geometry.blockCount()) { // PREFETCH LENGTH 0 names the blocks from lba on: there are none
            task.fail(SenseReason.LBA_OUT_OF_RANGE);
            return;
        }
        long requested = cdb.prefetchLength() == 0 ? geometry.blockCount() - lba : cdb.prefetchLength();
        int blocks = (int) Math.min(requested, maximum);
        SenseReason fitted = requested <= maximum ? SenseReason.CONDITION_MET_STATUS : SenseReason.NO_SENSE;
        if (cdb.immed() || blocks == 0) {
            finishPreFetch(task, fitted);
        }
        if (blocks == 0) {
            return;
        }
        device.read(lba, blocks, (data, failure) -> {
            if (data != null) {
                data.release();
            }
            if (!cdb.immed()) {
                if (failure != null) {
                    task.fail(failure);
                } else {
                    finishPreFetch(task, fitted);
                }
            }
        });
    }

    private static void finishPreFetch(Task task, SenseReason status) {
        if (status == SenseReason.NO_SENSE) {
            task.good();
        } else {
            task.fail(status); // CONDITION MET: a status without sense data, completed like RESERVATION CONFLICT
        }
    }
}
