package io.blocktarget.block;

/**
 * The fixed shape and limits of a zoned device, in logical blocks (the {@code zoned:} section of a LUN file,
 * converted from bytes by the server).
 *
 * @param zoneSize             blocks per zone: a power of two (Linux requires it: chunk_sectors)
 * @param zoneCapacity         writable blocks per sequential zone, 1 ..= zoneSize
 * @param conventionalZones    conventional zones at the start of the LBA space, fewer than the zone count
 * @param maxOpen              open (implicitly + explicitly) zones at most; 0 = no limit
 * @param maxActive            open + closed zones at most; 0 = no limit
 * @param zoneAppendMaxBlocks  the largest Zone Append (NVMe ZASL); 0 = no Zone Append. Enforced by the NVMe layer
 *                             (ZASL is its limit); {@link Zones#append} does not check it
 * @param writeGranularity     blocks a sequential write's start and length must be a multiple of: SCSI ZBC-2 asks
 *                             for the physical block (Linux sets zone_write_granularity to it); 1 for none
 * @param unrestrictedReads    URSWRZ: reads past the write pointer and across zones return data (zeros where
 *                             unwritten) instead of failing. Linux refuses host-managed SCSI disks without it
 */
public record ZoneLayout(long zoneSize, long zoneCapacity, int conventionalZones, int maxOpen, int maxActive,
                         long zoneAppendMaxBlocks, int writeGranularity, boolean unrestrictedReads) {

    public ZoneLayout {
        if (zoneSize <= 0 || Long.bitCount(zoneSize) != 1) {
            throw new IllegalArgumentException("zone size " + zoneSize + " blocks is not a power of two");
        }
        if (zoneCapacity <= 0 || zoneCapacity > zoneSize) {
            throw new IllegalArgumentException("zone capacity " + zoneCapacity + " not in 1.." + zoneSize);
        }
        if (conventionalZones < 0 || maxOpen < 0 || maxActive < 0 || zoneAppendMaxBlocks < 0) {
            throw new IllegalArgumentException("negative zone count or limit");
        }
        if (writeGranularity <= 0 || Integer.bitCount(writeGranularity) != 1 || zoneCapacity % writeGranularity != 0) {
            throw new IllegalArgumentException("write granularity " + writeGranularity
                    + " is not a power of two dividing the zone capacity " + zoneCapacity);
        }
    }

    /** The usual layout: no conventional zones, no limits, granularity 1, unrestricted reads. */
    public static ZoneLayout of(long zoneSize, long zoneCapacity) {
        return new ZoneLayout(zoneSize, zoneCapacity, 0, 0, 0, 0, 1, true);
    }

    public ZoneLayout withConventionalZones(int value) {
        return new ZoneLayout(zoneSize, zoneCapacity, value, maxOpen, maxActive, zoneAppendMaxBlocks, writeGranularity,
                unrestrictedReads);
    }

    public ZoneLayout withLimits(int open, int active) {
        return new ZoneLayout(zoneSize, zoneCapacity, conventionalZones, open, active, zoneAppendMaxBlocks,
                writeGranularity, unrestrictedReads);
    }

    public ZoneLayout withWriteGranularity(int value) {
        return new ZoneLayout(zoneSize, zoneCapacity, conventionalZones, maxOpen, maxActive, zoneAppendMaxBlocks, value,
                unrestrictedReads);
    }

    public ZoneLayout withUnrestrictedReads(boolean value) {
        return new ZoneLayout(zoneSize, zoneCapacity, conventionalZones, maxOpen, maxActive, zoneAppendMaxBlocks,
                writeGranularity, value);
    }

    public ZoneLayout withZoneAppendMaxBlocks(long value) {
        return new ZoneLayout(zoneSize, zoneCapacity, conventionalZones, maxOpen, maxActive, value, writeGranularity,
                unrestrictedReads);
    }
}
