package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * I/O Management Receive (12h) and I/O Management Send (1Dh) (NVMe Base 2.1, TP4146): CDW10 bits 7:0 MO (management
 * operation), 31:16 MOS (operation specific); Receive has NUMD, the 0's based dword count of the data, in CDW11. MO 01h
 * is Reclaim Unit Handle Status (Receive) and Reclaim Unit Handle Update (Send, MOS = NPID: placement identifiers in
 * the data, 0's based, 2 bytes each). MO 00h is a no-op either way.
 *
 * @param opcode {@link #RECEIVE} or {@link #SEND}
 * @param mo     management operation
 * @param mos    management operation specific
 * @param numd   Receive: NUMD (0's based dwords); Send: 0
 */
public record IoManagementCommand(int opcode, int cid, int nsid, int mo, int mos, long numd, SglDescriptor dptr) {
    public static final int RECEIVE = 0x12;
    public static final int SEND = 0x1D;
    public static final int MO_NOP = 0x00;
    /** Receive: Reclaim Unit Handle Status. */
    public static final int MO_RUH_STATUS = 0x01;
    /** Send: Reclaim Unit Handle Update. */
    public static final int MO_RUH_UPDATE = 0x01;

    public static Parsed<IoManagementCommand> parse(Sqe sqe) {
        if (sqe.opcode() != RECEIVE && sqe.opcode() != SEND) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw10 = sqe.cdw10();
        long numd = sqe.opcode() == RECEIVE ? Integer.toUnsignedLong(sqe.cdw11()) : 0;
        return Parsed.ok(new IoManagementCommand(sqe.opcode(), sqe.cid(), sqe.nsid(), cdw10 & 0xFF,
                cdw10 >>> 16, numd, sqe.dptr()));
    }

    /** Receive: the bytes the host asked for, (NUMD + 1) × 4. */
    public long transferLength() {
        return (numd + 1) * 4;
    }

    /** Send with MO 01h: how many placement identifiers the data holds (NPID + 1). */
    public int placementIdentifierCount() {
        return mos + 1;
    }

    /** The data length a Send with MO 01h carries. */
    public int updateDataLength() {
        return 2 * placementIdentifierCount();
    }

    /**
     * The placement identifiers of a Reclaim Unit Handle Update's data, read from the reader index (not consumed);
     * INVALID_FIELD when the data holds fewer than NPID + 1 of them.
     */
    public Parsed<List<Integer>> placementIdentifiers(ByteBuf data) {
        int count = placementIdentifierCount();
        if (data.readableBytes() < 2 * count) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        List<Integer> pids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            pids.add(data.getUnsignedShortLE(data.readerIndex() + 2 * i));
        }
        return Parsed.ok(List.copyOf(pids));
    }

    /** The SQE a host sends (test initiators). */
    public Sqe toSqe() {
        return Sqe.of(opcode, cid, nsid, dptr, mo | mos << 16, opcode == RECEIVE ? (int) numd : 0);
    }
}
