package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * FDP Statistics log page (Log Page Identifier 22h, LSI = ENDGID; NVMe Base 2.1 "FDP Statistics", TP4146), 64 bytes:
 * 15:0 HBMW (host bytes with metadata written), 31:16 MBMW (media bytes with metadata written), 47:32 MBE (media bytes
 * erased), 63:48 reserved. The counters are 128-bit little-endian; values are unsigned 64-bit and the upper halves
 * zero (2^64 bytes is 16 EiB). Write amplification is MBMW / HBMW.
 */
public record FdpStatisticsLog(long hostBytesWritten, long mediaBytesWritten, long mediaBytesErased) {
    public static final int LOG_PAGE_ID = 0x22;
    public static final int SIZE = 64;

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setLongLE(i, hostBytesWritten);
        out.setLongLE(i + 16, mediaBytesWritten);
        out.setLongLE(i + 32, mediaBytesErased);
    }
}
