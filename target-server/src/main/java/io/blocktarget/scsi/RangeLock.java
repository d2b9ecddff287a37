package io.blocktarget.scsi;

import io.blocktarget.block.RangeLocks;

import java.util.function.Consumer;

/**
 * The SCSI face of the device's {@link RangeLocks} (which lives in the block layer beside the device, so that
 * a COMPARE AND WRITE is atomic against NVMe writes to the same LBAs too). Writes take their range shared,
 * COMPARE AND WRITE exclusive; see {@link RangeLocks} for the fairness and the fast path.
 */
final class RangeLock {

    /** A held range; release exactly once when the I/O completes. */
    interface Lease {
        void release();
    }

    private final RangeLocks locks;
    /** The SCSI view of the block layer's shared fast-path lease: built once, so a write allocates nothing here. */
    private final Lease fast;

    RangeLock(RangeLocks locks) {
        this.locks = locks;
        this.fast = locks::releaseFast;
    }

    /** A lock of its own (tests). */
    RangeLock() {
        this(new RangeLocks());
    }

    /** Shared: a write of {@code [lba, lba + count)}. */
    void acquireShared(long lba, long count, Consumer<Lease> granted) {
        if (locks.tryAcquireFast()) {
            granted.accept(fast);
            return;
        }
        locks.acquireShared(lba, count, lease -> granted.accept(lease::release));
    }

    /** Exclusive: COMPARE AND WRITE of {@code [lba, lba + count)}. */
    void acquireExclusive(long lba, long count, Consumer<Lease> granted) {
        locks.acquireExclusive(lba, count, lease -> granted.accept(lease::release));
    }

    /** Ranges held now, for tests. */
    long heldCount() {
        return locks.heldCount();
    }
}
