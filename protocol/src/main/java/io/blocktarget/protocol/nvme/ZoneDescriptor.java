package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Zone Descriptor, 64 bytes (ZNS §3.4.2.2.3, Figure "Zone Descriptor Data Structure"): ZT (byte 0 bits 3:0), ZS
 * (byte 1 bits 7:4), ZA (byte 2), ZAI (byte 3), ZCAP (8..15), ZSLBA (16..23), WP (24..31). Where the write pointer
 * is not valid (Full, Read Only, Offline) the field is all ones, as QEMU reports it; Linux uses ZSLBA + zone size
 * for a Full zone.
 */
public record ZoneDescriptor(int zt, ZoneState zs, int za, int zai, long zcap, long zslba, long wp) {
    public static final int SIZE = 64;
    /** ZT 2h: Sequential Write Required, the only zone type of the Zoned Namespace Command Set. */
    public static final int ZT_SEQUENTIAL_WRITE_REQUIRED = 0x2;
    /** ZA bits: ZFC zone finished by controller (0), FZR finish recommended (1), RZR reset recommended (2), ZDEV (7). */
    public static final int ZA_ZONE_FINISHED_BY_CONTROLLER = 1;
    public static final int ZA_FINISH_ZONE_RECOMMENDED = 1 << 1;
    public static final int ZA_RESET_ZONE_RECOMMENDED = 1 << 2;
    public static final int ZA_ZONE_DESCRIPTOR_EXTENSION_VALID = 1 << 7;
    public static final long WP_INVALID = -1L;

    /** A sequential-write-required zone; WP is written as {@link #WP_INVALID} where the state has none. */
    public static ZoneDescriptor of(ZoneState zs, int za, long zcap, long zslba, long wp) {
        return new ZoneDescriptor(ZT_SEQUENTIAL_WRITE_REQUIRED, zs, za, 0, zcap, zslba,
                zs.writePointerValid() ? wp : WP_INVALID);
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setByte(i, zt & 0xF);
        out.setByte(i + 1, zs.code() << 4);
        out.setByte(i + 2, za);
        out.setByte(i + 3, zai);
        out.setLongLE(i + 8, zcap);
        out.setLongLE(i + 16, zslba);
        out.setLongLE(i + 24, wp);
    }

    /** Decodes the descriptor at {@code offset}; null when ZS is not a zone state (a test initiator's check). */
    public static ZoneDescriptor get(ByteBuf b, int offset) {
        ZoneState zs = ZoneState.of(b.getUnsignedByte(offset + 1) >>> 4).orElse(null);
        if (zs == null) {
            return null;
        }
        return new ZoneDescriptor(b.getUnsignedByte(offset) & 0xF, zs, b.getUnsignedByte(offset + 2),
                b.getUnsignedByte(offset + 3), b.getLongLE(offset + 8), b.getLongLE(offset + 16),
                b.getLongLE(offset + 24));
    }
}
