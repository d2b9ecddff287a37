package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The zone state of one zoned device, shared by both command sets (SCSI ZBC-2 and NVMe ZNS): conditions, write
 * pointers, open / active resources, and the rules every write, read and zone operation is checked against. The
 * protocol layers translate their commands into these calls and the {@link BlockError} {@code ZONE_*} values into
 * their status (sense data / ZNS status: the table is on {@link BlockError}); nothing here knows a wire format.
 *
 * <h2>Where it lives</h2>
 * The zoned backend ({@code block.zoned.ZonedBlockDevice}) wraps the LUN's media and owns one {@code Zones};
 * {@link BlockDevice#zones()} hands it to the command sets (every decorator forwards it), so a write of any command —
 * WRITE(16), WRITE SAME, EXTENDED COPY, NVMe Write, Copy — passes the zone checks without the command set knowing, and
 * REPORT ZONES / Zone Management reach the same state. It lives in {@code block}, beside the SPI that hands it out
 * (block never imports its backends), and hangs off the device rather than {@code block.lun.LunState} because it is
 * part of the medium (a reset deallocates the zone's memory) and only zoned devices have it: conventional LUNs pay
 * nothing.
 *
 * <h2>Zones</h2>
 * {@code blockCount / zoneSize} zones of {@link ZoneLayout#zoneSize()} blocks, the first
 * {@link ZoneLayout#conventionalZones()} conventional, the rest sequential-write-required with
 * {@link ZoneLayout#zoneCapacity()} writable blocks each (the SCSI view turns the rest of each zone into a gap
 * zone, {@link ZoneType#GAP}).
 *
 * <h2>Rules (ZBC-2 §4.4, ZNS §2.1)</h2>
 * <ul>
 * <li>Writes to a sequential zone: READ_ONLY → {@code ZONE_READ_ONLY}; OFFLINE → {@code ZONE_OFFLINE}; past the
 *     zone's capacity → {@code ZONE_BOUNDARY_ERROR}; FULL → {@code ZONE_FULL}; not at the write pointer, or start /
 *     length not a multiple of {@link ZoneLayout#writeGranularity()} → {@code ZONE_UNALIGNED_WRITE}; an EMPTY or
 *     CLOSED zone is opened implicitly first (resources below). The write pointer moves by the blocks written once
 *     the backend has them; reaching the capacity makes the zone FULL. Writes to conventional zones: anywhere, but not
 *     into a sequential zone ({@code ZONE_BOUNDARY_ERROR}); READ_ONLY / OFFLINE apply to them too.</li>
 * <li>Reads ({@link #checkRead}): OFFLINE → {@code ZONE_OFFLINE}; past a zone's capacity → {@code ZONE_GAP_ACCESS};
 *     with restricted reads only ({@link ZoneLayout#unrestrictedReads()} false, URSWRZ = 0): across a zone boundary
 *     → {@code ZONE_READ_BOUNDARY}, past the write pointer → {@code ZONE_INVALID_READ}. Unwritten blocks read as
 *     zeros (the backend never had them, or a reset deallocated them).</li>
 * <li>Resources: opening (a write to an EMPTY / CLOSED zone, or {@link #open}) needs an open slot under
 *     {@link ZoneLayout#maxOpen()}; when none is left, the oldest IMPLICIT_OPEN zone is closed to make room (ZBC-2
 *     requires it, ZNS permits it: cause {@link ZoneListener.Cause#DEVICE}), else {@code ZONE_TOO_MANY_OPEN}.
 *     Leaving EMPTY (by opening or finishing) needs an active slot under {@link ZoneLayout#maxActive()}, else
 *     {@code ZONE_TOO_MANY_ACTIVE}; closing never frees an active slot, FULL / EMPTY do.</li>
 * </ul>
 *
 * <h2>Zone operations</h2>
 * Each returns null when done, or the error. They are strict in the ZNS way: an operation that does not apply to the
 * zone's condition (open FULL, close EMPTY / FULL, anything on a conventional zone) returns
 * {@code ZONE_INVALID_STATE_TRANSITION} and changes nothing, so a ZBC layer (which completes those with GOOD) maps
 * that to success, a ZNS layer to Invalid Zone State Transition. Operations that are already done (open an
 * EXPLICIT_OPEN zone, close a CLOSED one, finish a FULL one, reset an EMPTY one) succeed. Close of an open zone whose
 * write pointer is at its start makes it EMPTY (ZBC-2 §4.4.3.2.5; ZNS's figure leaves it ZSC — an NVMe layer that
 * cares can tell from the snapshot). The {@code *All} variants apply to the zones ZBC's ALL bit and ZNS's Select All
 * name (open: CLOSED; close: open; finish: open and CLOSED; reset: open, CLOSED and FULL), zone by zone.
 *
 * <h2>Threads</h2>
 * Commands of several connections and both protocols run at once. Each zone has its own monitor: a write holds it
 * from the write-pointer check through the backend's copy to the advance, so writes to one zone are serialised
 * against its write pointer (and against reset / finish of that zone) while writes to different zones run in
 * parallel. The backend must complete writes inline (the RAM disk does; the config refuses other backends for zoned
 * LUNs) — a write that completes later fails loudly. Condition changes and the open / active counts take one more,
 * device-wide lock, always after a zone's monitor (never the other way round), and only when a condition changes: a
 * write inside an open zone takes no device-wide lock. The one change made without the zone's monitor is the
 * device closing an IMPLICIT_OPEN zone for room: it goes to CLOSED (even with nothing written yet), which a write in
 * progress there tolerates. Reads are not locked: {@link #checkRead} reads volatile state.
 *
 * <p>State lives in memory as long as the LUN: a server restart or a LUN re-created by the control plane starts with
 * every zone EMPTY (the RAM disk is empty as well).
 */
public final class Zones {
    private final ZoneLayout layout;
    private final BlockDevice media;
    private final long blockCount;
    private final int zoneShift;
    private final ZoneState[] zones;
    /** The device-wide lock: conditions and the counts below change only under it. */
    private final Object resources = new Object();
    private int openCount;
    private int activeCount;
    /** IMPLICIT_OPEN zones, oldest first: the candidates to close when an open needs room. Guarded by resources. */
    private final LinkedHashSet<ZoneState> implicitlyOpen = new LinkedHashSet<>();
    private final CopyOnWriteArrayList<ZoneListener> listeners = new CopyOnWriteArrayList<>();

    /** One zone's mutable state. {@code condition} changes under {@link #resources}; {@code writePointer} under the
     *  zone's own monitor. */
    private static final class ZoneState {
        final int index;
        final long start;
        final boolean conventional;
        volatile ZoneCondition condition;
        volatile long writePointer;

        ZoneState(int index, long start, boolean conventional) {
            this.index = index;
            this.start = start;
            this.conventional = conventional;
            this.condition = conventional ? ZoneCondition.NOT_WRITE_POINTER : ZoneCondition.EMPTY;
            this.writePointer = start;
        }
    }

    /**
     * Zones over {@code media}, which holds the data (its block count must be a multiple of the zone size). The media
     * is used without zone checks: writes, zone resets (as deallocation) and appends go to it directly.
     */
    public Zones(ZoneLayout layout, BlockDevice media) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.media = Objects.requireNonNull(media, "media");
        this.blockCount = media.geometry().blockCount();
        if (blockCount % layout.zoneSize() != 0) {
            throw new IllegalArgumentException(media.name() + ": " + blockCount + " blocks are not a multiple of the zone size "
                    + layout.zoneSize());
        }
        long count = blockCount / layout.zoneSize();
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(media.name() + ": " + count + " zones");
        }
        if (layout.conventionalZones() >= count) {
            throw new IllegalArgumentException(media.name() + ": " + layout.conventionalZones()
                    + " conventional zones leave no sequential zone of " + count);
        }
        this.zoneShift = Long.numberOfTrailingZeros(layout.zoneSize());
        this.zones = new ZoneState[(int) count];
        for (int i = 0; i < zones.length; i++) {
            zones[i] = new ZoneState(i, (long) i << zoneShift, i < layout.conventionalZones());
        }
    }

    public ZoneLayout layout() {
        return layout;
    }

    public int zoneCount() {
        return zones.length;
    }

    /** Blocks per zone. */
    public long zoneSize() {
        return layout.zoneSize();
    }

    /** The device's capacity in blocks (fixed: zoned devices do not resize). */
    public long blockCount() {
        return blockCount;
    }

    /** The zone holding {@code lba}; {@code lba} must be within the device. */
    public int zoneIndex(long lba) {
        if (lba < 0 || lba >= blockCount) {
            throw new IndexOutOfBoundsException("LBA " + lba + " of " + blockCount);
        }
        return (int) (lba >>> zoneShift);
    }

    /** A snapshot of zone {@code index}. */
    public Zone zone(int index) {
        return snapshot(zones[index]);
    }

    /** Snapshots of the zones {@code [from, to)} (a REPORT ZONES / Zone Management Receive filters them). */
    public List<Zone> zones(int from, int to) {
        Objects.checkFromToIndex(from, to, zones.length);
        List<Zone> out = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            out.add(snapshot(zones[i]));
        }
        return out;
    }

    /** Zones holding an open resource now (IMPLICIT_OPEN + EXPLICIT_OPEN). */
    public int openZones() {
        synchronized (resources) {
            return openCount;
        }
    }

    /** Zones holding an active resource now (open + CLOSED). */
    public int activeZones() {
        synchronized (resources) {
            return activeCount;
        }
    }

    public void addListener(ZoneListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(ZoneListener listener) {
        listeners.remove(listener);
    }

    private Zone snapshot(ZoneState z) {
        ZoneCondition condition = z.condition;
        long capacity = z.conventional ? layout.zoneSize() : layout.zoneCapacity();
        long writePointer = condition == ZoneCondition.FULL ? z.start + capacity : z.writePointer;
        return new Zone(z.index, z.start, layout.zoneSize(), capacity,
                z.conventional ? ZoneType.CONVENTIONAL : ZoneType.SEQUENTIAL_WRITE_REQUIRED, condition, writePointer);
    }

    // ---------------------------------------------------------------------------------------------- reads

    /**
     * Null when a read of {@code [lba, lba + blocks)} may go to the backend, else why not (see the class comment).
     * A range outside the device, or of no blocks, passes: the backend reports those.
     */
    public BlockError checkRead(long lba, long blocks) {
        if (blocks <= 0 || lba < 0 || lba >= blockCount || blocks > blockCount - lba) {
            return null;
        }
        long end = lba + blocks;
        int first = (int) (lba >>> zoneShift);
        int last = (int) ((end - 1) >>> zoneShift);
        for (int i = first; i <= last; i++) {
            ZoneState z = zones[i];
            ZoneCondition condition = z.condition;
            if (condition == ZoneCondition.OFFLINE) {
                return BlockError.ZONE_OFFLINE;
            }
            if (z.conventional) {
                continue;
            }
            if (!layout.unrestrictedReads() && first != last) {
                return BlockError.ZONE_READ_BOUNDARY;
            }
            long to = Math.min(end, z.start + layout.zoneSize());
            if (to > z.start + layout.zoneCapacity()) {
                return BlockError.ZONE_GAP_ACCESS;
            }
            if (!layout.unrestrictedReads() && condition != ZoneCondition.FULL && to > z.writePointer) {
                return BlockError.ZONE_INVALID_READ;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------- writes

    /**
     * Writes {@code data} at {@code lba} after the zone checks, moving the write pointer; what
     * {@code ZonedBlockDevice#write} does. A range the backend would refuse anyway (out of range, not whole blocks)
     * goes to the backend unchecked, which fails it.
     */
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        long blocks = data.readableBytes() >>> media.geometry().logicalBlockShift();
        write(lba, blocks, done -> media.write(lba, data, fua, done), callback);
    }

    /** Writes zeros to {@code [lba, lba + blocks)} under the same rules as {@link #write} (WRITE SAME, Write Zeroes). */
    public void writeZeroes(long lba, long blocks, IoCallback<Void> callback) {
        write(lba, blocks, done -> media.writeZeroes(lba, blocks, done), callback);
    }

    /**
     * Zone Append: writes {@code data} at the write pointer of zone {@code zoneIndex} and completes with the LBA it
     * wrote to (ZNS §3.4.1). The rules are those of a write at the write pointer; the caller has checked that the
     * command named the zone's start LBA and that the size is within ZASL. A conventional zone: {@code
     * ZONE_INVALID_STATE_TRANSITION} (ZNS has none; a layer offering append on them must refuse first).
     */
    public void append(int zoneIndex, ByteBuf data, boolean fua, IoCallback<Long> callback) {
        ZoneState z = zones[zoneIndex];
        if (z.conventional) {
            callback.complete(null, failure(BlockError.ZONE_INVALID_STATE_TRANSITION, z, "zone append to a conventional zone"));
            return;
        }
        long blocks = data.readableBytes() >>> media.geometry().logicalBlockShift();
        if (blocks == 0 || (data.readableBytes() & (media.geometry().logicalBlockSize() - 1)) != 0) {
            callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH, media.name()
                    + ": zone append of " + data.readableBytes() + " bytes"));
            return;
        }
        BlockIoException failure;
        long lba;
        synchronized (z) {
            lba = z.writePointer;
            // a full zone is Zone Is Full for an append (its write pointer is at the end, so the boundary check
            // would speak first)
            failure = z.condition == ZoneCondition.FULL ? failure(BlockError.ZONE_FULL, z, "zone append")
                    : writeLocked(z, lba, blocks, done -> media.write(lba, data, fua, done));
        }
        callback.complete(failure == null ? lba : null, failure);
    }

    private void write(long lba, long blocks, Consumer<IoCallback<Void>> operation, IoCallback<Void> callback) {
        if (blocks <= 0 || lba < 0 || lba >= blockCount || blocks > blockCount - lba) {
            operation.accept(callback);   // the backend's own checks fail it
            return;
        }
        ZoneState z = zones[(int) (lba >>> zoneShift)];
        if (z.conventional) {
            BlockError error = checkConventionalWrite(lba, blocks);
            if (error != null) {
                callback.complete(null, failure(error, z, "write of " + blocks + " blocks at LBA " + lba));
            } else {
                operation.accept(callback);
            }
            return;
        }
        BlockIoException failure;
        synchronized (z) {
            failure = writeLocked(z, lba, blocks, operation);
        }
        callback.complete(null, failure);
    }

    /** Conventional zones are written anywhere, but a write must not run into a sequential zone. */
    private BlockError checkConventionalWrite(long lba, long blocks) {
        int last = (int) ((lba + blocks - 1) >>> zoneShift);
        for (int i = (int) (lba >>> zoneShift); i <= last; i++) {
            ZoneState z = zones[i];
            if (!z.conventional) {
                return BlockError.ZONE_BOUNDARY_ERROR;
            }
            ZoneCondition condition = z.condition;
            if (condition == ZoneCondition.READ_ONLY) {
                return BlockError.ZONE_READ_ONLY;
            }
            if (condition == ZoneCondition.OFFLINE) {
                return BlockError.ZONE_OFFLINE;
            }
        }
        return null;
    }

    /** Check, write through the backend, advance; the caller holds z's monitor. */
    private BlockIoException writeLocked(ZoneState z, long lba, long blocks, Consumer<IoCallback<Void>> operation) {
        ZoneCondition before = z.condition;
        BlockError error = prepareWrite(z, before, lba, blocks);
        if (error != null) {
            return failure(error, z, "write of " + blocks + " blocks at LBA " + lba + " (write pointer "
                    + z.writePointer + ", " + z.condition + ")");
        }
        Inline outcome = new Inline();
        operation.accept(outcome);
        if (!outcome.done) {
            throw new IllegalStateException(media.name() + ": a zoned device needs a backend that completes writes inline");
        }
        if (outcome.failure != null) {
            if (!before.isOpen() && z.writePointer == z.start) {
                synchronized (resources) {
                    // our implicit open of an untouched zone wrote nothing: give the resources back (ZBC-2 does
                    // not open a zone for a write that fails)
                    if (z.condition == ZoneCondition.IMPLICIT_OPEN && before == ZoneCondition.EMPTY) {
                        change(z, ZoneCondition.EMPTY, ZoneListener.Cause.HOST);
                    }
                }
            }
            return outcome.failure;
        }
        long writePointer = z.writePointer + blocks;
        z.writePointer = writePointer;
        if (writePointer == z.start + layout.zoneCapacity()) {
            synchronized (resources) {
                change(z, ZoneCondition.FULL, ZoneListener.Cause.HOST);
            }
        }
        return null;
    }

    private BlockError prepareWrite(ZoneState z, ZoneCondition condition, long lba, long blocks) {
        if (condition == ZoneCondition.READ_ONLY) {
            return BlockError.ZONE_READ_ONLY;
        }
        if (condition == ZoneCondition.OFFLINE) {
            return BlockError.ZONE_OFFLINE;
        }
        if (lba - z.start + blocks > layout.zoneCapacity()) {
            return BlockError.ZONE_BOUNDARY_ERROR;
        }
        if (condition == ZoneCondition.FULL) {
            return BlockError.ZONE_FULL;
        }
        if (lba != z.writePointer || ((lba - z.start) | blocks) % layout.writeGranularity() != 0) {
            return BlockError.ZONE_UNALIGNED_WRITE;
        }
        if (condition.isOpen()) {
            return null;   // the hot path: no device-wide lock
        }
        synchronized (resources) {
            return openLocked(z, ZoneCondition.IMPLICIT_OPEN);
        }
    }

    /** Completion of a backend call that must happen before it returns. */
    private static final class Inline implements IoCallback<Void> {
        boolean done;
        BlockIoException failure;

        @Override
        public void complete(Void result, BlockIoException failure) {
            this.done = true;
            this.failure = failure;
        }
    }

    // ---------------------------------------------------------------------------------------------- zone operations

    /** OPEN ZONE / Zone Management Send Open: EMPTY, IMPLICIT_OPEN or CLOSED → EXPLICIT_OPEN. */
    public BlockError open(int index) {
        return operate(index, z -> switch (z.condition) {
            case EXPLICIT_OPEN -> null;
            case EMPTY, IMPLICIT_OPEN, CLOSED -> openLocked(z, ZoneCondition.EXPLICIT_OPEN);
            default -> refuse(z);
        });
    }

    /** CLOSE ZONE: open → CLOSED (EMPTY when nothing was written); CLOSED stays. */
    public BlockError close(int index) {
        return operate(index, z -> switch (z.condition) {
            case CLOSED -> null;
            case IMPLICIT_OPEN, EXPLICIT_OPEN -> {
                change(z, z.writePointer == z.start ? ZoneCondition.EMPTY : ZoneCondition.CLOSED, ZoneListener.Cause.HOST);
                yield null;
            }
            default -> refuse(z);
        });
    }

    /** FINISH ZONE: EMPTY, open or CLOSED → FULL, the write pointer at the capacity's end; FULL stays. */
    public BlockError finish(int index) {
        return operate(index, z -> switch (z.condition) {
            case FULL -> null;
            case EMPTY, IMPLICIT_OPEN, EXPLICIT_OPEN, CLOSED -> {
                if (z.condition == ZoneCondition.EMPTY && layout.maxActive() > 0 && activeCount >= layout.maxActive()) {
                    yield BlockError.ZONE_TOO_MANY_ACTIVE;   // ZNS §2.1.1.4: finishing an empty zone activates it
                }
                z.writePointer = z.start + layout.zoneCapacity();
                change(z, ZoneCondition.FULL, ZoneListener.Cause.HOST);
                yield null;
            }
            default -> refuse(z);
        });
    }

    /**
     * RESET WRITE POINTER / Zone Management Send Reset: open, CLOSED or FULL → EMPTY, the write pointer at the start,
     * the zone's blocks deallocated (the RAM disk's chunks go back to the memory budget; they read as zeros).
     */
    public BlockError reset(int index) {
        return operate(index, z -> switch (z.condition) {
            case EMPTY -> null;
            case IMPLICIT_OPEN, EXPLICIT_OPEN, CLOSED, FULL -> {
                BlockError error = deallocate(z);
                if (error != null) {
                    yield error;
                }
                z.writePointer = z.start;
                change(z, ZoneCondition.EMPTY, ZoneListener.Cause.HOST);
                yield null;
            }
            default -> refuse(z);
        });
    }

    /** Opens every CLOSED zone; refuses all of them (changing none) when they would not fit under max-open. */
    public BlockError openAll() {
        synchronized (resources) {
            int closed = 0;
            int explicit = 0;
            for (ZoneState z : zones) {
                ZoneCondition c = z.condition;
                closed += c == ZoneCondition.CLOSED ? 1 : 0;
                explicit += c == ZoneCondition.EXPLICIT_OPEN ? 1 : 0;
            }
            if (layout.maxOpen() > 0 && explicit + closed > layout.maxOpen()) {
                return BlockError.ZONE_TOO_MANY_OPEN;   // implicitly open zones can make room, explicit ones cannot
            }
        }
        return forAll(c -> c == ZoneCondition.CLOSED, this::open);
    }

    /** Closes every open zone. */
    public BlockError closeAll() {
        return forAll(ZoneCondition::isOpen, this::close);
    }

    /** Finishes every open and CLOSED zone. */
    public BlockError finishAll() {
        return forAll(ZoneCondition::isActive, this::finish);
    }

    /** Resets every open, CLOSED and FULL zone. */
    public BlockError resetAll() {
        return forAll(c -> c.isActive() || c == ZoneCondition.FULL, this::reset);
    }

    /**
     * Makes zone {@code index} READ_ONLY (a fault rule: ZBC-2 / ZNS devices do it when media wears out). Its resources
     * are released; reads keep working, writes and zone operations fail with {@code ZONE_READ_ONLY}. Final: no
     * operation leaves READ_ONLY or OFFLINE (except {@link #setOffline}).
     */
    public BlockError setReadOnly(int index) {
        return operate(index, z -> switch (z.condition) {
            case READ_ONLY -> null;
            case OFFLINE -> BlockError.ZONE_OFFLINE;
            default -> {
                change(z, ZoneCondition.READ_ONLY, ZoneListener.Cause.DEVICE);
                yield null;
            }
        });
    }

    /** Makes zone {@code index} OFFLINE (a fault rule): every access fails with {@code ZONE_OFFLINE}. */
    public BlockError setOffline(int index) {
        return operate(index, z -> {
            if (z.condition != ZoneCondition.OFFLINE) {
                change(z, ZoneCondition.OFFLINE, ZoneListener.Cause.DEVICE);
            }
            return null;
        });
    }

    private interface Operation {
        BlockError apply(ZoneState z);
    }

    /** Runs op holding the zone's monitor (no write in flight there) and the device-wide lock. */
    private BlockError operate(int index, Operation op) {
        ZoneState z = zones[Objects.checkIndex(index, zones.length)];
        synchronized (z) {
            synchronized (resources) {
                return op.apply(z);
            }
        }
    }

    private BlockError forAll(java.util.function.Predicate<ZoneCondition> selects, java.util.function.IntFunction<BlockError> op) {
        for (ZoneState z : zones) {
            if (!z.conventional && selects.test(z.condition)) {
                BlockError error = op.apply(z.index);
                if (error != null && error != BlockError.ZONE_INVALID_STATE_TRANSITION) {
                    return error;   // a zone changed by a concurrent command in between is not an error of ALL
                }
            }
        }
        return null;
    }

    private static BlockError refuse(ZoneState z) {
        return switch (z.condition) {
            case READ_ONLY -> BlockError.ZONE_READ_ONLY;
            case OFFLINE -> BlockError.ZONE_OFFLINE;
            default -> BlockError.ZONE_INVALID_STATE_TRANSITION;
        };
    }

    /** Deallocates the writable part of z in the backend, which must complete inline. */
    private BlockError deallocate(ZoneState z) {
        Inline outcome = new Inline();
        media.unmap(List.of(new BlockRange(z.start, layout.zoneCapacity())), outcome);
        if (!outcome.done) {
            throw new IllegalStateException(media.name() + ": a zoned device needs a backend that completes inline");
        }
        return outcome.failure == null ? null : outcome.failure.error();
    }

    /**
     * Opens z (EMPTY, IMPLICIT_OPEN or CLOSED) into {@code target}, taking the resources it needs; the caller holds
     * the device-wide lock (and z's monitor).
     */
    private BlockError openLocked(ZoneState z, ZoneCondition target) {
        ZoneCondition condition = z.condition;
        if (condition.isOpen()) {
            if (condition != target) {
                change(z, target, ZoneListener.Cause.HOST);   // implicit → explicit: no new resource
            }
            return null;
        }
        if (condition == ZoneCondition.EMPTY && layout.maxActive() > 0 && activeCount >= layout.maxActive()) {
            return BlockError.ZONE_TOO_MANY_ACTIVE;
        }
        if (layout.maxOpen() > 0 && openCount >= layout.maxOpen()) {
            if (implicitlyOpen.isEmpty()) {
                return BlockError.ZONE_TOO_MANY_OPEN;
            }
            // ZBC-2 §4.4.3.2.3: close an implicitly opened zone to make room. It may have a write in progress (we
            // hold only our own zone's monitor): CLOSED is safe for that write, EMPTY would not be.
            change(implicitlyOpen.getFirst(), ZoneCondition.CLOSED, ZoneListener.Cause.DEVICE);
        }
        change(z, target, ZoneListener.Cause.HOST);
        return null;
    }

    /** Sets z's condition, keeping the counts and the implicitly-open set right; under the device-wide lock. */
    private void change(ZoneState z, ZoneCondition to, ZoneListener.Cause cause) {
        ZoneCondition from = z.condition;
        if (from == to) {
            return;
        }
        openCount += (to.isOpen() ? 1 : 0) - (from.isOpen() ? 1 : 0);
        activeCount += (to.isActive() ? 1 : 0) - (from.isActive() ? 1 : 0);
        if (from == ZoneCondition.IMPLICIT_OPEN) {
            implicitlyOpen.remove(z);
        }
        if (to == ZoneCondition.IMPLICIT_OPEN) {
            implicitlyOpen.add(z);
        }
        z.condition = to;
        if (!listeners.isEmpty()) {
            Zone snapshot = snapshot(z);
            for (ZoneListener listener : listeners) {
                listener.zoneChanged(snapshot, from, cause);
            }
        }
    }

    private BlockIoException failure(BlockError error, ZoneState z, String what) {
        return new BlockIoException(error, media.name() + ": zone " + z.index + ": " + what + ": " + error);
    }

    @Override
    public String toString() {
        return "Zones[" + media.name() + ", " + zones.length + " x " + layout.zoneSize() + " blocks]";
    }
}
