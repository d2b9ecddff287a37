package io.blocktarget.block;

/**
 * A snapshot of one zone, as REPORT ZONES / Zone Management Receive describe it. All values in logical blocks.
 *
 * @param index        0-based zone number; the zone starts at {@code index * size}
 * @param start        ZONE START LBA / ZSLBA
 * @param size         blocks between this zone's start and the next's (ZSZE); the same for every zone
 * @param capacity     writable blocks from the start (ZCAP); {@code == size} for conventional zones
 * @param type         CONVENTIONAL or SEQUENTIAL_WRITE_REQUIRED (never GAP)
 * @param condition    the zone's condition at the time of the snapshot
 * @param writePointer next LBA a write must start at; {@code start + capacity} when FULL (Linux sets the same);
 *                     {@code start} for EMPTY, and meaningless for conventional, READ_ONLY and OFFLINE zones
 *                     (reported as ZBC "invalid": the protocol layers decide what goes on the wire)
 */
public record Zone(int index, long start, long size, long capacity, ZoneType type, ZoneCondition condition,
                   long writePointer) {

    /** The first LBA past the writable part. */
    public long capacityEnd() {
        return start + capacity;
    }

    /** The first LBA of the next zone. */
    public long end() {
        return start + size;
    }

    public boolean sequential() {
        return type == ZoneType.SEQUENTIAL_WRITE_REQUIRED;
    }
}
