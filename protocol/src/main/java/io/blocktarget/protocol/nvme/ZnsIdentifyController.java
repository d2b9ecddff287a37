package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * I/O Command Set specific Identify Controller for the Zoned Namespace Command Set, CNS 06h with CSI 02h, 4096
 * bytes (ZNS §4.1.5.1): ZASL (byte 0), the Zone Append Size Limit as a power of two in units of CAP.MPSMIN; 0 means
 * MDTS applies. Linux reads it for the first zoned namespace (max_zone_append = 2^(ZASL + 3) sectors).
 */
public record ZnsIdentifyController(int zasl) {
    public static final int SIZE = 4096;

    public ZnsIdentifyController {
        if (zasl < 0 || zasl > 0xFF) {
            throw new IllegalArgumentException("ZASL is one byte: " + zasl);
        }
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setByte(i, zasl);
    }

    public static ZnsIdentifyController get(ByteBuf b) {
        return new ZnsIdentifyController(b.getUnsignedByte(b.readerIndex()));
    }
}
