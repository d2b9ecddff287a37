package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * The 8-byte PDU common header CH (NVMe/TCP §3.6.1, Figure "PDU Common Header"): PDU-Type (0), FLAGS (1),
 * HLEN (2), PDO (3), PLEN (4..7, little-endian, total PDU length including digests and padding).
 */
public record NvmeTcpHeader(int type, int flags, int hlen, int pdo, long plen) {
    public static final int SIZE = 8;
    public static final int OFFSET_TYPE = 0;
    public static final int OFFSET_FLAGS = 1;
    public static final int OFFSET_HLEN = 2;
    public static final int OFFSET_PDO = 3;
    public static final int OFFSET_PLEN = 4;

    /** FLAGS bit 0: a header digest follows the PDU header. */
    public static final int FLAG_HDGSTF = 1;
    /** FLAGS bit 1: a data digest follows the PDU data. */
    public static final int FLAG_DDGSTF = 1 << 1;
    /** FLAGS bit 2 (H2CData/C2HData): last data PDU of the R2T / of the command's data. */
    public static final int FLAG_LAST_PDU = 1 << 2;
    /** FLAGS bit 3 (C2HData only): the command succeeded; no CapsuleResp follows (§3.6.2.8). */
    public static final int FLAG_SUCCESS = 1 << 3;

    /** Reads the common header at the reader index without consuming it. */
    public static NvmeTcpHeader peek(ByteBuf buf) {
        int i = buf.readerIndex();
        return new NvmeTcpHeader(buf.getUnsignedByte(i), buf.getUnsignedByte(i + 1), buf.getUnsignedByte(i + 2),
                buf.getUnsignedByte(i + 3), buf.getUnsignedIntLE(i + 4));
    }

    public void encode(ByteBuf out) {
        encode(out, type, flags, hlen, pdo, plen);
    }

    /** The same eight bytes without a record: every PDU sent writes one (the record would be one allocation more). */
    public static void encode(ByteBuf out, int type, int flags, int hlen, int pdo, long plen) {
        out.writeByte(type).writeByte(flags).writeByte(hlen).writeByte(pdo).writeIntLE((int) plen);
    }

    public boolean has(int flag) {
        return has(flags, flag);
    }

    /** Whether FLAGS value {@code flags} has {@code flag} set (for a reader of the fields without the record). */
    public static boolean has(int flags, int flag) {
        return (flags & flag) != 0;
    }
}
