package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Reservation Report data (NVMe Base 2.x §7 "Reservation Report", Figures "Reservation Status Data Structure",
 * "Registered Controller Data Structure" and their extended forms), little-endian:
 * <pre>
 * header  bytes 3:0 GEN, 4 RTYPE (0 = none), 6:5 REGCTL, 9 PTPLS; 24 bytes (EDS = 0) or 64 (EDS = 1)
 * entry   EDS = 0 (24 bytes): 1:0 CNTLID, 2 RCSTS, 15:8 HOSTID (64-bit), 23:16 RKEY
 *         EDS = 1 (64 bytes): 1:0 CNTLID, 2 RCSTS, 15:8 RKEY, 31:16 HOSTID (128-bit)
 * </pre>
 *
 * @param rtype 0 when no reservation is held, else 1..6
 */
public record ReservationStatus(int generation, int rtype, boolean ptpls, List<Entry> entries) {
    public static final int HEADER = 24;
    public static final int HEADER_EXTENDED = 64;
    public static final int ENTRY = 24;
    public static final int ENTRY_EXTENDED = 64;
    /** RCSTS bit 0: the host holds the reservation. */
    public static final int RCSTS_HOLDER = 1;
    /** CNTLID of an entry in the dynamic controller model (every host's controllers are reported as one). */
    public static final int CNTLID_DYNAMIC = 0xFFFF;

    /** One registrant: its 128-bit Host Identifier (byte 0 first) and key. */
    public record Entry(int cntlid, boolean holder, byte[] hostId, long rkey) {
        public Entry {
            if (hostId.length != 16) {
                throw new IllegalArgumentException("HOSTID is 16 bytes");
            }
            hostId = hostId.clone();
        }
    }

    public ReservationStatus {
        entries = List.copyOf(entries);
    }

    public int size(boolean eds) {
        return eds ? HEADER_EXTENDED + ENTRY_EXTENDED * entries.size() : HEADER + ENTRY * entries.size();
    }

    /** The extended form (EDS = 1): the only one a fabrics controller, with 128-bit host identifiers, reports. */
    public void encodeExtended(ByteBuf out) {
        int start = out.writerIndex();
        out.writeIntLE(generation).writeByte(rtype).writeShortLE(entries.size()).writeZero(2)
                .writeByte(ptpls ? 1 : 0);
        out.writeZero(HEADER_EXTENDED - (out.writerIndex() - start));
        for (Entry e : entries) {
            out.writeShortLE(e.cntlid()).writeByte(e.holder() ? RCSTS_HOLDER : 0).writeZero(5)
                    .writeLongLE(e.rkey()).writeBytes(e.hostId()).writeZero(32);
        }
    }
}
