package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.OptionalLong;

/**
 * Block Limits, B0h (SBC-4 §6.6.3, Table 210), page length 3Ch. Lengths are in logical blocks;
 * 32-bit fields are passed as longs holding unsigned values. The atomic-write fields (44-63) are
 * zero: no atomic writes.
 *
 * @param unmapGranularityAlignment UNMAP GRANULARITY ALIGNMENT; present ⇒ UGAVALID = 1
 */
public record BlockLimitsVpd(boolean wsnz, int maximumCompareAndWriteLength, int optimalTransferLengthGranularity,
                             long maximumTransferLength, long optimalTransferLength, long maximumPrefetchLength,
                             long maximumUnmapLbaCount, long maximumUnmapBlockDescriptorCount,
                             long optimalUnmapGranularity, OptionalLong unmapGranularityAlignment,
                             long maximumWriteSameLength) implements VpdPage {
    public static final int PAGE_LENGTH = 0x3C;

    public BlockLimitsVpd {
        checkU32(maximumTransferLength);
        checkU32(optimalTransferLength);
        checkU32(maximumPrefetchLength);
        checkU32(maximumUnmapLbaCount);
        checkU32(maximumUnmapBlockDescriptorCount);
        checkU32(optimalUnmapGranularity);
        if ((maximumCompareAndWriteLength & ~0xFF) != 0 || (optimalTransferLengthGranularity & ~0xFFFF) != 0
                || unmapGranularityAlignment.orElse(0) < 0 || unmapGranularityAlignment.orElse(0) > 0x7FFF_FFFFL) {
            throw new IllegalArgumentException("Block Limits field out of range");
        }
    }

    private static void checkU32(long v) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("32-bit field out of range: " + v);
        }
    }

    @Override
    public int pageCode() {
        return 0xB0;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        out.writeByte(wsnz ? 1 : 0);                            // 4: WSNZ
        out.writeByte(maximumCompareAndWriteLength);            // 5
        out.writeShort(optimalTransferLengthGranularity);       // 6-7
        out.writeInt((int) maximumTransferLength);              // 8-11
        out.writeInt((int) optimalTransferLength);              // 12-15
        out.writeInt((int) maximumPrefetchLength);              // 16-19
        out.writeInt((int) maximumUnmapLbaCount);               // 20-23
        out.writeInt((int) maximumUnmapBlockDescriptorCount);   // 24-27
        out.writeInt((int) optimalUnmapGranularity);            // 28-31
        out.writeInt(unmapGranularityAlignment.isPresent()      // 32-35: UGAVALID, UNMAP GRANULARITY ALIGNMENT
                ? 0x8000_0000 | (int) unmapGranularityAlignment.getAsLong() : 0);
        out.writeLong(maximumWriteSameLength);                  // 36-43
        out.writeZero(20);                                      // 44-63: atomic transfer fields
    }
}
