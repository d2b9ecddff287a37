package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Copy (19h) (NVM Command Set §3.2.2 "Copy command"): CDW10..11 SDLBA (destination), CDW12 bits 7:0 NR (0's based
 * number of source ranges), 11:8 DESFMT (source range entry format), 15:12 PRINFOR, 29:26 PRINFOW, 30 FUA,
 * 31 LR. The data is NR + 1 source range entries of 32 bytes in format 0 (Figure "Source Range Entries Copy
 * Descriptor Format 0h"): SLBA at 8..15, NLB (0's based) at 16..17.
 */
public record CopyCommand(int cid, int nsid, long sdlba, int nr, int desfmt, boolean fua, boolean lr,
                          SglDescriptor dptr) {
    public static final int DESCRIPTOR_FORMAT_0 = 0;
    public static final int RANGE_SIZE = 32;
    /** Status the NVM Command Set gives to a copy over MSRC, MSSRL or MCL (SCT 1h SC 83h). */
    public static final NvmeStatus SIZE_LIMIT_EXCEEDED = NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED;

    public int ranges() {
        return nr + 1;
    }

    public int dataLength() {
        return ranges() * RANGE_SIZE;
    }

    /**
     * Parses the command: protection information (PRINFOR / PRINFOW) on a namespace without it and a
     * descriptor format other than 0 are Invalid Field; an SGL shorter than the ranges is Data SGL Length Invalid.
     */
    public static Parsed<CopyCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.COPY.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw12 = sqe.cdw12();
        int prinfor = cdw12 >>> 12 & 0xF;
        int prinfow = cdw12 >>> 26 & 0xF;
        int desfmt = cdw12 >>> 8 & 0xF;
        if (prinfor != 0 || prinfow != 0 || desfmt != DESCRIPTOR_FORMAT_0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        CopyCommand c = new CopyCommand(sqe.cid(), sqe.nsid(), ReadWriteCommand.slba(sqe), cdw12 & 0xFF, desfmt,
                (cdw12 & ReadWriteCommand.CDW12_FUA) != 0, (cdw12 & ReadWriteCommand.CDW12_LR) != 0, sqe.dptr());
        NvmeStatus sgl = c.dptr.validate(-1, Integer.MAX_VALUE);
        if (!sgl.isSuccess()) {
            return Parsed.invalid(sgl);
        }
        if (c.dptr.lengthUnsigned() < c.dataLength()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    /** The source ranges in {@code data} (readable bytes, not consumed); short data is Data SGL Length Invalid. */
    public Parsed<List<SourceRange>> parseRanges(ByteBuf data) {
        if (data.readableBytes() < dataLength()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        List<SourceRange> list = new ArrayList<>(ranges());
        for (int k = 0; k < ranges(); k++) {
            list.add(SourceRange.get(data, data.readerIndex() + k * RANGE_SIZE));
        }
        return Parsed.ok(List.copyOf(list));
    }

    /** One format-0 source range: SLBA and NLB (0's based). */
    public record SourceRange(long slba, int nlb) {
        public static SourceRange get(ByteBuf buf, int index) {
            return new SourceRange(buf.getLongLE(index + 8), buf.getUnsignedShortLE(index + 16));
        }

        public int blocks() {
            return nlb + 1;
        }

        public void encode(ByteBuf out) {
            out.writeZero(8).writeLongLE(slba).writeShortLE(nlb).writeZero(RANGE_SIZE - 18);
        }
    }

    /** The SQE a host sends (for test initiators). */
    public Sqe toSqe() {
        return Sqe.of(NvmOpcode.COPY.code(), cid, nsid, dptr, (int) sdlba, (int) (sdlba >>> 32),
                nr | desfmt << 8 | (fua ? ReadWriteCommand.CDW12_FUA : 0) | (lr ? ReadWriteCommand.CDW12_LR : 0));
    }

    /**
     * The Copy fields of the NVM Identify Namespace (CNS 00h, NVM Command Set §4.1.5.1): MSSRL (bytes 74..75, the
     * longest source range, in logical blocks), MCL (76..79, the most blocks of one Copy), MSRC (80, the most source
     * ranges, 0's based). Written into an encoded Identify Namespace structure at {@code index}.
     */
    public record Limits(int mssrl, long mcl, int msrc) {
        public static final int OFFSET_MSSRL = 74;
        public static final int OFFSET_MCL = 76;
        public static final int OFFSET_MSRC = 80;

        public void setInto(ByteBuf identifyNamespace, int index) {
            identifyNamespace.setShortLE(index + OFFSET_MSSRL, mssrl);
            identifyNamespace.setIntLE(index + OFFSET_MCL, (int) mcl);
            identifyNamespace.setByte(index + OFFSET_MSRC, msrc);
        }

        public static Limits get(ByteBuf identifyNamespace) {
            int i = identifyNamespace.readerIndex();
            return new Limits(identifyNamespace.getUnsignedShortLE(i + OFFSET_MSSRL),
                    identifyNamespace.getUnsignedIntLE(i + OFFSET_MCL), identifyNamespace.getUnsignedByte(i + OFFSET_MSRC));
        }
    }
}
