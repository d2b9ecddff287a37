package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What every backend shares: its name, geometry and read-only flag, and its lifecycle (open, then
 * closed for good), with the failures the lifecycle and read-only give.
 */
public abstract class AbstractBlockDevice implements BlockDevice {
    /** Lifecycle of a device; it never reopens. */
    protected enum State { OPEN, CLOSED }

    private final String name;
    /** Replaced by {@link #resize}; read once per command (a volatile read: a plain load on x86). */
    private volatile BlockGeometry geometry;
    private final boolean readOnly;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    protected AbstractBlockDevice(String name, BlockGeometry geometry, boolean readOnly) {
        this.name = Objects.requireNonNull(name, "name");
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        this.readOnly = readOnly;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final BlockGeometry geometry() {
        return geometry;
    }

    @Override
    public final boolean readOnly() {
        return readOnly;
    }

    /**
     * Publishes a new block count. Backends call it from {@link #resize} once the medium can hold the new size
     * (growing) or before they release what lies past the new end (shrinking).
     */
    protected final void publishBlockCount(long blockCount) {
        BlockGeometry g = geometry;
        geometry = new BlockGeometry(g.logicalBlockSize(), g.physicalBlockSize(), blockCount);
    }

    /** The failure of a resize to {@code newBlockCount} that no geometry could have, else null. */
    protected final BlockIoException checkResize(long newBlockCount) {
        BlockGeometry g = geometry;
        if (newBlockCount <= 0 || newBlockCount > Long.MAX_VALUE / g.logicalBlockSize()) {
            return new BlockIoException(BlockError.INVALID_LENGTH, name + ": cannot resize to " + newBlockCount + " blocks");
        }
        return checkOpen();
    }

    protected final State state() {
        return state.get();
    }

    /** Moves to CLOSED; true for the one caller that did it, so close() runs its cleanup once. */
    protected final boolean transitionToClosed() {
        return state.getAndSet(State.CLOSED) == State.OPEN;
    }

    /** CLOSED once closed, else null. */
    protected final BlockIoException checkOpen() {
        return state.get() == State.CLOSED ? BlockChecks.closed(name) : null;
    }

    /** WRITE_PROTECTED on a read-only device, CLOSED once closed, else null. */
    protected final BlockIoException checkWritable() {
        return readOnly ? BlockChecks.writeProtected(name) : checkOpen();
    }

    /** Everything a read must pass before it touches the medium: range, length, open; null if it may go on. */
    protected final BlockIoException checkReadRequest(long lba, int blockCount) {
        BlockIoException failure = BlockChecks.checkRead(geometry(), lba, blockCount);
        return failure != null ? failure : checkOpen();
    }

    /** Range and length of a write, then read-only and open. */
    protected final BlockIoException checkWriteRequest(long lba, ByteBuf data) {
        BlockIoException failure = BlockChecks.checkWrite(geometry(), lba, data);
        return failure != null ? failure : checkWritable();
    }

    /** Every range of an unmap, then read-only and open. */
    protected final BlockIoException checkUnmapRequest(List<BlockRange> ranges) {
        BlockIoException failure = BlockChecks.checkRanges(geometry(), ranges);
        return failure != null ? failure : checkWritable();
    }

    /** The range of a write-zeroes, then read-only and open. */
    protected final BlockIoException checkWriteZeroesRequest(long lba, long blockCount) {
        BlockIoException failure = BlockChecks.checkRange(geometry(), lba, blockCount);
        return failure != null ? failure : checkWritable();
    }
}
