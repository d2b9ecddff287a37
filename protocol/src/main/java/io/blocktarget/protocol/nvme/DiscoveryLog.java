package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Discovery Log Page, LID 70h (Base §5.16.1.23): a 1024-byte header — GENCTR (0..7), NUMREC (8..15), RECFMT
 * (16..17) — followed by NUMREC 1024-byte entries. Hosts read the header, then the whole page, then the header
 * again to see GENCTR unchanged; use {@link LogPages#slice} for each chunk.
 */
public record DiscoveryLog(long genctr, List<Entry> entries) {
    public static final int HEADER_SIZE = 1024;
    public static final int ENTRY_SIZE = 1024;
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    public DiscoveryLog {
        entries = List.copyOf(entries);
    }

    public int size() {
        return HEADER_SIZE + ENTRY_SIZE * entries.size();
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(HEADER_SIZE);
        out.setLongLE(i, genctr);
        out.setLongLE(i + 8, entries.size());
        out.setShortLE(i + 16, 0);
        for (Entry e : entries) {
            e.encode(out);
        }
    }

    /**
     * One Discovery Log Page Entry (Base Figure "Discovery Log Page Entry"): TRTYPE (0), ADRFAM (1), SUBTYPE (2),
     * TREQ (3), PORTID (4..5), CNTLID (6..7, FFFFh dynamic), ASQSZ (8..9), EFLAGS (10..11), TRSVCID (32..63, ASCII
     * space padded), SUBNQN (256..511), TRADDR (512..767, ASCII space padded), TSAS (768..1023; for TCP byte 0 is
     * SECTYPE).
     */
    public record Entry(int trtype, int adrfam, int subtype, int treq, int portid, int cntlid, int asqsz,
                        int eflags, String trsvcid, String subnqn, String traddr, int sectype) {
        public static final int TRTYPE_TCP = 3;
        public static final int ADRFAM_IPV4 = 1;
        public static final int ADRFAM_IPV6 = 2;
        /** SUBTYPE: referral to another discovery subsystem, NVM subsystem, current discovery subsystem. */
        public static final int SUBTYPE_DISCOVERY_REFERRAL = 1;
        public static final int SUBTYPE_NVME = 2;
        public static final int SUBTYPE_CURRENT_DISCOVERY = 3;
        /** TREQ bits 1:0: secure channel not specified / required / not required; bit 2: SQ flow control may be disabled. */
        public static final int TREQ_NOT_SPECIFIED = 0;
        public static final int TREQ_REQUIRED = 1;
        public static final int TREQ_NOT_REQUIRED = 2;
        public static final int TREQ_DISABLE_SQFLOW = 1 << 2;
        /** TSAS SECTYPE for TCP (NVMe/TCP Transport "Transport Specific Address Subtype"): no security, TLS 1.3. */
        public static final int SECTYPE_NONE = 0;
        public static final int SECTYPE_TLS13 = 2;
        public static final int CNTLID_DYNAMIC = 0xFFFF;

        /** A TCP entry for a subsystem reachable at {@code traddr}:{@code port}. */
        public static Entry tcp(int subtype, int adrfam, int portid, String traddr, int port, String subnqn,
                                int asqsz) {
            return tcp(subtype, adrfam, portid, traddr, port, subnqn, asqsz, TREQ_NOT_SPECIFIED, SECTYPE_NONE);
        }

        /**
         * The same with the secure-channel part of TREQ (bits 1:0: {@link #TREQ_NOT_SPECIFIED}, {@link #TREQ_REQUIRED}
         * or {@link #TREQ_NOT_REQUIRED}) and the TSAS SECTYPE; SQ flow control may always be disabled.
         */
        public static Entry tcp(int subtype, int adrfam, int portid, String traddr, int port, String subnqn,
                                int asqsz, int secureChannel, int sectype) {
            return new Entry(TRTYPE_TCP, adrfam, subtype, secureChannel | TREQ_DISABLE_SQFLOW, portid,
                    CNTLID_DYNAMIC, asqsz, 0, Integer.toString(port), subnqn, traddr, sectype);
        }

        public void encode(ByteBuf out) {
            int i = out.writerIndex();
            out.writeZero(ENTRY_SIZE);
            out.setByte(i, trtype);
            out.setByte(i + 1, adrfam);
            out.setByte(i + 2, subtype);
            out.setByte(i + 3, treq);
            out.setShortLE(i + 4, portid);
            out.setShortLE(i + 6, cntlid);
            out.setShortLE(i + 8, asqsz);
            out.setShortLE(i + 10, eflags);
            WireText.setSpacePadded(out, i + 32, trsvcid, 32);
            WireText.setNulPadded(out, i + 256, subnqn, WireText.NQN_FIELD);
            WireText.setSpacePadded(out, i + 512, traddr, 256);
            out.setByte(i + 768, sectype);
        }

        /** Reads 1024 bytes at absolute {@code i}, for test initiators. */
        public static Entry get(ByteBuf b, int i) {
            return new Entry(b.getUnsignedByte(i), b.getUnsignedByte(i + 1), b.getUnsignedByte(i + 2),
                    b.getUnsignedByte(i + 3), b.getUnsignedShortLE(i + 4), b.getUnsignedShortLE(i + 6),
                    b.getUnsignedShortLE(i + 8), b.getUnsignedShortLE(i + 10), WireText.getSpacePadded(b, i + 32, 32),
                    WireText.getNulTerminated(b, i + 256, WireText.NQN_FIELD), WireText.getSpacePadded(b, i + 512, 256),
                    b.getUnsignedByte(i + 768));
        }
    }
}
