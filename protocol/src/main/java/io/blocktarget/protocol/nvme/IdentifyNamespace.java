package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.List;

/**
 * Identify Namespace data structure for the NVM Command Set, CNS 00h, exactly 4096 bytes (NVM Command Set
 * §4.1.5.1, Figure "Identify - Identify Namespace Data Structure, NVM Command Set"). Sizes are in logical blocks,
 * the NAWUN..NOWS fields 0's based. NLBAF (byte 25) is derived from the number of LBA formats (0's based).
 */
public record IdentifyNamespace(long nsze, long ncap, long nuse, int nsfeat, int flbas, int nmic, int dlfeat,
                                int nawun, int nawupf, int nacwu, int nabspf, int noiob, int npwg, int npwa,
                                int npdg, int npda, int nows, int anagrpid, int nsattr, byte[] nguid, byte[] eui64,
                                List<LbaFormat> lbaFormats) {
    public static final int SIZE = 4096;
    public static final int OFFSET_NGUID = 104;
    public static final int OFFSET_EUI64 = 120;
    public static final int OFFSET_LBAF = 128;
    /** DLFEAT bits 2:0 = 001b: a deallocated block reads as zeros; bit 3: Write Zeroes supports DEAC. */
    public static final int DLFEAT_READ_ZEROES = 0b001;
    public static final int DLFEAT_WRITE_ZEROES_DEAC = 1 << 3;
    /** NSATTR bit 0: namespace is write protected. */
    public static final int NSATTR_WRITE_PROTECTED = 1;

    public IdentifyNamespace {
        if (nguid.length != 16 || eui64.length != 8 || lbaFormats.isEmpty() || lbaFormats.size() > 64) {
            throw new IllegalArgumentException("NGUID 16 bytes, EUI64 8 bytes, 1..64 LBA formats");
        }
        nguid = nguid.clone();
        eui64 = eui64.clone();
        lbaFormats = List.copyOf(lbaFormats);
    }

    /**
     * The usual shape: a fully provisioned namespace of {@code nsze} blocks, one LBA format, geometry fields
     * from {@code g}, deallocated blocks reading as zeros.
     */
    public static IdentifyNamespace of(long nsze, NamespaceGeometry g, byte[] nguid, byte[] eui64, boolean readOnly) {
        int b = g.blocksPerPhysical();
        return new IdentifyNamespace(nsze, nsze, nsze, g.nsfeat(), 0, 0,
                DLFEAT_READ_ZEROES | DLFEAT_WRITE_ZEROES_DEAC, g.nawun(), g.nawupf(), 0, 0, 0, g.npwg(), g.npwa(),
                g.npdg(), g.npda(), g.nows(), 0, readOnly ? NSATTR_WRITE_PROTECTED : 0, nguid, eui64,
                List.of(new LbaFormat(0, g.lbads(), LbaFormat.RP_BEST)));
    }

    @Override
    public byte[] nguid() {
        return nguid.clone();
    }

    @Override
    public byte[] eui64() {
        return eui64.clone();
    }

    /** Logical block size of the format FLBAS selects (bits 3:0 and 6:5). */
    public int lbs() {
        int index = flbas & 0xF | (flbas >>> 5 & 0x3) << 4;
        return 1 << lbaFormats.get(index).lbads();
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setLongLE(i, nsze);
        out.setLongLE(i + 8, ncap);
        out.setLongLE(i + 16, nuse);
        out.setByte(i + 24, nsfeat);
        out.setByte(i + 25, lbaFormats.size() - 1);
        out.setByte(i + 26, flbas);
        out.setByte(i + 30, nmic);
        out.setByte(i + 33, dlfeat);
        out.setShortLE(i + 34, nawun);
        out.setShortLE(i + 36, nawupf);
        out.setShortLE(i + 38, nacwu);
        out.setShortLE(i + 44, nabspf);
        out.setShortLE(i + 46, noiob);
        out.setShortLE(i + 64, npwg);
        out.setShortLE(i + 66, npwa);
        out.setShortLE(i + 68, npdg);
        out.setShortLE(i + 70, npda);
        out.setShortLE(i + 72, nows);
        out.setIntLE(i + 92, anagrpid);
        out.setByte(i + 99, nsattr);
        out.setBytes(i + OFFSET_NGUID, nguid);
        out.setBytes(i + OFFSET_EUI64, eui64);
        for (int k = 0; k < lbaFormats.size(); k++) {
            out.setIntLE(i + OFFSET_LBAF + 4 * k, lbaFormats.get(k).encode());
        }
    }

    /** Reads the 4096 bytes at the reader index (not consumed), for test initiators. */
    public static IdentifyNamespace get(ByteBuf b) {
        int i = b.readerIndex();
        int n = b.getUnsignedByte(i + 25) + 1;
        LbaFormat[] f = new LbaFormat[Math.min(n, 64)];
        for (int k = 0; k < f.length; k++) {
            f[k] = LbaFormat.decode(b.getIntLE(i + OFFSET_LBAF + 4 * k));
        }
        byte[] nguid = new byte[16];
        byte[] eui = new byte[8];
        b.getBytes(i + OFFSET_NGUID, nguid);
        b.getBytes(i + OFFSET_EUI64, eui);
        return new IdentifyNamespace(b.getLongLE(i), b.getLongLE(i + 8), b.getLongLE(i + 16), b.getUnsignedByte(i + 24),
                b.getUnsignedByte(i + 26), b.getUnsignedByte(i + 30), b.getUnsignedByte(i + 33),
                b.getUnsignedShortLE(i + 34), b.getUnsignedShortLE(i + 36), b.getUnsignedShortLE(i + 38),
                b.getUnsignedShortLE(i + 44), b.getUnsignedShortLE(i + 46), b.getUnsignedShortLE(i + 64),
                b.getUnsignedShortLE(i + 66), b.getUnsignedShortLE(i + 68), b.getUnsignedShortLE(i + 70),
                b.getUnsignedShortLE(i + 72), b.getIntLE(i + 92), b.getUnsignedByte(i + 99), nguid, eui, List.of(f));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdentifyNamespace n && nsze == n.nsze && ncap == n.ncap && nuse == n.nuse
                && nsfeat == n.nsfeat && flbas == n.flbas && nmic == n.nmic && dlfeat == n.dlfeat && nawun == n.nawun
                && nawupf == n.nawupf && nacwu == n.nacwu && nabspf == n.nabspf && noiob == n.noiob && npwg == n.npwg
                && npwa == n.npwa && npdg == n.npdg && npda == n.npda && nows == n.nows && anagrpid == n.anagrpid
                && nsattr == n.nsattr && Arrays.equals(nguid, n.nguid) && Arrays.equals(eui64, n.eui64)
                && lbaFormats.equals(n.lbaFormats);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(nsze) * 31 + Arrays.hashCode(nguid);
    }

    /** LBA Format (NVM Command Set Figure "LBA Format Data Structure"): MS bits 15:0, LBADS 23:16, RP 25:24. */
    public record LbaFormat(int ms, int lbads, int rp) {
        public static final int RP_BEST = 0;

        public int encode() {
            return ms & 0xFFFF | (lbads & 0xFF) << 16 | (rp & 0x3) << 24;
        }

        public static LbaFormat decode(int v) {
            return new LbaFormat(v & 0xFFFF, v >>> 16 & 0xFF, v >>> 24 & 0x3);
        }
    }
}
