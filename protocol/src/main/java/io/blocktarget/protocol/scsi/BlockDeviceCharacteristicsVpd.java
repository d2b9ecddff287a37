package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Block Device Characteristics, B1h (SBC-4 §6.6.2, Table 205), page length 3Ch. A MEDIUM ROTATION
 * RATE of 0001h says "non-rotating medium", which makes Linux clear the queue's rotational flag.
 */
public record BlockDeviceCharacteristicsVpd(int mediumRotationRate, int productType, int nominalFormFactor,
                                            boolean fuab, boolean vbuls) implements VpdPage {
    public static final int NON_ROTATING = 0x0001;

    public BlockDeviceCharacteristicsVpd {
        if ((mediumRotationRate & ~0xFFFF) != 0 || (productType & ~0xFF) != 0 || (nominalFormFactor & ~0xF) != 0) {
            throw new IllegalArgumentException("Block Device Characteristics field out of range");
        }
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
        out.writeByte(nominalFormFactor);                      // 7: WABEREQ = WACEREQ = 0
        out.writeByte((fuab ? 0x02 : 0) | (vbuls ? 0x01 : 0)); // 8: ZONED = 0, FUAB, VBULS
        out.writeZero(55);                                     // 9-63: reserved
    }
}
