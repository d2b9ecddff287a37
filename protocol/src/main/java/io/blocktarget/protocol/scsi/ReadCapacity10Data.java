package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * READ CAPACITY(10) parameter data (SBC-4 §5.19.2, Table 65): RETURNED LOGICAL BLOCK ADDRESS (the
 * last LBA) and LOGICAL BLOCK LENGTH IN BYTES, 8 bytes.
 */
public record ReadCapacity10Data(long lastLba, int blockLength) {
    /** RETURNED LOGICAL BLOCK ADDRESS when the last LBA does not fit: "use READ CAPACITY(16)". */
    public static final long OVERFLOW = 0xFFFF_FFFFL;
    public static final int LENGTH = 8;

    public ReadCapacity10Data {
        if (lastLba < 0 || blockLength <= 0) {
            throw new IllegalArgumentException("last LBA and block length must be positive");
        }
    }

    /** Whether the capacity is too large for this command (SBC-4 §5.19.2: last LBA > FFFF_FFFEh). */
    public boolean overflows() {
        return lastLba >= OVERFLOW;
    }

    public void encode(ByteBuf out) {
        out.writeInt((int) Math.min(lastLba, OVERFLOW)); // 0-3
        out.writeInt(blockLength);                      // 4-7
    }
}
