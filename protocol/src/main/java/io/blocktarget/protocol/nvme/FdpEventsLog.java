package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * FDP Events log page (Log Page Identifier 23h, LSI = ENDGID, LSP bit 0: host events (1) or controller events (0);
 * NVMe Base 2.1 "FDP Events", TP4146): bytes 3:0 NEVENTS, 63:4 reserved, then NEVENTS 64-byte FDP event records,
 * at most 63 (the page is 4 KiB at most).
 */
public record FdpEventsLog(List<Event> events) {
    public static final int LOG_PAGE_ID = 0x23;
    public static final int HEADER_SIZE = 64;
    public static final int EVENT_SIZE = 64;
    public static final int MAX_EVENTS = 63;
    /** LSP bit 0 of Get Log Page: report host events. */
    public static final int LSP_HOST_EVENTS = 1;

    /** Host events 00h..03h, controller events 80h..81h (FDPET). */
    public static final int RECLAIM_UNIT_NOT_FULLY_WRITTEN = 0x00;
    public static final int RECLAIM_UNIT_TIME_LIMIT_EXCEEDED = 0x01;
    public static final int CONTROLLER_RESET_MODIFIED_RUHS = 0x02;
    public static final int INVALID_PLACEMENT_IDENTIFIER = 0x03;
    public static final int MEDIA_REALLOCATED = 0x80;
    public static final int IMPLICITLY_MODIFIED_RUH = 0x81;

    /** FDPEF bits. */
    public static final int PIV = 1;
    public static final int NSIDV = 1 << 1;
    public static final int LV = 1 << 2;

    /**
     * One FDP event record:
     * <pre>
     * 0 FDPET, 1 FDPEF (0 PIV, 1 NSIDV, 2 LV), 3:2 PID, 11:4 timestamp (as the Timestamp feature: 5:0 milliseconds,
     * 6 attributes), 15:12 NSID, 31:16 event type specific, 33:32 RGID, 34 RUHID, 39:35 reserved, 63:40 vendor
     * </pre>
     * Media Reallocated's type-specific bytes: 0 bit 0 LBAV, 3:2 NLBAM (LBAs moved), 11:4 LBA.
     *
     * @param type                FDPET
     * @param placementIdentifier PID, or -1 (PIV = 0)
     * @param timestampMillis     milliseconds since the epoch (48 bits)
     * @param timestampAttributes byte 6 of the timestamp (bit 0 Synch, bits 3:1 Timestamp Origin)
     * @param nsid                NSID, or 0 (NSIDV = 0)
     * @param reclaimGroup        RGID, or -1 together with {@code reclaimUnitHandle} -1 (LV = 0)
     * @param reclaimUnitHandle   RUHID
     * @param typeSpecific        the 16 event type specific bytes
     */
    public record Event(int type, int placementIdentifier, long timestampMillis, int timestampAttributes, long nsid,
                        int reclaimGroup, int reclaimUnitHandle, byte[] typeSpecific) {
        public Event {
            if (type < 0 || type > 0xFF || placementIdentifier < -1 || placementIdentifier > 0xFFFF
                    || timestampMillis < 0 || timestampMillis >= 1L << 48 || timestampAttributes < 0
                    || timestampAttributes > 0xFF || nsid < 0 || nsid > 0xFFFF_FFFFL
                    || reclaimGroup < -1 || reclaimGroup > 0xFFFF || reclaimUnitHandle < -1 || reclaimUnitHandle > 0xFF
                    || (reclaimGroup < 0) != (reclaimUnitHandle < 0) || typeSpecific.length != 16) {
                throw new IllegalArgumentException("FDP event field out of range");
            }
            typeSpecific = typeSpecific.clone();
        }

        @Override
        public byte[] typeSpecific() {
            return typeSpecific.clone();
        }

        /** A Media Reallocated event's type-specific bytes: {@code lba} &lt; 0 leaves LBAV clear. */
        public static byte[] mediaReallocated(int lbasMoved, long lba) {
            if (lbasMoved < 0 || lbasMoved > 0xFFFF) {
                throw new IllegalArgumentException("NLBAM " + lbasMoved);
            }
            byte[] b = new byte[16];
            b[0] = (byte) (lba >= 0 ? 1 : 0);
            b[2] = (byte) lbasMoved;
            b[3] = (byte) (lbasMoved >>> 8);
            for (int k = 0; k < 8 && lba >= 0; k++) {
                b[4 + k] = (byte) (lba >>> 8 * k);
            }
            return b;
        }

        public int flags() {
            return (placementIdentifier >= 0 ? PIV : 0) | (nsid != 0 ? NSIDV : 0) | (reclaimGroup >= 0 ? LV : 0);
        }

        public void encode(ByteBuf out) {
            int i = out.writerIndex();
            out.writeZero(EVENT_SIZE);
            out.setByte(i, type);
            out.setByte(i + 1, flags());
            out.setShortLE(i + 2, Math.max(placementIdentifier, 0));
            out.setIntLE(i + 4, (int) timestampMillis);
            out.setShortLE(i + 8, (int) (timestampMillis >>> 32));
            out.setByte(i + 10, timestampAttributes);
            out.setIntLE(i + 12, (int) nsid);
            out.setBytes(i + 16, typeSpecific);
            out.setShortLE(i + 32, Math.max(reclaimGroup, 0));
            out.setByte(i + 34, Math.max(reclaimUnitHandle, 0));
        }
    }

    public FdpEventsLog {
        events = List.copyOf(events);
        if (events.size() > MAX_EVENTS) {
            throw new IllegalArgumentException("at most " + MAX_EVENTS + " FDP events");
        }
    }

    public int size() {
        return HEADER_SIZE + EVENT_SIZE * events.size();
    }

    public void encode(ByteBuf out) {
        out.writeIntLE(events.size()).writeZero(HEADER_SIZE - 4);
        for (Event e : events) {
            e.encode(out);
        }
    }
}
