package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * One 64-byte zone descriptor of REPORT ZONES parameter data (ZBC-2 §5.4.2, Table 45).
 *
 * @param zoneType     ZONE TYPE (4 bits): 1h conventional, 2h sequential write required, 5h gap
 * @param condition    ZONE CONDITION (4 bits)
 * @param nonSeq       NON_SEQ
 * @param reset        RESET (RWP recommended)
 * @param length       ZONE LENGTH in logical blocks
 * @param start        ZONE START LBA
 * @param writePointer WRITE POINTER LBA ({@link #INVALID_WRITE_POINTER} where the zone has none)
 */
public record ZoneDescriptor(int zoneType, int condition, boolean nonSeq, boolean reset, long length, long start,
                             long writePointer) {
    public static final int LENGTH = 64;
    /** What a zone without a valid write pointer reports (conventional, gap, read-only, offline), as drives do. */
    public static final long INVALID_WRITE_POINTER = -1L;

    public ZoneDescriptor {
        if ((zoneType & ~0xF) != 0 || (condition & ~0xF) != 0 || length <= 0 || start < 0) {
            throw new IllegalArgumentException("zone descriptor field out of range");
        }
    }

    public void encode(ByteBuf out) {
        out.writeByte(zoneType);                                           // 0: ZONE TYPE
        out.writeByte(condition << 4 | (nonSeq ? 0x02 : 0) | (reset ? 0x01 : 0)); // 1: ZONE CONDITION, NON_SEQ, RESET
        out.writeZero(6);                                                  // 2-7: reserved
        out.writeLong(length);                                             // 8-15: ZONE LENGTH
        out.writeLong(start);                                              // 16-23: ZONE START LBA
        out.writeLong(writePointer);                                       // 24-31: WRITE POINTER LBA
        out.writeZero(32);                                                 // 32-63: reserved
    }
}
