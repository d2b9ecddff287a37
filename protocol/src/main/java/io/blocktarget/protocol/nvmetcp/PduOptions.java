package io.blocktarget.protocol.nvmetcp;

/**
 * What the ICReq/ICResp exchange negotiated for one direction of a connection (NVMe/TCP §3.6.2.2/3): header
 * and data digests (the same both ways) and the PDU data alignment the receiver asked for — HPDA for PDUs the
 * controller sends, CPDA for PDUs the host sends (0's based, in dwords: data starts at a multiple of
 * (PDA+1)×4 bytes).
 */
public record PduOptions(boolean headerDigest, boolean dataDigest, int pda) {
    /** Before and during initialization: no digests, no padding. */
    public static final PduOptions NONE = new PduOptions(false, false, 0);
    public static final int DIGEST_LENGTH = 4;
    /** Largest PDA value (§3.6.2.2: HPDA/CPDA 0..31). */
    public static final int MAX_PDA = 31;

    public PduOptions {
        if (pda < 0 || pda > MAX_PDA) {
            throw new IllegalArgumentException("PDA " + pda + " outside 0.." + MAX_PDA);
        }
    }

    public int headerDigestLength() {
        return headerDigest ? DIGEST_LENGTH : 0;
    }

    public int dataDigestLength() {
        return dataDigest ? DIGEST_LENGTH : 0;
    }

    /** Alignment of PDU data in bytes. */
    public int alignment() {
        return (pda + 1) * 4;
    }

    /**
     * PDO for a PDU of this type carrying data: header, header digest, then PAD up to the alignment
     * (§3.5.2 "PDU Data Alignment"). Digests and alignment apply only to digestible PDU types.
     */
    public int dataOffset(NvmeTcpPduType type) {
        if (!type.digestible()) {
            return type.hlen();
        }
        int end = type.hlen() + headerDigestLength();
        int a = alignment();
        return (end + a - 1) / a * a;
    }

    /** The FLAGS digest bits for a PDU of {@code type}, with or without data. */
    public int digestFlags(NvmeTcpPduType type, boolean withData) {
        if (!type.digestible()) {
            return 0;
        }
        return (headerDigest ? NvmeTcpHeader.FLAG_HDGSTF : 0)
                | (dataDigest && withData ? NvmeTcpHeader.FLAG_DDGSTF : 0);
    }

    /** PLEN of a PDU of {@code type} carrying {@code dataLength} bytes of data. */
    public long plen(NvmeTcpPduType type, int dataLength) {
        if (dataLength == 0) {
            return type.hlen() + (type.digestible() ? headerDigestLength() : 0);
        }
        return dataOffset(type) + (long) dataLength + (type.digestible() ? dataDigestLength() : 0);
    }
}
