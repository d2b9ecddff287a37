package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Reservation Notification log page (LID 80h, NVMe Base 2.x §5.16.1 "Reservation Notification"), 64 bytes,
 * little-endian: bytes 7:0 Log Page Count, 8 Reservation Notification Log Page Type, 9 Number of Available
 * Log Pages, 15:12 NSID, the rest reserved.
 */
public record ReservationNotification(long logPageCount, Type type, int availableLogPages, int nsid) {
    public static final int SIZE = 64;
    public static final int LID = 0x80;
    /** Reservation Notification Mask (feature 82h) bits: which notices a host does not want. */
    public static final int MASK_REGISTRATION_PREEMPTED = 1 << 1;
    public static final int MASK_RESERVATION_RELEASED = 1 << 2;
    public static final int MASK_RESERVATION_PREEMPTED = 1 << 3;
    public static final int MASK_ALL = MASK_REGISTRATION_PREEMPTED | MASK_RESERVATION_RELEASED
            | MASK_RESERVATION_PREEMPTED;

    /** Log page types: 0 empty, 1 Registration Preempted, 2 Reservation Released, 3 Reservation Preempted. */
    public enum Type { EMPTY, REGISTRATION_PREEMPTED, RESERVATION_RELEASED, RESERVATION_PREEMPTED }

    public static ReservationNotification empty(long logPageCount) {
        return new ReservationNotification(logPageCount, Type.EMPTY, 0, 0);
    }

    public void encode(ByteBuf out) {
        out.writeLongLE(logPageCount).writeByte(type.ordinal()).writeByte(Math.min(availableLogPages, 255))
                .writeZero(2).writeIntLE(nsid).writeZero(SIZE - 16);
    }
}
