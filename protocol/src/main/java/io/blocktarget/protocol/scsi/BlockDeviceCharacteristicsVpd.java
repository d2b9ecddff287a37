package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Block Device Characteristics, B1h (SBC-4 §6.6.2, Table 205), page length 3Ch. A MEDIUM ROTATION
 * RATE of 0001h says "non-rotating medium", which makes Linux clear the queue's rotational flag.
 *
 * @param wabereq WABEREQ (byte 7 bits 7-6): what a read of an LBA sanitized by BLOCK ERASE does — 00b not specified,
 *                01b completes with GOOD status, 10b / 11b CHECK CONDITION, MEDIUM ERROR (11b: WRITE AFTER SANITIZE
 *                REQUIRED)
 * @param wacereq WACEREQ (byte 7 bits 5-4): the same after CRYPTOGRAPHIC ERASE
 */
public record BlockDeviceCharacteristicsVpd(int mediumRotationRate, int productType, int wabereq, int wacereq,
                                            int nominalFormFactor, boolean fuab, boolean vbuls) implements VpdPage {
    public static final int NON_ROTATING = 0x0001;
    /** WABEREQ / WACEREQ 01b: a read of a sanitized LBA completes with GOOD status (here: zeros, LBPRZ = 1). */
    public static final int ERASED_READS_GOOD = 0b01;

    public BlockDeviceCharacteristicsVpd {
        if ((mediumRotationRate & ~0xFFFF) != 0 || (productType & ~0xFF) != 0 || (nominalFormFactor & ~0xF) != 0
                || (wabereq & ~0x3) != 0 || (wacereq & ~0x3) != 0) {
            throw new IllegalArgumentException("Block Device Characteristics field out of range");
        }
    }

    /** Without sanitize requirements (WABEREQ = WACEREQ = 00b, not specified). */
    public BlockDeviceCharacteristicsVpd(int mediumRotationRate, int productType, int nominalFormFactor, boolean fuab,
                                         boolean vbuls) {
        this(mediumRotationRate, productType, 0, 0, nominalFormFactor, fuab, vbuls);
    }

    public static BlockDeviceCharacteristicsVpd nonRotating() {
        return new BlockDeviceCharacteristicsVpd(NON_ROTATING, 0, 0, false, false);
    }

    @Override
    public int pageCode() {
        return 0xB1;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        out.writeShort(mediumRotationRate);                    // 4-5
        out.writeByte(productType);                            // 6
        out.writeByte(wabereq << 6 | wacereq << 4 | nominalFormFactor); // 7: WABEREQ, WACEREQ, NOMINAL FORM FACTOR
        out.writeByte((fuab ? 0x02 : 0) | (vbuls ? 0x01 : 0)); // 8: ZONED = 0, FUAB, VBULS
        out.writeZero(55);                                     // 9-63: reserved
    }
}
