package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Identify I/O Command Set data structure, CNS 1Ch (Base 2.0 §5.17.2.21, Figure "I/O Command Set Data
 * Structure"): 512 I/O Command Set Combinations of 8 bytes, each a bit vector indexed by CSI (bit 0 NVM, bit 1
 * Key Value, bit 2 Zoned Namespace). The I/O Command Set Profile feature (19h) selects one by its index.
 */
public final class IoCommandSets {
    public static final int SIZE = 4096;
    public static final int MAX_COMBINATIONS = SIZE / 8;

    private IoCommandSets() {
    }

    /** The combination vector of the given CSIs. */
    public static long vector(int... csis) {
        long v = 0;
        for (int csi : csis) {
            if (csi < 0 || csi > 63) {
                throw new IllegalArgumentException("CSI " + csi);
            }
            v |= 1L << csi;
        }
        return v;
    }

    /** The data structure with {@code combinations} at indexes 0, 1, …; the rest zero (no combination). */
    public static void encode(ByteBuf out, List<Long> combinations) {
        if (combinations.size() > MAX_COMBINATIONS) {
            throw new IllegalArgumentException("at most 512 combinations");
        }
        int i = out.writerIndex();
        out.writeZero(SIZE);
        for (int k = 0; k < combinations.size(); k++) {
            out.setLongLE(i + 8 * k, combinations.get(k));
        }
    }
}
