package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Completion Queue Entry, 16 bytes little-endian (Base §4.2.1, Figure "Common Completion Queue Entry Layout"):
 * DW0 (0..3), DW1 (4..7), SQHD (8..9), SQID (10..11), CID (12..13), status with phase tag (14..15).
 */
public record Cqe(int dw0, int dw1, int sqhd, int sqid, int cid, int phase, CqeStatus status) {
    public static final int SIZE = 16;

    public Cqe {
        if ((sqhd & ~0xFFFF) != 0 || (sqid & ~0xFFFF) != 0 || (cid & ~0xFFFF) != 0 || (phase & ~1) != 0) {
            throw new IllegalArgumentException("CQE field out of range");
        }
    }

    /** A completion for {@code cid} with the status of {@code reason} (phase 0: fabrics do not use it). */
    public static Cqe of(int cid, int sqid, int sqhd, NvmeStatus reason, int dw0) {
        return new Cqe(dw0, 0, sqhd, sqid, cid, 0, reason.toCqeStatus());
    }

    public static Cqe decode(ByteBuf buf) {
        int i = buf.readerIndex();
        Cqe cqe = new Cqe(buf.getIntLE(i), buf.getIntLE(i + 4), buf.getUnsignedShortLE(i + 8),
                buf.getUnsignedShortLE(i + 10), buf.getUnsignedShortLE(i + 12), buf.getUnsignedShortLE(i + 14) & 1,
                CqeStatus.decode(buf.getUnsignedShortLE(i + 14)));
        buf.skipBytes(SIZE);
        return cqe;
    }

    public void encode(ByteBuf out) {
        out.writeIntLE(dw0).writeIntLE(dw1).writeShortLE(sqhd).writeShortLE(sqid).writeShortLE(cid)
                .writeShortLE(status.encode(phase));
    }
}
