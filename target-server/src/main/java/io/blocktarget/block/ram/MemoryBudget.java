package io.blocktarget.block.ram;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The native memory all RAM disks of a server may hold together. RAM disks are thin (DESIGN.md §1):
 * their declared sizes may add up to more than this limit; the budget is charged when a chunk is
 * allocated on first write and credited when the chunk's memory is freed, and a write that finds
 * it exhausted fails with INSUFFICIENT_RESOURCES (retryable: other disks' unmaps refill it) instead of the JVM running out of memory. Thread-safe.
 */
public final class MemoryBudget {
    /** Changed at runtime by a reload of {@code memory-budget}; charges from then on see the new limit. */
    private volatile long limit;
    private final AtomicLong used = new AtomicLong();

    public MemoryBudget(long limitBytes) {
        if (limitBytes < 0) {
            throw new IllegalArgumentException("negative memory budget " + limitBytes);
        }
        this.limit = limitBytes;
    }

    public long limit() {
        return limit;
    }

    /**
     * Sets a new limit (a reload of {@code memory-budget}). Memory already allocated stays allocated: below the
     * bytes in use, writes that need a new chunk fail until unmaps or removals free enough.
     */
    public void limit(long limitBytes) {
        if (limitBytes < 0) {
            throw new IllegalArgumentException("negative memory budget " + limitBytes);
        }
        this.limit = limitBytes;
    }

    public long used() {
        return used.get();
    }

    /** Charges {@code bytes} if they fit under the limit; false (and nothing charged) otherwise. */
    public boolean tryReserve(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative reservation " + bytes);
        }
        for (;;) {
            long current = used.get();
            if (bytes > limit - current) {
                return false;
            }
            if (used.compareAndSet(current, current + bytes)) {
                return true;
            }
        }
    }

    /** Credits bytes charged earlier by {@link #tryReserve}. */
    public void release(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative release " + bytes);
        }
        long after = used.addAndGet(-bytes);
        if (after < 0) {
            throw new IllegalStateException("memory budget released more than was reserved (" + after + ")");
        }
    }

    @Override
    public String toString() {
        return "MemoryBudget[used=" + used() + ", limit=" + limit + "]";
    }
}
