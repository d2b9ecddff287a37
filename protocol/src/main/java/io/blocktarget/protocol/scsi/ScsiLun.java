package io.blocktarget.protocol.scsi;

import java.util.OptionalInt;

/**
 * The 8-byte LOGICAL UNIT NUMBER (SAM-5 §4.7): single level, peripheral device addressing
 * (method 00b, bus 0) for LUN 0..255 and flat space addressing (01b) for 256..16383 — what Linux
 * {@code int_to_scsilun} produces and {@code scsilun_to_int} reads back.
 */
public final class ScsiLun {
    public static final int MAX_FLAT_LUN = 0x3FFF;

    private ScsiLun() {
    }

    /** The LUN field as a big-endian long (byte 0 is the most significant). */
    public static long encode(int lun) {
        if (lun < 0 || lun > MAX_FLAT_LUN) {
            throw new IllegalArgumentException("LUN out of range 0..16383: " + lun);
        }
        int firstLevel = lun < 256 ? lun : 0x4000 | lun;
        return (long) firstLevel << 48;
    }

    /**
     * The LUN an initiator addressed, or empty for an address method / bus / second level we do not
     * implement (the device server answers LOGICAL UNIT NOT SUPPORTED).
     */
    public static OptionalInt decode(long lunField) {
        if ((lunField & 0xFFFF_FFFF_FFFFL) != 0) {
            return OptionalInt.empty();
        }
        int firstLevel = (int) (lunField >>> 48);
        return switch (firstLevel >>> 14) {
            case 0 -> (firstLevel & 0x3F00) == 0 ? OptionalInt.of(firstLevel & 0xFF) : OptionalInt.empty();
            case 1 -> OptionalInt.of(firstLevel & 0x3FFF);
            default -> OptionalInt.empty();
        };
    }
}
