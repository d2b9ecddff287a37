package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Reclaim Unit Handle Status, the data of I/O Management Receive with MO 01h (NVMe Base 2.1 "I/O Management Receive
 * command", "Reclaim Unit Handle Status", TP4146), per namespace: bytes 13:0 reserved, 15:14 NRUHSD, then NRUHSD
 * 32-byte descriptors — 1:0 PID, 3:2 RUHID, 7:4 EARUTR (seconds, 0 = not reported), 15:8 RUAMW (logical blocks the
 * reclaim unit can still take), 31:16 reserved. Linux asks for 16 + 126 × 32 bytes and takes NRUHSD placement
 * identifiers, in order, as its write streams 1..NRUHSD ({@code nvme_query_fdp_info}).
 */
public record RuhStatus(List<Descriptor> descriptors) {
    public static final int HEADER_SIZE = 16;
    public static final int DESCRIPTOR_SIZE = 32;

    /**
     * @param placementIdentifier           PID
     * @param reclaimUnitHandle             RUHID
     * @param estimatedActiveTimeRemaining  EARUTR, seconds
     * @param availableMediaWrites          RUAMW, logical blocks
     */
    public record Descriptor(int placementIdentifier, int reclaimUnitHandle, long estimatedActiveTimeRemaining,
                             long availableMediaWrites) {
        public Descriptor {
            if (placementIdentifier < 0 || placementIdentifier > 0xFFFF || reclaimUnitHandle < 0
                    || reclaimUnitHandle > 0xFFFF || estimatedActiveTimeRemaining < 0
                    || estimatedActiveTimeRemaining > 0xFFFF_FFFFL || availableMediaWrites < 0) {
                throw new IllegalArgumentException("RUH status descriptor field out of range");
            }
        }

        public void encode(ByteBuf out) {
            out.writeShortLE(placementIdentifier).writeShortLE(reclaimUnitHandle)
                    .writeIntLE((int) estimatedActiveTimeRemaining).writeLongLE(availableMediaWrites).writeZero(16);
        }
    }

    public RuhStatus {
        descriptors = List.copyOf(descriptors);
        if (descriptors.size() > 0xFFFF) {
            throw new IllegalArgumentException("NRUHSD " + descriptors.size());
        }
    }

    public int size() {
        return HEADER_SIZE + DESCRIPTOR_SIZE * descriptors.size();
    }

    public void encode(ByteBuf out) {
        out.writeZero(14).writeShortLE(descriptors.size());
        for (Descriptor d : descriptors) {
            d.encode(out);
        }
    }
}
