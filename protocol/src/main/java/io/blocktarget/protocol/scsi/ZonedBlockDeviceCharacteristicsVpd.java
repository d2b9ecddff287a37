package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Zoned Block Device Characteristics, B6h (ZBC-2 §6.5.2, Table 61), page length 3Ch. What Linux's sd_zbc reads:
 * URSWRZ (byte 4 bit 0; sd refuses host-managed disks without it), the open-zone limit (bytes 16-19, FFFFFFFFh = no
 * limit), the ZONE ALIGNMENT METHOD (byte 23) and ZONE STARTING LBA GRANULARITY (bytes 24-31) that gap zones need.
 *
 * @param urswrz                      unrestricted reads in sequential write required zones
 * @param optimalOpenSequentialWritePreferred  bytes 8-11 (host-aware only; FFFFFFFFh not reported)
 * @param optimalNonSequentialWritePreferred   bytes 12-15 (host-aware only; FFFFFFFFh not reported)
 * @param maxOpenSequentialWriteRequired       bytes 16-19 (FFFFFFFFh: no limit)
 * @param zoneAlignmentMethod         1h constant zone lengths, 8h constant zone starting LBA offsets (gap zones)
 * @param zoneStartingLbaGranularity  with method 8h: the distance of zone starts in logical blocks
 */
public record ZonedBlockDeviceCharacteristicsVpd(boolean urswrz, long optimalOpenSequentialWritePreferred,
                                                 long optimalNonSequentialWritePreferred,
                                                 long maxOpenSequentialWriteRequired, int zoneAlignmentMethod,
                                                 long zoneStartingLbaGranularity) implements VpdPage {
    public static final long NOT_REPORTED = 0xFFFF_FFFFL;
    public static final int CONSTANT_ZONE_LENGTH = 0x1;
    public static final int CONSTANT_ZONE_START_OFFSET = 0x8;

    public ZonedBlockDeviceCharacteristicsVpd {
        if ((optimalOpenSequentialWritePreferred & ~0xFFFF_FFFFL) != 0
                || (optimalNonSequentialWritePreferred & ~0xFFFF_FFFFL) != 0
                || (maxOpenSequentialWriteRequired & ~0xFFFF_FFFFL) != 0 || (zoneAlignmentMethod & ~0xF) != 0) {
            throw new IllegalArgumentException("Zoned Block Device Characteristics field out of range");
        }
    }

    @Override
    public int pageCode() {
        return 0xB6;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        out.writeByte(urswrz ? 0x01 : 0);                       // 4: URSWRZ
        out.writeZero(3);                                      // 5-7: reserved
        out.writeInt((int) optimalOpenSequentialWritePreferred);   // 8-11
        out.writeInt((int) optimalNonSequentialWritePreferred);    // 12-15
        out.writeInt((int) maxOpenSequentialWriteRequired);        // 16-19
        out.writeZero(3);                                      // 20-22: reserved
        out.writeByte(zoneAlignmentMethod);                    // 23: ZONE ALIGNMENT METHOD
        out.writeLong(zoneStartingLbaGranularity);             // 24-31: ZONE STARTING LBA GRANULARITY
        out.writeZero(32);                                     // 32-63: reserved
    }
}
