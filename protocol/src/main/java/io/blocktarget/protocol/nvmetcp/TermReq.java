package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;

/**
 * H2CTermReq / C2HTermReq (NVMe/TCP §3.6.2.4/5): FES (8..9), FEI (10..13, not dword aligned), reserved 14..23,
 * then the header of the PDU in error. No digests, PDO 0. The copy is capped so PLEN stays within 152 bytes, the
 * largest TermReq Linux accepts.
 */
public record TermReq(NvmeTcpPduType type, int fes, long fei, byte[] offendingHeader) implements NvmeTcpPdu {
    public static final int OFFSET_FES = 8;
    public static final int OFFSET_FEI = 10;
    public static final int MAX_HEADER_COPY = NvmeTcpFraming.MAX_TERM_REQ_PLEN - 24;

    public TermReq {
        if (!type.isTermReq() || offendingHeader.length > MAX_HEADER_COPY) {
            throw new IllegalArgumentException("not a TermReq or header copy over " + MAX_HEADER_COPY);
        }
        offendingHeader = offendingHeader.clone();
    }

    /**
     * The C2HTermReq a controller sends for {@code error}, copying the header (HLEN plus any header digest, at
     * most {@link #MAX_HEADER_COPY} bytes) of the offending PDU at the reader index of {@code received}.
     */
    public static TermReq c2h(NvmeTcpProtocolException error, ByteBuf received) {
        int fes = error.reason().fes().orElseThrow(() -> new IllegalArgumentException(error.reason() + " has no FES"));
        return new TermReq(NvmeTcpPduType.C2H_TERM_REQ, fes, error.reason().feiIsOffset() ? error.fei() : 0,
                headerCopy(received));
    }

    static byte[] headerCopy(ByteBuf received) {
        int n = received.readableBytes();
        if (n >= NvmeTcpHeader.SIZE) {
            NvmeTcpHeader ch = NvmeTcpHeader.peek(received);
            n = Math.min(n, ch.hlen() + (ch.has(NvmeTcpHeader.FLAG_HDGSTF) ? PduOptions.DIGEST_LENGTH : 0));
        }
        byte[] copy = new byte[Math.max(0, Math.min(n, MAX_HEADER_COPY))];
        received.getBytes(received.readerIndex(), copy);
        return copy;
    }

    static TermReq get(ByteBuf buf, int i, NvmeTcpPduType type, NvmeTcpHeader ch) throws NvmeTcpProtocolException {
        long copyLength = ch.plen() - ch.hlen();
        if (copyLength > MAX_HEADER_COPY) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN, "TermReq PLEN " + ch.plen());
        }
        byte[] copy = new byte[(int) copyLength];
        buf.getBytes(i + ch.hlen(), copy);
        return new TermReq(type, buf.getUnsignedShortLE(i + OFFSET_FES), buf.getUnsignedIntLE(i + OFFSET_FEI), copy);
    }

    @Override
    public byte[] offendingHeader() {
        return offendingHeader.clone();
    }

    /** The reason, or null for an FES we do not know. */
    public NvmeTcpFatalError reason() {
        return NvmeTcpFatalError.ofFes(fes);
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        PduCodec.begin(out, type, 0, PduOptions.NONE, offendingHeader.length);
        out.writeShortLE(fes).writeIntLE((int) fei).writeZero(10).writeBytes(offendingHeader);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TermReq(NvmeTcpPduType t, int f, long e, byte[] h) && t == type && f == fes && e == fei
                && Arrays.equals(h, offendingHeader);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + fes * 17 + Long.hashCode(fei) + Arrays.hashCode(offendingHeader);
    }

    @Override
    public String toString() {
        return "TermReq[" + type + ", fes=" + fes + ", fei=" + fei + ", header " + offendingHeader.length + " bytes]";
    }
}
