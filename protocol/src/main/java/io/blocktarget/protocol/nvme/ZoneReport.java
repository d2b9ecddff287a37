package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Report Zones / Extended Report Zones data (ZNS §3.4.2.2, Figures "Report Zones Data Structure" and "Extended
 * Report Zones Data Structure"): NZ (bytes 0..7), reserved to 63, then one entry per zone from byte 64 — the
 * 64-byte descriptor, followed in the extended report by the zone's ZDES × 64-byte descriptor extension.
 *
 * <p>NZ: with Partial Report set, the number of descriptors transferred; clear, the number of zones that match
 * the reporting option from the starting zone to the end of the namespace, whether or not they fit.
 */
public final class ZoneReport {
    public static final int HEADER_SIZE = 64;

    private ZoneReport() {
    }

    /** Descriptors of {@code entrySize} bytes that fit in a buffer of {@code bufferBytes}. */
    public static long capacity(long bufferBytes, int entrySize) {
        return bufferBytes < HEADER_SIZE ? 0 : (bufferBytes - HEADER_SIZE) / entrySize;
    }

    /**
     * Writes exactly {@code bufferBytes}: header with {@code nz}, the {@code zones} that fit (each followed by
     * {@code extensionBytes} of zero — no extension data is kept), zero padding. A buffer shorter than the header
     * gets the first bytes of the header.
     */
    public static void encode(ByteBuf out, long nz, List<ZoneDescriptor> zones, int extensionBytes, int bufferBytes) {
        int i = out.writerIndex();
        out.writeZero(bufferBytes);
        if (bufferBytes >= 8) {
            out.setLongLE(i, nz);
        } else {
            for (int k = 0; k < bufferBytes; k++) {
                out.setByte(i + k, (int) (nz >>> 8 * k));
            }
        }
        int entry = ZoneDescriptor.SIZE + extensionBytes;
        long fit = Math.min(zones.size(), capacity(bufferBytes, entry));
        ByteBuf window = out.slice(i, bufferBytes);
        for (int k = 0; k < fit; k++) {
            window.writerIndex(HEADER_SIZE + k * entry);
            zones.get(k).encode(window);
        }
    }
}
