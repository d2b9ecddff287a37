package io.blocktarget.block.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A simulated flash translation layer over reclaim units (issue 32 item 4): it stores nothing, it only tracks where
 * each mapping unit of the LUN lives, to count what a NAND medium would write.
 *
 * <ul>
 * <li>Each writer (placement handle or stream) fills its own open reclaim unit; a mapping unit belongs to the unit it
 *     was last written to, and an overwrite or a deallocate invalidates the old copy.</li>
 * <li>When a writer needs a new unit and at most one spare unit is left ({@link PlacementGeometry}), the closed unit
 *     with the fewest valid mapping units is reclaimed (greedy): its valid units are copied to the reclaim unit of
 *     the writer whose data they are — media writes charged to that writer; writers' data never mix, FDP's
 *     "persistently isolated" reclaim unit handles — and the unit is free again.</li>
 * <li>A unit a writer fills is a rollover, not overhead (QEMU's FDP model counts the rest of every swapped unit as
 *     media writes; here only data actually moved counts).</li>
 * </ul>
 *
 * <p>Host writer indices are {@code 0..writers-1}; {@link Placement} maps handles and streams onto them. Every method
 * takes the model's monitor: the command sets call it from several event loops, each call costs a few table updates
 * per mapping unit (measured by {@code PlacementBenchmark}), and a reclaim copies at most one unit's worth of entries.
 */
public final class MediaModel {
    private static final byte FREE = 0;
    private static final byte OPEN = 1;
    private static final byte CLOSED = 2;
    /** Events kept, like the FDP Events log's 63 entries; older ones are overwritten. */
    public static final int MAX_EVENTS = 63;

    private final PlacementGeometry geometry;
    private final LongSupplier clock;
    private final int lbs;
    private final int g;            // logical blocks per mapping unit
    private final int u;            // mapping units per reclaim unit
    private final int writers;      // host writers 0..writers-1; writer w's reclaim writer is writers + w
    private final long muBytes;
    private final long blockCount;

    private final int[] location;   // per mapping unit: physical slot, -1 = unmapped
    private final byte[] owner;     // per mapping unit: host writer that last wrote it
    private final int[] reverse;    // per slot: mapping unit stored there (stale once that unit moves), -1 = none
    private final int[] valid;      // per reclaim unit: valid mapping units
    private final byte[] state;     // per reclaim unit: FREE, OPEN, CLOSED
    private final int[] next;       // closed units in buckets by valid count: doubly linked, FIFO per bucket
    private final int[] prev;
    private final int[] bucketHead;
    private final int[] bucketTail;
    private int lowestBucket;       // no closed unit has fewer valid mapping units than this
    private final int[] freeUnits;  // a stack
    private int freeCount;

    private final int[] openUnit;   // per host writer, then per reclaim writer: -1 = none
    private final int[] writePointer;
    private final int[] lastSlot;   // per host writer: slot of its last mapping unit, to merge sequential partial writes
    private final long[] lastEnd;   // per host writer: LBA after its last write
    private final boolean[] used;   // per host writer: has written (its two units joined the pool)
    private int usedWriters;

    private final long[] hostBytes;
    private final long[] mediaBytes;
    private final long[] movedBytes;
    private final long[] rollovers;
    private final long[] closedEarly;
    private long unitsReclaimed;

    private final PlacementEvent[] events = new PlacementEvent[MAX_EVENTS];
    private int eventNext;
    private int eventCount;

    public MediaModel(PlacementGeometry geometry, LongSupplier clock) {
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        this.clock = Objects.requireNonNull(clock, "clock");
        lbs = geometry.logicalBlockSize();
        g = geometry.mappingUnitBlocks();
        u = geometry.slotsPerUnit();
        writers = geometry.writers();
        muBytes = geometry.mappingUnitBytes();
        blockCount = geometry.blockCount();
        if (writers > 0xFF) {
            throw new IllegalArgumentException(writers + " writers: the owner table holds a byte");
        }
        int units = geometry.physicalUnits();
        location = new int[geometry.mappingUnits()];
        Arrays.fill(location, -1);
        owner = new byte[geometry.mappingUnits()];
        reverse = new int[Math.toIntExact(geometry.slots())];
        Arrays.fill(reverse, -1);
        valid = new int[units];
        state = new byte[units];
        next = new int[units];
        prev = new int[units];
        bucketHead = new int[u + 1];
        bucketTail = new int[u + 1];
        Arrays.fill(bucketHead, -1);
        Arrays.fill(bucketTail, -1);
        lowestBucket = u + 1;
        freeUnits = new int[units];
        for (int i = 0; i < units; i++) {
            freeUnits[i] = units - 1 - i; // unit 0 on top: the first unit opened is unit 0
        }
        freeCount = units;
        openUnit = new int[2 * writers];
        Arrays.fill(openUnit, -1);
        writePointer = new int[2 * writers];
        lastSlot = new int[writers];
        Arrays.fill(lastSlot, -1);
        lastEnd = new long[writers];
        Arrays.fill(lastEnd, -1);
        used = new boolean[writers];
        hostBytes = new long[writers];
        mediaBytes = new long[writers];
        movedBytes = new long[writers];
        rollovers = new long[writers];
        closedEarly = new long[writers];
    }

    public PlacementGeometry geometry() {
        return geometry;
    }

    /**
     * Bytes of this model's arrays as allocated (lengths × element size, without array headers and without the event
     * ring's records): what {@link PlacementGeometry#tableBytes} estimates before the model exists.
     */
    long arrayBytes() {
        long ints = (long) location.length + reverse.length + valid.length + next.length + prev.length
                + bucketHead.length + bucketTail.length + freeUnits.length + openUnit.length + writePointer.length
                + lastSlot.length;
        long bytes = (long) owner.length + state.length + used.length;
        long longs = (long) lastEnd.length + hostBytes.length + mediaBytes.length + movedBytes.length
                + rollovers.length + closedEarly.length;
        return 4 * ints + bytes + 8 * longs + 4L * events.length;
    }

    /**
     * Writer {@code writer} wrote {@code blocks} logical blocks at {@code lba} (after the backend completed them).
     * Mapping units it covers entirely move to the writer's open unit; a partly covered one is read-modify-written,
     * unless it continues the writer's previous write in the unit that write just filled (merged, as a write buffer
     * would). Fails only for arguments no command set may pass (unknown writer, range outside the LUN).
     */
    public synchronized void write(int writer, long lba, long blocks) {
        checkWriter(writer);
        checkRange(lba, blocks);
        if (blocks == 0) {
            return;
        }
        hostBytes[writer] += blocks * lbs;
        long end = lba + blocks;
        int first = (int) (lba / g);
        int last = (int) ((end - 1) / g);
        for (int mu = first; mu <= last; mu++) {
            if (mu == first && lba % g != 0 && lba == lastEnd[writer] && location[mu] >= 0
                    && location[mu] == lastSlot[writer]) {
                continue; // continues the same mapping unit the writer is filling: merged, no new media write
            }
            place(writer, mu);
        }
        lastEnd[writer] = end;
        lastSlot[writer] = location[last];
    }

    /** Deallocate / UNMAP / Write Zeroes with deallocation: mapping units wholly inside the range become invalid. */
    public synchronized void deallocate(long lba, long blocks) {
        checkRange(lba, blocks);
        long end = lba + blocks;
        long first = (lba + g - 1) / g;
        long stop = end == blockCount ? geometry.mappingUnits() : end / g; // a partial last unit ends at the LUN's end
        for (long mu = first; mu < stop; mu++) {
            int slot = location[(int) mu];
            if (slot >= 0) {
                location[(int) mu] = -1;
                invalidate(slot);
            }
        }
    }

    /**
     * Closes the writer's open reclaim unit though it is not full (NVMe Reclaim Unit Handle Update, TP4146 "I/O
     * Management Send"): its next write starts a new unit, the unwritten rest is left for reclaim. Returns whether a
     * unit was open (one with at least one write in it).
     */
    public synchronized boolean closeUnit(int writer) {
        checkWriter(writer);
        int unit = openUnit[writer];
        if (unit < 0) {
            return false;
        }
        long unwrittenBlocks = (long) (u - writePointer[writer]) * g;
        close(unit);
        openUnit[writer] = -1;
        closedEarly[writer]++;
        event(PlacementEvent.Kind.UNIT_NOT_FULLY_WRITTEN, writer, unwrittenBlocks, -1);
        return true;
    }

    /**
     * Logical blocks the writer can still write before its reclaim unit is full (RUAMW of the RUH Status descriptor);
     * a whole unit when it has none open (its next write opens one).
     */
    public synchronized long availableBlocks(int writer) {
        checkWriter(writer);
        int open = openUnit[writer];
        return (long) (open < 0 ? u : u - writePointer[writer]) * g;
    }

    /** The counters since the last {@link #resetStatistics} and the medium's state now. */
    public synchronized MediaStats stats() {
        List<WriterStats> perWriter = new ArrayList<>(writers);
        for (int w = 0; w < writers; w++) {
            perWriter.add(new WriterStats(hostBytes[w], mediaBytes[w], movedBytes[w], rollovers[w], closedEarly[w]));
        }
        return new MediaStats(perWriter, unitsReclaimed, unitsReclaimed * geometry.reclaimUnitBytes(), freeCount,
                geometry.physicalUnits());
    }

    /** Starts a measurement: every counter to zero. Where data lives is kept (the medium is not reformatted). */
    public synchronized void resetStatistics() {
        Arrays.fill(hostBytes, 0);
        Arrays.fill(mediaBytes, 0);
        Arrays.fill(movedBytes, 0);
        Arrays.fill(rollovers, 0);
        Arrays.fill(closedEarly, 0);
        unitsReclaimed = 0;
    }

    /** The last {@link #MAX_EVENTS} events, oldest first. */
    public synchronized List<PlacementEvent> events() {
        List<PlacementEvent> out = new ArrayList<>(eventCount);
        for (int i = 0; i < eventCount; i++) {
            out.add(events[Math.floorMod(eventNext - eventCount + i, MAX_EVENTS)]);
        }
        return out;
    }

    // ---- the medium ----

    private void place(int writer, int mu) {
        int old = location[mu];
        if (old >= 0) {
            location[mu] = -1; // invalid before a reclaim triggered below could copy it
            invalidate(old);
        }
        int slot = nextSlot(writer);
        location[mu] = slot;
        reverse[slot] = mu;
        owner[mu] = (byte) writer;
        valid[slot / u]++;
        mediaBytes[writer] += muBytes;
        if (writePointer[writer] == u) {
            close(openUnit[writer]);
            openUnit[writer] = -1;
            rollovers[writer]++;
        }
    }

    /** The next slot of the writer's open unit, opening one (after reclaiming as needed) when it has none. */
    private int nextSlot(int writer) {
        int unit = openUnit[writer];
        if (unit < 0) {
            unit = writer >= writers ? popFree() : takeUnitForHost(writer);
            state[unit] = OPEN;
            openUnit[writer] = unit;
            writePointer[writer] = 0;
        }
        return unit * u + writePointer[writer]++;
    }

    private int takeUnitForHost(int writer) {
        if (!used[writer]) {
            used[writer] = true; // this writer's open unit and its reclaim unit join the pool
            usedWriters++;
        }
        while (spareUnits() <= 1) {
            reclaimOne();
        }
        return popFree();
    }

    /** Free units beyond the two kept for each writer that has not written yet. */
    private int spareUnits() {
        return freeCount - 2 * (writers - usedWriters);
    }

    private int popFree() {
        if (freeCount == 0) {
            throw new IllegalStateException("placement model out of free units"); // excluded by PlacementGeometry
        }
        return freeUnits[--freeCount];
    }

    /**
     * Greedy reclaim of the closed unit with the fewest valid mapping units, its valid data copied to the reclaim unit
     * of the writer whose data it is (every unit holds one writer's data: reclaim keeps placement handles apart, FDP's
     * "persistently isolated"), so one reclaim needs at most one fresh unit. It always finds a unit with fewer than a
     * unit's worth: with at most one spare unit, the closed units outnumber the LUN's capacity in units (two spare
     * units at least, see {@link PlacementGeometry#baseUnits}), so valid data cannot fill them all.
     */
    private void reclaimOne() {
        int victim = lowestClosed();
        if (victim < 0 || valid[victim] >= u) {
            throw new IllegalStateException("placement model: nothing to reclaim"); // excluded by the sizing above
        }
        unlink(victim, valid[victim]);
        int base = victim * u;
        long moved = 0;
        long firstLba = -1;
        for (int s = base; s < base + u; s++) {
            int mu = reverse[s];
            reverse[s] = -1;
            if (mu < 0 || location[mu] != s) {
                continue;
            }
            int w = owner[mu] & 0xFF;
            int reclaim = writers + w;
            int slot = nextSlot(reclaim);
            location[mu] = slot;
            reverse[slot] = mu;
            valid[slot / u]++;
            movedBytes[w] += muBytes;
            mediaBytes[w] += muBytes;
            if (writePointer[reclaim] == u) {
                close(openUnit[reclaim]);
                openUnit[reclaim] = -1;
            }
            if (moved++ == 0) {
                firstLba = (long) mu * g;
            }
        }
        valid[victim] = 0;
        state[victim] = FREE;
        freeUnits[freeCount++] = victim;
        unitsReclaimed++;
        if (moved > 0) {
            event(PlacementEvent.Kind.MEDIA_REALLOCATED, owner[(int) (firstLba / g)] & 0xFF, moved * g, firstLba);
        }
    }

    private void invalidate(int slot) {
        int unit = slot / u;
        int v = valid[unit];
        if (state[unit] == CLOSED) {
            unlink(unit, v);
            link(unit, v - 1);
        }
        valid[unit] = v - 1;
    }

    private void close(int unit) {
        state[unit] = CLOSED;
        link(unit, valid[unit]);
    }

    private int lowestClosed() {
        while (lowestBucket <= u && bucketHead[lowestBucket] < 0) {
            lowestBucket++;
        }
        return lowestBucket <= u ? bucketHead[lowestBucket] : -1;
    }

    private void link(int unit, int bucket) {
        int tail = bucketTail[bucket];
        prev[unit] = tail;
        next[unit] = -1;
        if (tail < 0) {
            bucketHead[bucket] = unit;
        } else {
            next[tail] = unit;
        }
        bucketTail[bucket] = unit;
        if (bucket < lowestBucket) {
            lowestBucket = bucket;
        }
    }

    private void unlink(int unit, int bucket) {
        int p = prev[unit];
        int n = next[unit];
        if (p < 0) {
            bucketHead[bucket] = n;
        } else {
            next[p] = n;
        }
        if (n < 0) {
            bucketTail[bucket] = p;
        } else {
            prev[n] = p;
        }
    }

    private void event(PlacementEvent.Kind kind, int writer, long blocks, long lba) {
        events[eventNext] = new PlacementEvent(kind, writer, blocks, lba, clock.getAsLong());
        eventNext = (eventNext + 1) % MAX_EVENTS;
        eventCount = Math.min(eventCount + 1, MAX_EVENTS);
    }

    private void checkWriter(int writer) {
        if (writer < 0 || writer >= writers) {
            throw new IllegalArgumentException("writer " + writer + " of " + writers);
        }
    }

    private void checkRange(long lba, long blocks) {
        if (lba < 0 || blocks < 0 || lba > blockCount || blocks > blockCount - lba) {
            throw new IllegalArgumentException("LBA range " + lba + "+" + blocks + " outside " + blockCount);
        }
    }

    // ---- for tests: the tables agree with each other ----

    /** Checks every cross-table invariant; O(size). Returns the number of valid mapping units. */
    synchronized long checkInvariants() {
        long mapped = 0;
        int[] counted = new int[valid.length];
        for (int mu = 0; mu < location.length; mu++) {
            int slot = location[mu];
            if (slot >= 0) {
                mapped++;
                if (reverse[slot] != mu) {
                    throw new AssertionError("mapping unit " + mu + " at slot " + slot + " but reverse says "
                            + reverse[slot]);
                }
                counted[slot / u]++;
                if (state[slot / u] == FREE) {
                    throw new AssertionError("mapping unit " + mu + " in free unit " + slot / u);
                }
            }
        }
        int free = 0;
        for (int unit = 0; unit < valid.length; unit++) {
            if (counted[unit] != valid[unit]) {
                throw new AssertionError("unit " + unit + " valid " + valid[unit] + " counted " + counted[unit]);
            }
            free += state[unit] == FREE ? 1 : 0;
        }
        if (free != freeCount) {
            throw new AssertionError("free units " + free + " vs stack " + freeCount);
        }
        int closed = 0;
        for (int b = 0; b <= u; b++) {
            for (int unit = bucketHead[b]; unit >= 0; unit = next[unit]) {
                if (state[unit] != CLOSED || valid[unit] != b) {
                    throw new AssertionError("unit " + unit + " in bucket " + b + " state " + state[unit]);
                }
                if (b < lowestBucket) {
                    throw new AssertionError("bucket " + b + " below the lowest " + lowestBucket);
                }
                closed++;
            }
        }
        int closedStates = 0;
        for (byte s : state) {
            closedStates += s == CLOSED ? 1 : 0;
        }
        if (closed != closedStates) {
            throw new AssertionError("closed units " + closedStates + " but " + closed + " in buckets");
        }
        return mapped;
    }
}
