package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Changed Zone List log page (BFh), 4096 bytes, per namespace (ZNS §5.3.1, Figure "Changed Zone List Log Page"):
 * Number of Zone Identifiers (bytes 0..1), reserved to 7, then up to 511 Zone Identifiers (the ZSLBA of each zone,
 * 8 bytes) from byte 8. More than 511 changed zones are reported as FFFFh and no identifiers.
 */
public final class ChangedZoneList {
    public static final int SIZE = 4096;
    public static final int MAX_IDENTIFIERS = (SIZE - 8) / 8;
    public static final int OVERFLOW = 0xFFFF;

    private ChangedZoneList() {
    }

    public static void encode(ByteBuf out, List<Long> zslbas) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        if (zslbas.size() > MAX_IDENTIFIERS) {
            out.setShortLE(i, OVERFLOW);
            return;
        }
        out.setShortLE(i, zslbas.size());
        for (int k = 0; k < zslbas.size(); k++) {
            out.setLongLE(i + 8 + 8 * k, zslbas.get(k));
        }
    }
}
