package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * The 64-byte header of REPORT ZONES parameter data (ZBC-2 §5.4.2, Table 43); the descriptors follow it.
 *
 * @param zoneListLength              ZONE LIST LENGTH: 64 × the zones reported (PARTIAL = 1) or matching
 *                                    (PARTIAL = 0), whatever the allocation length
 * @param same                        SAME (4 bits; obsolete in ZBC-2 but still set by drives): 0h lengths or
 *                                    types differ, 1h all zones alike, 3h same length, types differ
 * @param maximumLba                  MAXIMUM LBA: the device's last LBA
 * @param zoneStartingLbaGranularity  ZONE STARTING LBA GRANULARITY: the distance between zone starts when zones are
 *                                    followed by gap zones, else 0
 */
public record ReportZonesData(long zoneListLength, int same, long maximumLba, long zoneStartingLbaGranularity) {
    public static final int HEADER_LENGTH = 64;
    public static final int SAME_DIFFERENT = 0x0;
    public static final int SAME_ALL = 0x1;
    public static final int SAME_LENGTH_TYPES_DIFFER = 0x3;

    public ReportZonesData {
        if (zoneListLength < 0 || zoneListLength > 0xFFFF_FFFFL || (same & ~0xF) != 0 || maximumLba < 0) {
            throw new IllegalArgumentException("REPORT ZONES header field out of range");
        }
    }

    public void encode(ByteBuf out) {
        out.writeInt((int) zoneListLength);          // 0-3: ZONE LIST LENGTH
        out.writeByte(same);                          // 4: SAME
        out.writeZero(3);                             // 5-7: reserved
        out.writeLong(maximumLba);                    // 8-15: MAXIMUM LBA
        out.writeLong(zoneStartingLbaGranularity);    // 16-23: ZONE STARTING LBA GRANULARITY
        out.writeZero(40);                            // 24-63: reserved
    }

    /**
     * Whether a zone of {@code zoneType} in {@code condition} is reported under REPORTING OPTIONS {@code options}
     * (ZBC-2 Table 41). RWP recommended, non-sequential resources and INACTIVE select nothing here: no zone of this
     * device server is ever in that state.
     */
    public static boolean matches(int options, int zoneType, int condition) {
        return switch (options) {
            case ReportZonesCdb.ALL -> true;
            case ReportZonesCdb.EMPTY, ReportZonesCdb.IMPLICITLY_OPENED, ReportZonesCdb.EXPLICITLY_OPENED,
                 ReportZonesCdb.CLOSED, ReportZonesCdb.FULL, ReportZonesCdb.READ_ONLY, ReportZonesCdb.OFFLINE ->
                    condition == (options == ReportZonesCdb.READ_ONLY ? 0xD
                            : options == ReportZonesCdb.FULL ? 0xE
                            : options == ReportZonesCdb.OFFLINE ? 0xF : options);
            case ReportZonesCdb.ALL_EXCEPT_GAP -> zoneType != 0x5;
            case ReportZonesCdb.NOT_WRITE_POINTER -> condition == 0x0;
            default -> false;
        };
    }
}
