package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * I/O Command Set specific Identify Namespace for the Zoned Namespace Command Set, CNS 05h with CSI 02h, 4096
 * bytes (ZNS §4.1.5.2, Figure "Identify Namespace Data Structure"): ZOC (0..1), OZCS (2..3), MAR (4..7), MOR
 * (8..11), RRL (12..15), FRL (16..19), RRL1..3 / FRL1..3 (20..43), the ZRWA fields (44..52, zero: no ZRWA) and the
 * LBA Format Extensions at 2816, 16 bytes each (ZSZE 0..7, ZDES 8), one per LBA format of Identify Namespace.
 *
 * <p>MAR and MOR are 0's based with FFFFFFFFh meaning "no limit" — see {@link #resources}. Linux refuses a
 * namespace whose ZOC is non-zero or whose ZSZE is not a power of two (drivers/nvme/host/zns.c).
 */
public record ZnsIdentifyNamespace(int zoc, int ozcs, long mar, long mor, long rrl, long frl,
                                   List<LbaFormatExtension> lbafe) {
    public static final int SIZE = 4096;
    public static final int OFFSET_LBAFE = 2816;
    public static final int LBAFE_SIZE = 16;
    public static final int MAX_LBA_FORMATS = 64;
    /** MAR / MOR value for "no limit" (ZNS §4.1.5.2). */
    public static final long NO_LIMIT = 0xFFFF_FFFFL;
    /** ZOC bit 0 VZCAP: zone capacity may differ between zones; bit 1 ZAE: zone active excursions. */
    public static final int ZOC_VARIABLE_ZONE_CAPACITY = 1;
    public static final int ZOC_ZONE_ACTIVE_EXCURSIONS = 1 << 1;
    /** OZCS bit 0 RAZB: reads may cross zone boundaries. */
    public static final int OZCS_READ_ACROSS_ZONE_BOUNDARIES = 1;

    /** LBA Format Extension (ZNS Figure "LBA Format Extension Data Structure"): ZSZE in logical blocks, ZDES in 64 B units. */
    public record LbaFormatExtension(long zsze, int zdes) {
        public LbaFormatExtension {
            if (zdes < 0 || zdes > 0xFF) {
                throw new IllegalArgumentException("ZDES is one byte: " + zdes);
            }
        }
    }

    public ZnsIdentifyNamespace {
        lbafe = List.copyOf(lbafe);
        if (lbafe.size() > MAX_LBA_FORMATS) {
            throw new IllegalArgumentException("at most 64 LBA format extensions");
        }
    }

    /** MAR / MOR for a limit of {@code zones} (0 = unlimited): the 0's based count, or FFFFFFFFh. */
    public static long resources(long zones) {
        if (zones < 0 || zones > NO_LIMIT) {
            throw new IllegalArgumentException("zone limit " + zones);
        }
        return zones == 0 ? NO_LIMIT : zones - 1;
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setShortLE(i, zoc);
        out.setShortLE(i + 2, ozcs);
        out.setIntLE(i + 4, (int) mar);
        out.setIntLE(i + 8, (int) mor);
        out.setIntLE(i + 12, (int) rrl);
        out.setIntLE(i + 16, (int) frl);
        for (int k = 0; k < lbafe.size(); k++) {
            int p = i + OFFSET_LBAFE + LBAFE_SIZE * k;
            out.setLongLE(p, lbafe.get(k).zsze());
            out.setByte(p + 8, lbafe.get(k).zdes());
        }
    }

    /** Decodes the fields above; {@code formats} LBA format extensions (NLBAF + 1 of Identify Namespace). */
    public static ZnsIdentifyNamespace get(ByteBuf b, int formats) {
        int i = b.readerIndex();
        List<LbaFormatExtension> ext = new ArrayList<>();
        for (int k = 0; k < formats; k++) {
            int p = i + OFFSET_LBAFE + LBAFE_SIZE * k;
            ext.add(new LbaFormatExtension(b.getLongLE(p), b.getUnsignedByte(p + 8)));
        }
        return new ZnsIdentifyNamespace(b.getUnsignedShortLE(i), b.getUnsignedShortLE(i + 2), b.getUnsignedIntLE(i + 4),
                b.getUnsignedIntLE(i + 8), b.getUnsignedIntLE(i + 12), b.getUnsignedIntLE(i + 16), ext);
    }
}
