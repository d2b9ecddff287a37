package io.blocktarget.nvme;

import io.blocktarget.block.InFlight;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.DataPlacementDirective;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

/**
 * The NVMe side of the device trace (DESIGN §10), the trace record of one {@link NvmeRequest}: {@link #begin} is
 * called once per I/O command addressed to an active namespace; with tracing off it returns null (one volatile read,
 * nothing allocated), with tracing on a record that decodes the SQE at arrival; the request's completion function
 * {@link #record}s it in the LUN's {@link Tracer}.
 *
 * <p>Decoded (NVM Command Set §3.2): SLBA (CDW10..11) and NLB (CDW12 bits 15:0, 0's based) of Read, Write, Compare,
 * Write Zeroes, Verify and Write Uncorrectable, FUA (CDW12 bit 30) of those that have it; Dataset Management's ranges
 * (first range's SLBA, all ranges' length; Deallocate = CDW11 bit 2 makes it an unmap); Copy's SDLBA; FUSE
 * (Base §4.1 CDW0 bits 9:8). Zoned (ZNS §3.4): Zone Append as ZSLBA / NLB / FUA, recorded at the LBA its completion
 * returns; Zone Management Send / Receive with their SLBA.
 */
final class NvmeTrace {
    private final Tracer tracer;
    private final long arrival;
    private final String initiator;
    private final String connection;
    private final int queue;
    private final int cid;
    private final int opcode;
    private final String op;
    private final IoKind kind;
    private final long lba;
    private final long blocks;
    private final int flags;
    private final int queueDepth;
    private final int placement;

    /** Null when the namespace is not traced, else the command's record, decoded now. */
    static NvmeTrace begin(LunState state, InFlight inFlight, Controller controller, int qid, Sqe sqe,
                           ByteBuf dataOut) {
        Tracer tracer = state.tracer();
        if (tracer == null) {
            return null;
        }
        return new NvmeTrace(tracer, controller, qid, sqe, dataOut,
                (int) Math.min(Integer.MAX_VALUE, inFlight.count()));
    }

    private NvmeTrace(Tracer tracer, Controller controller, int qid, Sqe sqe, ByteBuf dataOut, int queueDepth) {
        this.arrival = tracer.nanoTime();
        this.tracer = tracer;
        this.queueDepth = queueDepth;
        this.initiator = controller.hostNqn();
        this.connection = "cntlid " + controller.cntlid();
        this.queue = qid;
        this.cid = sqe.cid();
        this.opcode = sqe.opcode();
        this.op = name(opcode);
        long slba = Integer.toUnsignedLong(sqe.cdw10()) | (long) sqe.cdw11() << 32;
        long nlb = (sqe.cdw12() & 0xFFFF) + 1L;
        boolean fua = (sqe.cdw12() & (1 << 30)) != 0;
        long l = -1;
        long n = 0;
        int f = sqe.fuse() == 1 ? TraceRecord.FUSE_FIRST : sqe.fuse() == 2 ? TraceRecord.FUSE_SECOND : 0;
        IoKind k = IoKind.OTHER;
        switch (opcode) {
            case 0x00 -> k = IoKind.FLUSH;
            case 0x01, 0x02, 0x05, 0x08, 0x0C, 0x04 -> {
                k = switch (opcode) {
                    case 0x01 -> IoKind.WRITE;
                    case 0x02 -> IoKind.READ;
                    case 0x05 -> IoKind.COMPARE;
                    case 0x08 -> IoKind.WRITE_ZEROES;
                    case 0x0C -> IoKind.VERIFY;
                    default -> IoKind.OTHER;   // Write Uncorrectable
                };
                l = slba;
                n = nlb;
                if (fua && opcode != 0x04) {
                    f |= TraceRecord.FUA;
                }
            }
            case 0x09 -> {   // Dataset Management: NR (CDW10 7:0, 0's based) ranges of 16 bytes (§3.2.3)
                k = (sqe.cdw11() & 0x4) != 0 ? IoKind.UNMAP : IoKind.OTHER;
                int ranges = (sqe.cdw10() & 0xFF) + 1;
                if (dataOut != null) {
                    int base = dataOut.readerIndex();
                    int count = Math.min(ranges, dataOut.readableBytes() / 16);
                    for (int r = 0; r < count; r++) {
                        int at = base + r * 16;
                        if (l < 0) {
                            l = dataOut.getLongLE(at + 8);
                        }
                        n += dataOut.getUnsignedIntLE(at + 4);
                    }
                }
            }
            case 0x19 -> {   // Copy: the destination
                k = IoKind.COPY;
                l = slba;
            }
            case 0x7D -> {   // Zone Append (ZNS §3.4.1): ZSLBA, NLB and FUA where Write has them; see record()
                k = IoKind.ZONE_APPEND;
                l = slba;
                n = nlb;
                if (fua) {
                    f |= TraceRecord.FUA;
                }
            }
            case 0x79, 0x7A -> {   // Zone Management Send / Receive (ZNS §3.4.3 / §3.4.2): SLBA, no blocks
                k = IoKind.ZONE_MANAGEMENT;
                l = slba;
            }
            default -> {
                // reservations and others: no LBA
            }
        }
        this.kind = k;
        this.lba = l;
        this.blocks = n;
        this.flags = f;
        // TP4146: DTYPE 2 (CDW12 23:20) / DSPEC (CDW13 31:16) of the commands that write
        DataPlacementDirective d = DataPlacementDirective.of(sqe.cdw12(), sqe.cdw13());
        this.placement = (opcode == 0x01 || opcode == 0x08 || opcode == 0x19) && d.isDataPlacement() ? d.dspec() : -1;
    }

    /** The NVM Command Set's name of an I/O command ({@code 0x85} if unknown). */
    static String name(int opcode) {
        return switch (opcode) {
            case 0x00 -> "Flush";
            case 0x01 -> "Write";
            case 0x02 -> "Read";
            case 0x04 -> "Write Uncorrectable";
            case 0x05 -> "Compare";
            case 0x08 -> "Write Zeroes";
            case 0x09 -> "Dataset Management";
            case 0x0C -> "Verify";
            case 0x0D -> "Reservation Register";
            case 0x0E -> "Reservation Report";
            case 0x11 -> "Reservation Acquire";
            case 0x15 -> "Reservation Release";
            case 0x19 -> "Copy";
            case 0x79 -> "Zone Management Send";
            case 0x7A -> "Zone Management Receive";
            case 0x7D -> "Zone Append";
            default -> String.format("0x%02X", opcode);
        };
    }

    /**
     * Records the completed command: {@code raw} (a fault rule's exact Status Field) as the host sees it, named by its
     * row if it has one, else {@code status}. A Zone Append that succeeded records where its blocks went: the LBA in
     * DW0 / DW1 (ZNS §3.4.1), not ZSLBA.
     */
    void record(CqeStatus raw, NvmeStatus status, int dw0, int dw1) {
        if (raw != null) {
            NvmeStatus named = NvmeStatus.of(raw.sct(), raw.sc());
            String name = named != null ? named.name().replace('_', ' ')
                    : String.format("SCT %Xh SC %02Xh", raw.sct(), raw.sc());
            tracer.record(arrival, TraceRecord.Protocol.NVME, initiator, connection, queue, cid, opcode, op, kind,
                    lba, blocks, flags, queueDepth, name, false, -1, -1, -1, raw.sct(), raw.sc(), raw.dnr(), placement);
            return;
        }
        long recorded = kind == IoKind.ZONE_APPEND && status.isSuccess()
                ? Integer.toUnsignedLong(dw0) | (long) dw1 << 32 : lba;
        tracer.record(arrival, TraceRecord.Protocol.NVME, initiator, connection, queue, cid, opcode, op, kind, recorded,
                blocks, flags, queueDepth, status.name().replace('_', ' '), status.isSuccess(), -1, -1, -1,
                status.sct().code(), status.sc(), status.dnr(), placement);
    }
}
