package io.blocktarget.scsi;

import io.blocktarget.block.InFlight;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SCSI side of the device trace (DESIGN §10), the trace record of one {@link Task}: {@link #begin} is called once
 * per command that reached a logical unit; with tracing off it returns null (one volatile read, nothing allocated),
 * with tracing on a record that decodes the CDB at arrival; the task's completion function {@link #record}s it in
 * the LUN's {@link Tracer}.
 *
 * <p>What is decoded (SBC-4 §5): LBA and TRANSFER LENGTH of READ / WRITE / WRITE AND VERIFY / VERIFY / WRITE SAME /
 * SYNCHRONIZE CACHE / PRE-FETCH (6, 10, 12, 16), COMPARE AND WRITE (NUMBER OF LOGICAL BLOCKS), WRITE ATOMIC(16), and
 * UNMAP's parameter list (first descriptor's LBA, all descriptors' blocks); DPO and FUA of the commands that have
 * them. A 6-byte READ / WRITE with TRANSFER LENGTH 0 moves 256 blocks (SBC-4 §5.9).
 */
final class ScsiTrace {
    private static final Map<Integer, String> NAMES = new ConcurrentHashMap<>();

    private final Tracer tracer;
    private final long arrival;
    private final String initiator;
    private final String connection;
    private final long tag;
    private final int opcode;
    private final String op;
    private final IoKind kind;
    private final long lba;
    private final long blocks;
    private final int flags;
    private final int queueDepth;
    private final int placement;

    /** Null when the LUN is not traced, else the command's record, decoded now. */
    static ScsiTrace begin(LunState state, InFlight inFlight, ScsiCommand command) {
        Tracer tracer = state.tracer();
        if (tracer == null) {
            return null;
        }
        return new ScsiTrace(tracer, command, (int) Math.min(Integer.MAX_VALUE, inFlight.count()));
    }

    private ScsiTrace(Tracer tracer, ScsiCommand command, int queueDepth) {
        this.arrival = tracer.nanoTime();
        this.tracer = tracer;
        this.queueDepth = queueDepth;
        this.initiator = command.nexus().initiatorPortName();
        this.connection = command.nexus().targetPortName();
        this.tag = command.taskTag();
        ByteBuf cdb = command.cdb();
        int at = cdb.readerIndex();
        int length = cdb.readableBytes();
        this.opcode = length > 0 ? cdb.getUnsignedByte(at) : -1;
        int byte1 = length > 1 ? cdb.getUnsignedByte(at + 1) : 0;
        this.op = name(opcode, byte1);
        long l = -1;
        long n = 0;
        int f = 0;
        IoKind k = IoKind.OTHER;
        switch (opcode) {
            case 0x08, 0x0A -> {   // READ(6), WRITE(6)
                k = opcode == 0x08 ? IoKind.READ : IoKind.WRITE;
                if (length >= 6) {
                    l = (byte1 & 0x1F) << 16 | cdb.getUnsignedShort(at + 2);
                    int t = cdb.getUnsignedByte(at + 4);
                    n = t == 0 ? 256 : t;
                }
            }
            case 0x28, 0x2A, 0x2E, 0x2F, 0x35, 0x41, 0x34 -> {   // 10-byte CDBs
                k = kind10or16(opcode, byte1);
                f = flags(opcode, byte1);
                if (length >= 10) {
                    l = cdb.getUnsignedInt(at + 2);
                    n = cdb.getUnsignedShort(at + 7);
                }
            }
            case 0xA8, 0xAA, 0xAF -> {   // READ(12), WRITE(12), VERIFY(12)
                k = opcode == 0xA8 ? IoKind.READ : opcode == 0xAA ? IoKind.WRITE : IoKind.VERIFY;
                f = flags(opcode, byte1);
                if (length >= 12) {
                    l = cdb.getUnsignedInt(at + 2);
                    n = cdb.getUnsignedInt(at + 6);
                }
            }
            case 0x88, 0x8A, 0x8B, 0x8E, 0x8F, 0x91, 0x93, 0x90 -> {   // 16-byte CDBs (8Bh: ORWRITE)
                k = kind10or16(opcode, byte1);
                f = flags(opcode, byte1);
                if (length >= 16) {
                    l = cdb.getLong(at + 2);
                    n = cdb.getUnsignedInt(at + 10);
                }
            }
            case 0x89 -> {   // COMPARE AND WRITE (SBC-4 §5.3)
                k = IoKind.COMPARE;
                f = flags(opcode, byte1);
                if (length >= 16) {
                    l = cdb.getLong(at + 2);
                    n = cdb.getUnsignedByte(at + 13);
                }
            }
            case 0x9C -> {   // WRITE ATOMIC(16) (SBC-4 §5.48): TRANSFER LENGTH in bytes 12..13
                k = IoKind.ATOMIC_WRITE;
                f = flags(opcode, byte1) | TraceRecord.ATOMIC;
                if (length >= 16) {
                    l = cdb.getLong(at + 2);
                    n = cdb.getUnsignedShort(at + 12);
                }
            }
            case 0x42 -> {   // UNMAP (SBC-4 §5.32): the ranges are in the parameter list
                k = IoKind.UNMAP;
                ByteBuf list = command.dataOut();
                if (list != null && list.readableBytes() >= 8) {
                    int base = list.readerIndex();
                    int end = base + Math.min(list.readableBytes(), 8 + list.getUnsignedShort(base + 2));
                    for (int d = base + 8; d + 16 <= end; d += 16) {
                        if (l < 0) {
                            l = list.getLong(d);
                        }
                        n += list.getUnsignedInt(d + 8);
                    }
                }
            }
            case 0x83 -> k = IoKind.COPY;
            case 0x94, 0x95 -> {   // ZBC OUT (ZONE ID), ZBC IN REPORT ZONES (ZONE START LBA): bytes 2..9 (ZBC-2 §5)
                k = IoKind.ZONE_MANAGEMENT;
                if (length >= 16) {
                    l = cdb.getLong(at + 2);
                }
            }
            default -> {
                // not an LBA command
            }
        }
        this.kind = k;
        this.lba = l;
        this.blocks = n;
        this.flags = f;
        this.placement = groupNumber(opcode, cdb, at, length);
    }

    private static IoKind kind10or16(int opcode, int byte1) {
        return switch (opcode) {
            case 0x28, 0x88 -> IoKind.READ;
            case 0x2A, 0x8A, 0x8B, 0x2E, 0x8E -> IoKind.WRITE;
            case 0x2F, 0x8F -> IoKind.VERIFY;
            case 0x35, 0x91 -> IoKind.FLUSH;
            case 0x41, 0x93 -> (byte1 & 0x08) != 0 ? IoKind.UNMAP : IoKind.WRITE_ZEROES;   // WRITE SAME's UNMAP bit
            default -> IoKind.OTHER;   // PRE-FETCH
        };
    }


    /**
     * The GROUP NUMBER (SBC-4 §4.22, six bits) of WRITE(10) / (12) / (16) — byte 6, 10 or 14 — when not 0, which the
     * streams of a LUN with placement take as the stream (issue 32); -1 for 0 and for other commands.
     */
    static int groupNumber(int opcode, ByteBuf cdb, int at, int length) {
        int offset = switch (opcode) {
            case 0x2A -> 6;
            case 0xAA -> 10;
            case 0x8A -> 14;
            default -> -1;
        };
        if (offset < 0 || length <= offset) {
            return -1;
        }
        int group = cdb.getUnsignedByte(at + offset) & 0x3F;
        return group == 0 ? -1 : group;
    }
    /** DPO (bit 4) and FUA (bit 3) of byte 1, for the commands that define them (SBC-4 §5.9, §5.42, §5.3). */
    private static int flags(int opcode, int byte1) {
        boolean hasFua = switch (opcode) {
            case 0x28, 0x88, 0xA8, 0x2A, 0x8A, 0x8B, 0xAA, 0x89, 0x9C -> true;
            default -> false;
        };
        boolean hasDpo = hasFua || opcode == 0x2E || opcode == 0x8E || opcode == 0x2F || opcode == 0x8F
                || opcode == 0xAF;
        return (hasFua && (byte1 & 0x08) != 0 ? TraceRecord.FUA : 0)
                | (hasDpo && (byte1 & 0x10) != 0 ? TraceRecord.DPO : 0);
    }

    /** The SPC / SBC name of a command: {@code WRITE(16)}, {@code READ CAPACITY(16)}, {@code 0xC1} if unknown. */
    static String name(int opcode, int byte1) {
        if (opcode < 0) {
            return "(empty CDB)";
        }
        int serviceAction = ScsiOpcode.definesServiceActions(opcode) ? byte1 & 0x1F : -1;
        return NAMES.computeIfAbsent(opcode << 8 | (serviceAction & 0xFF), key -> {
            if (opcode == 0x9C) {
                return "WRITE ATOMIC(16)";
            }
            return ScsiOpcode.of(opcode, serviceAction)
                    .map(o -> o.name().replaceAll("_(\\d+)$", "($1)").replace('_', ' '))
                    .orElse(String.format("0x%02X", opcode));
        });
    }

    /** Records the completed command with its status and, from its sense data, sense key, ASC and ASCQ. */
    void record(ScsiResponse response) {
        ScsiStatus status = response.status();
        int key = -1;
        int asc = -1;
        int ascq = -1;
        ByteBuf sense = response.senseData();
        if (sense != null && sense.readableBytes() >= 4) {
            int at = sense.readerIndex();
            int code = sense.getUnsignedByte(at) & 0x7F;
            if ((code == 0x70 || code == 0x71) && sense.readableBytes() >= 14) {   // fixed format, SPC-5 §4.4.3
                key = sense.getUnsignedByte(at + 2) & 0x0F;
                asc = sense.getUnsignedByte(at + 12);
                ascq = sense.getUnsignedByte(at + 13);
            } else if (code == 0x72 || code == 0x73) {                             // descriptor format, §4.4.2
                key = sense.getUnsignedByte(at + 1) & 0x0F;
                asc = sense.getUnsignedByte(at + 2);
                ascq = sense.getUnsignedByte(at + 3);
            }
        }
        tracer.record(arrival, TraceRecord.Protocol.ISCSI, initiator, connection, -1, tag, opcode, op, kind, lba,
                blocks, flags, queueDepth, status.name().replace('_', ' '),
                status == ScsiStatus.GOOD || status == ScsiStatus.CONDITION_MET, key, asc, ascq, -1, -1, false,
                placement);
    }
}
