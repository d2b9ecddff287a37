package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

/**
 * The atomic write limits of one device in logical blocks, shared by both command sets through {@link LunState}, and
 * the one way either of them applies an atomic write. What the LUN file's {@code atomic:} section says, converted
 * once: SCSI advertises it in the Block Limits VPD and checks WRITE ATOMIC(16) against it (SBC-4 §4.29, §5.48),
 * NVMe advertises NAWUN / NAWUPF / NABSN / NABSPF and applies every write within it atomically (NVM Command Set
 * §2.1.4.1: a write no larger than the atomic unit that does not cross an atomic boundary).
 *
 * @param maxBlocks         largest atomic write, ≥ 1
 * @param boundaryBlocks    atomic boundary (0 = none): an atomic write may not cross a multiple of it
 * @param granularityBlocks atomic writes (SCSI) are a multiple of it, ≥ 1
 * @param alignmentBlocks   atomic writes (SCSI) start at a multiple of it, ≥ 1
 */
public record AtomicWrites(long maxBlocks, long boundaryBlocks, long granularityBlocks, long alignmentBlocks) {

    public AtomicWrites {
        if (maxBlocks < 1 || granularityBlocks < 1 || alignmentBlocks < 1 || boundaryBlocks < 0) {
            throw new IllegalArgumentException("atomic write limits " + maxBlocks + "/" + boundaryBlocks + "/"
                    + granularityBlocks + "/" + alignmentBlocks);
        }
    }

    /** Whether {@code [lba, lba + blocks)} crosses a multiple of the boundary (never without one). */
    public boolean crossesBoundary(long lba, long blocks) {
        return boundaryBlocks != 0 && blocks > 0 && lba / boundaryBlocks != (lba + blocks - 1) / boundaryBlocks;
    }

    /**
     * Whether an NVMe write of {@code blocks} at {@code lba} is one the namespace promises to apply atomically
     * (NVM Command Set §2.1.4.1: no larger than NAWUN + 1 and not crossing an NABSN boundary; NABO = 0).
     */
    public boolean covers(long lba, long blocks) {
        return blocks <= maxBlocks && !crossesBoundary(lba, blocks);
    }

    /**
     * Writes {@code data} at {@code lba} all or nothing: takes the range lock exclusively over the range rounded out
     * to the backend's {@link BlockDevice#atomicWriteGranule()} (no other write, unmap or write zeroes of those blocks
     * runs meanwhile, through either protocol), then {@link BlockDevice#writeAtomic}; the lease is released before
     * {@code done} runs. Like every range-lock grant, {@code done} may run on the thread that released a conflicting
     * range.
     */
    public static void write(RangeLocks locks, BlockDevice device, long lba, ByteBuf data, boolean fua,
                             IoCallback<Void> done) {
        long blocks = data.readableBytes() >>> device.geometry().logicalBlockShift();
        long granule = Math.max(1, device.atomicWriteGranule());
        long first = lba - lba % granule;
        long last = lba + Math.max(blocks, 1) - 1;           // the range was checked: no overflow
        long end = last - last % granule + granule;
        locks.acquireExclusive(first, end - first, lease -> device.writeAtomic(lba, data, fua, (ok, failure) -> {
            lease.release();
            done.complete(ok, failure);
        }));
    }
}
