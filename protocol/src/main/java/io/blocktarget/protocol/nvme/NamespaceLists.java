package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * The Identify lists: Active Namespace ID list (CNS 02h, Base §5.17.2.2) and Namespace Identification Descriptor
 * list (CNS 03h, Base §5.17.2.3), both 4096 bytes, zero padded.
 */
public final class NamespaceLists {
    public static final int SIZE = 4096;
    public static final int MAX_IDS = SIZE / 4;
    /** NIDT values (Base Figure "Namespace Identifier Type Values"). */
    public static final int NIDT_EUI64 = 1;
    public static final int NIDT_NGUID = 2;
    public static final int NIDT_UUID = 3;
    public static final int NIDT_CSI = 4;

    private NamespaceLists() {
    }

    /**
     * Active namespace IDs strictly greater than {@code afterNsid}, ascending, at most 1024 (CNS 02h: the list
     * starts after the NSID in the command; FFFFFFFEh and FFFFFFFFh return an empty list). {@code activeNsids}
     * need not be sorted.
     */
    public static void encodeActiveNamespaces(ByteBuf out, List<Integer> activeNsids, int afterNsid) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        long after = Integer.toUnsignedLong(afterNsid);
        long[] ids = activeNsids.stream().mapToLong(Integer::toUnsignedLong).filter(n -> n > after && n != 0)
                .sorted().limit(MAX_IDS).toArray();
        for (int k = 0; k < ids.length; k++) {
            out.setIntLE(i + 4 * k, (int) ids[k]);
        }
    }

    /** One Namespace Identification Descriptor: NIDT (0), NIDL (1), reserved (2..3), NID (4..). */
    public record Descriptor(int nidt, byte[] nid) {
        public Descriptor {
            nid = nid.clone();
        }

        @Override
        public byte[] nid() {
            return nid.clone();
        }

        public static Descriptor eui64(byte[] eui64) {
            return check(NIDT_EUI64, eui64, 8);
        }

        public static Descriptor nguid(byte[] nguid) {
            return check(NIDT_NGUID, nguid, 16);
        }

        public static Descriptor uuid(byte[] uuid) {
            return check(NIDT_UUID, uuid, 16);
        }

        /** Command Set Identifier: 0 = NVM. */
        public static Descriptor csi(int csi) {
            return new Descriptor(NIDT_CSI, new byte[] {(byte) csi});
        }

        private static Descriptor check(int nidt, byte[] nid, int length) {
            if (nid.length != length) {
                throw new IllegalArgumentException("NIDT " + nidt + " is " + length + " bytes");
            }
            return new Descriptor(nidt, nid);
        }
    }

    /** The descriptor list; a zero NIDT ends it (the zero padding). */
    public static void encodeDescriptors(ByteBuf out, List<Descriptor> descriptors) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        int p = i;
        for (Descriptor d : descriptors) {
            out.setByte(p, d.nidt());
            out.setByte(p + 1, d.nid.length);
            out.setBytes(p + 4, d.nid);
            p += 4 + d.nid.length;
        }
    }
}
