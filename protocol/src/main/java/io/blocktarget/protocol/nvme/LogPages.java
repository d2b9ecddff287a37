package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;

/**
 * Log page encoders of the Base spec (§5.16.1.x) and the partial-read helper. Each encoder writes the whole
 * page; {@link #slice} cuts out what one Get Log Page asked for (hosts read large pages — the discovery log —
 * in chunks, header first).
 */
public final class LogPages {
    public static final int ERROR_ENTRY_SIZE = 64;
    public static final int SMART_SIZE = 512;
    public static final int FIRMWARE_SLOT_SIZE = 512;
    public static final int CHANGED_NAMESPACES_SIZE = 4096;
    public static final int COMMAND_EFFECTS_SIZE = 4096;

    private LogPages() {
    }

    /**
     * {@code length} bytes of {@code page} from {@code offset}, zero-filled past its end, or INVALID_FIELD when
     * the offset lies beyond the page (Base §5.16: "If the Log Page Offset ... is larger than the size of the log
     * page, the controller shall abort the command with Invalid Field in Command"). {@code page} is not consumed
     * nor released; the returned buffer is the caller's.
     */
    public static Parsed<ByteBuf> slice(ByteBuf page, long offset, long length, ByteBufAllocator alloc) {
        long size = page.readableBytes();
        if (offset < 0 || offset > size || length < 0 || length > Integer.MAX_VALUE) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        ByteBuf out = alloc.buffer((int) length);
        int copy = (int) Math.min(length, size - offset);
        out.writeBytes(page, page.readerIndex() + (int) offset, copy);
        out.writeZero((int) length - copy);
        return Parsed.ok(out);
    }

    /** Error Information log entry, 64 bytes (Base §5.16.1.2). An Error Count of 0 marks an empty entry. */
    public record ErrorEntry(long errorCount, int sqid, int cid, CqeStatus status, int parameterErrorLocation,
                             long lba, int nsid, int trtype, long commandSpecific, int transportSpecific) {
        public void encode(ByteBuf out) {
            int i = out.writerIndex();
            out.writeZero(ERROR_ENTRY_SIZE);
            out.setLongLE(i, errorCount);
            out.setShortLE(i + 8, sqid);
            out.setShortLE(i + 10, cid);
            out.setShortLE(i + 12, status.encode(0));
            out.setShortLE(i + 14, parameterErrorLocation);
            out.setLongLE(i + 16, lba);
            out.setIntLE(i + 24, nsid);
            out.setByte(i + 29, trtype);
            out.setLongLE(i + 32, commandSpecific);
            out.setShortLE(i + 40, transportSpecific);
        }
    }

    /**
     * SMART / Health Information, 512 bytes (Base §5.16.1.3). Counters are 128-bit little-endian; we keep 64-bit
     * values and write the upper half zero. Data units are thousands of 512-byte units, rounded up.
     */
    public record Smart(int criticalWarning, int compositeTemperatureKelvin, int availableSpare,
                        int availableSpareThreshold, int percentageUsed, long dataUnitsRead, long dataUnitsWritten,
                        long hostReadCommands, long hostWriteCommands, long powerCycles, long powerOnHours,
                        long unsafeShutdowns, long mediaErrors, long errorLogEntries) {
        public void encode(ByteBuf out) {
            int i = out.writerIndex();
            out.writeZero(SMART_SIZE);
            out.setByte(i, criticalWarning);
            out.setShortLE(i + 1, compositeTemperatureKelvin);
            out.setByte(i + 3, availableSpare);
            out.setByte(i + 4, availableSpareThreshold);
            out.setByte(i + 5, percentageUsed);
            long[] counters = {dataUnitsRead, dataUnitsWritten, hostReadCommands, hostWriteCommands, 0, powerCycles,
                    powerOnHours, unsafeShutdowns, mediaErrors, errorLogEntries};
            for (int k = 0; k < counters.length; k++) {
                out.setLongLE(i + 32 + 16 * k, counters[k]);
            }
        }

        /** Data Units field value for {@code bytes}: units of 1000 × 512 bytes, rounded up. */
        public static long dataUnits(long bytes) {
            long sectors = (bytes + 511) / 512;
            return (sectors + 999) / 1000;
        }
    }

    /** Firmware Slot Information, 512 bytes (Base §5.16.1.4): AFI at 0, FRS1..FRS7 at 8, 16, …, 56. */
    public static void encodeFirmwareSlots(ByteBuf out, int afi, List<String> revisions) {
        if (revisions.size() > 7) {
            throw new IllegalArgumentException("at most 7 firmware slots");
        }
        int i = out.writerIndex();
        out.writeZero(FIRMWARE_SLOT_SIZE);
        out.setByte(i, afi);
        for (int k = 0; k < revisions.size(); k++) {
            WireText.setSpacePadded(out, i + 8 + 8 * k, revisions.get(k), 8);
        }
    }

    /**
     * Changed Namespace List, 4096 bytes (Base §5.16.1.5): up to 1024 NSIDs; more than that is reported as a
     * single FFFFFFFFh entry.
     */
    public static void encodeChangedNamespaces(ByteBuf out, List<Integer> nsids) {
        int i = out.writerIndex();
        out.writeZero(CHANGED_NAMESPACES_SIZE);
        if (nsids.size() > CHANGED_NAMESPACES_SIZE / 4) {
            out.setIntLE(i, 0xFFFF_FFFF);
            return;
        }
        for (int k = 0; k < nsids.size(); k++) {
            out.setIntLE(i + 4 * k, nsids.get(k));
        }
    }

    /** Commands Supported and Effects entry bits (Base §5.16.1.6). */
    public static final int EFFECT_CSUPP = 1;
    public static final int EFFECT_LBCC = 1 << 1;
    public static final int EFFECT_NCC = 1 << 2;
    public static final int EFFECT_NIC = 1 << 3;
    public static final int EFFECT_CCC = 1 << 4;

    /**
     * Commands Supported and Effects, 4096 bytes: ACS0..255 (admin opcodes) at 0, IOCS0..255 (I/O opcodes) at
     * 1024, 4 bytes each. Arrays are indexed by opcode, 256 entries.
     */
    public static void encodeCommandEffects(ByteBuf out, int[] admin, int[] io) {
        if (admin.length != 256 || io.length != 256) {
            throw new IllegalArgumentException("256 entries per command set");
        }
        int i = out.writerIndex();
        out.writeZero(COMMAND_EFFECTS_SIZE);
        for (int op = 0; op < 256; op++) {
            out.setIntLE(i + 4 * op, admin[op]);
            out.setIntLE(i + 1024 + 4 * op, io[op]);
        }
    }
}
