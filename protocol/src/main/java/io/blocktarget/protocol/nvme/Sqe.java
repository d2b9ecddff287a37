package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Submission Queue Entry, 64 bytes little-endian (Base §4.1, Figure "Common Command Format"): opcode (0),
 * FUSE bits 1:0 and PSDT bits 7:6 of byte 1, CID (2..3), NSID (4..7), CDW2 (8..11), CDW3 (12..15), MPTR (16..23),
 * DPTR (24..39, an SGL descriptor over fabrics: PSDT must be 01b or 10b), CDW10..CDW15 (40..63).
 * <p>
 * Fabrics commands (opcode 7Fh) put their Fabrics Command Type in byte 4, i.e. the low byte of NSID
 * ({@link #fctype()}); their specific fields are read from the CDWs by the fabrics command records.
 */
public record Sqe(int opcode, int fuse, int psdt, int cid, int nsid, int cdw2, int cdw3, long mptr,
                  SglDescriptor dptr, int cdw10, int cdw11, int cdw12, int cdw13, int cdw14, int cdw15) {
    public static final int SIZE = 64;
    /** CDW0 bytes 2..3: the Command Identifier (Base §4.1). */
    public static final int OFFSET_CID = 2;
    /** Fabrics commands opcode (Base §6.1). */
    public static final int OPCODE_FABRICS = 0x7F;
    /** PSDT 01b: SGLs for data, MPTR is an address (Base §4.1). The Linux TCP host sends this. */
    public static final int PSDT_SGL_MPTR_ADDRESS = 0x1;
    public static final int PSDT_SGL_MPTR_SGL = 0x2;
    /** FUSE (CDW0 bits 9:8, Base §4.1): 00b normal, 01b first and 10b second command of a fused operation; 11b reserved. */
    public static final int FUSE_NONE = 0;
    public static final int FUSE_FIRST = 1;
    public static final int FUSE_SECOND = 2;

    public Sqe {
        if ((opcode & ~0xFF) != 0 || (fuse & ~0x3) != 0 || (psdt & ~0x3) != 0 || (cid & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("SQE field out of range");
        }
    }

    /** This SQE with FUSE = {@code fuse} (test initiators build fused pairs with it). */
    public Sqe withFuse(int fuse) {
        return new Sqe(opcode, fuse, psdt, cid, nsid, cdw2, cdw3, mptr, dptr, cdw10, cdw11, cdw12, cdw13, cdw14, cdw15);
    }

    /** Reads the 64 bytes at absolute {@code index}; the reader index is unchanged. */
    public static Sqe get(ByteBuf buf, int index) {
        int flags = buf.getUnsignedByte(index + 1);
        return new Sqe(buf.getUnsignedByte(index), flags & 0x3, flags >>> 6, buf.getUnsignedShortLE(index + OFFSET_CID),
                buf.getIntLE(index + 4), buf.getIntLE(index + 8), buf.getIntLE(index + 12), buf.getLongLE(index + 16),
                SglDescriptor.get(buf, index + 24), buf.getIntLE(index + 40), buf.getIntLE(index + 44),
                buf.getIntLE(index + 48), buf.getIntLE(index + 52), buf.getIntLE(index + 56),
                buf.getIntLE(index + 60));
    }

    public static Sqe decode(ByteBuf buf) {
        Sqe sqe = get(buf, buf.readerIndex());
        buf.skipBytes(SIZE);
        return sqe;
    }

    public void encode(ByteBuf out) {
        out.writeByte(opcode).writeByte(fuse | psdt << 6).writeShortLE(cid).writeIntLE(nsid).writeIntLE(cdw2)
                .writeIntLE(cdw3).writeLongLE(mptr);
        dptr.encode(out);
        out.writeIntLE(cdw10).writeIntLE(cdw11).writeIntLE(cdw12).writeIntLE(cdw13).writeIntLE(cdw14)
                .writeIntLE(cdw15);
    }

    public boolean isFabrics() {
        return opcode == OPCODE_FABRICS;
    }

    /** Fabrics Command Type, SQE byte 4 (meaningful only when {@link #isFabrics()}). */
    public int fctype() {
        return nsid & 0xFF;
    }

    /** NSID as an unsigned value. */
    public long nsidUnsigned() {
        return Integer.toUnsignedLong(nsid);
    }

    /** A builder-style copy with another set of command dwords, for tests and initiators. */
    public static Sqe of(int opcode, int cid, int nsid, SglDescriptor dptr, int... cdw10to15) {
        int[] c = java.util.Arrays.copyOf(cdw10to15, 6);
        return new Sqe(opcode, 0, PSDT_SGL_MPTR_ADDRESS, cid, nsid, 0, 0, 0, dptr, c[0], c[1], c[2], c[3], c[4],
                c[5]);
    }
}
