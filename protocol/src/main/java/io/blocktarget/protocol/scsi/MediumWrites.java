package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * The commands of SBC-4, ZBC-2 and SPC-5 third-party copy that write the medium, by operation code and service
 * action — every one of them, implemented here or not. A write-protected logical unit (a read-only LUN, or SWP = 1 in
 * the Control mode page, SPC-4 §7.5.8) terminates all of them with DATA PROTECT, WRITE PROTECTED, and MODE SENSE says
 * so with WP = 1 in the mode parameter header: the medium refuses writing whatever command asks, so an initiator that
 * tries one this device server does not implement learns the real reason rather than INVALID COMMAND OPERATION CODE.
 */
public final class MediumWrites {
    /** SERVICE ACTION OUT(16) (9Fh): WRITE LONG(16) and WRITE SCATTERED(16). */
    private static final int WRITE_LONG_16 = 0x11, WRITE_SCATTERED_16 = 0x12;
    /** THIRD-PARTY COPY OUT (83h): WRITE USING TOKEN. */
    private static final int WRITE_USING_TOKEN = 0x11;
    /**
     * Variable length CDB (7Fh) service actions, bytes 8-9: WRITE (000Bh), WRITE AND VERIFY, WRITE SAME, ORWRITE,
     * WRITE ATOMIC, WRITE STREAM, WRITE SCATTERED (0011h) (32).
     */
    private static final int FIRST_WRITE_32 = 0x000B, LAST_WRITE_32 = 0x0011;

    private MediumWrites() {
    }

    /** Whether the CDB at {@code cdb}'s reader index asks to write the medium; false for what it cannot tell. */
    public static boolean writesMedium(ByteBuf cdb) {
        if (!cdb.isReadable()) {
            return false;
        }
        int at = cdb.readerIndex();
        int code = cdb.getUnsignedByte(at);
        int serviceAction = cdb.readableBytes() > 1 ? cdb.getUnsignedByte(at + 1) & 0x1F : -1;
        return switch (code) {
            case 0x04,        // FORMAT UNIT
                 0x0A,        // WRITE(6)
                 0x2A, 0xAA, 0x8A,   // WRITE(10/12/16)
                 0x2E, 0xAE, 0x8E,   // WRITE AND VERIFY(10/12/16)
                 0x3F,        // WRITE LONG(10)
                 0x41, 0x93,  // WRITE SAME(10/16)
                 0x42,        // UNMAP
                 0x48,        // SANITIZE
                 0x53,        // XDWRITEREAD(10), obsolete
                 0x89,        // COMPARE AND WRITE
                 0x8B,        // ORWRITE(16)
                 0x94,        // ZBC OUT (reset, open, close, finish zones)
                 0x9A,        // WRITE STREAM(16)
                 0x9C -> true; // WRITE ATOMIC(16)
            case 0x9F -> serviceAction == WRITE_LONG_16 || serviceAction == WRITE_SCATTERED_16;
            case 0x83 -> serviceAction == WRITE_USING_TOKEN;
            case 0x7F -> cdb.readableBytes() >= 10
                    && cdb.getUnsignedShort(at + 8) >= FIRST_WRITE_32 && cdb.getUnsignedShort(at + 8) <= LAST_WRITE_32;
            default -> false;
        };
    }
}
