package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Dataset Management (09h) (NVM Command Set §3.2.2): CDW10 bits 7:0 NR (0's based number of ranges), CDW11
 * bit 0 IDR, bit 1 IDW, bit 2 AD (deallocate). The data is NR+1 16-byte ranges.
 */
public record DatasetManagementCommand(int cid, int nsid, int nr, boolean idr, boolean idw, boolean ad,
                                       SglDescriptor dptr) {
    public static final int RANGE_SIZE = 16;

    public int ranges() {
        return nr + 1;
    }

    /** Bytes of range data the command carries. */
    public int dataLength() {
        return ranges() * RANGE_SIZE;
    }

    public static Parsed<DatasetManagementCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.DATASET_MANAGEMENT.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int a = sqe.cdw11();
        DatasetManagementCommand c = new DatasetManagementCommand(sqe.cid(), sqe.nsid(), sqe.cdw10() & 0xFF,
                (a & 1) != 0, (a & 2) != 0, (a & 4) != 0, sqe.dptr());
        NvmeStatus sgl = c.dptr.validate(-1, Integer.MAX_VALUE);
        if (!sgl.isSuccess()) {
            return Parsed.invalid(sgl);
        }
        if (c.dptr.lengthUnsigned() < c.dataLength()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    /**
     * Decodes the ranges from {@code data} (readable bytes, not consumed) and checks each against the
     * namespace size. A range of length 0 is allowed and means nothing (§3.2.2.1 leaves it a no-op).
     */
    public Parsed<List<DsmRange>> parseRanges(ByteBuf data, long nsze) {
        if (data.readableBytes() < dataLength()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        List<DsmRange> list = new ArrayList<>(ranges());
        for (int k = 0; k < ranges(); k++) {
            DsmRange r = DsmRange.get(data, data.readerIndex() + k * RANGE_SIZE);
            if (r.length() != 0) {
                NvmeStatus s = ReadWriteCommand.checkRange(r.slba(), r.lengthUnsigned(), nsze);
                if (!s.isSuccess()) {
                    return Parsed.invalid(s);
                }
            }
            list.add(r);
        }
        return Parsed.ok(List.copyOf(list));
    }

    /** One range (NVM Command Set Figure "Dataset Management - Range Definition"): Length is a count, not 0's based. */
    public record DsmRange(int contextAttributes, int length, long slba) {
        public static DsmRange get(ByteBuf buf, int index) {
            return new DsmRange(buf.getIntLE(index), buf.getIntLE(index + 4), buf.getLongLE(index + 8));
        }

        public long lengthUnsigned() {
            return Integer.toUnsignedLong(length);
        }

        public void encode(ByteBuf out) {
            out.writeIntLE(contextAttributes).writeIntLE(length).writeLongLE(slba);
        }
    }
}
