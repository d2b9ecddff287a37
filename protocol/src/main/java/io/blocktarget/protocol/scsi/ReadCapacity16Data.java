package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * READ CAPACITY(16) parameter data (SBC-4 §5.20.2, Table 67), 32 bytes.
 *
 * @param pType            P_TYPE (3 bits), meaningful with PROT_EN
 * @param lbppbe           LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT, 4 bits — see {@link #lbppbe(int, long)}
 * @param lbpme            LBPME: thin provisioning (UNMAP etc.) enabled; Linux sd discards only when set
 * @param lbprz            LBPRZ: unmapped blocks read as zeros
 * @param lowestAlignedLba LOWEST ALIGNED LOGICAL BLOCK ADDRESS, 14 bits
 */
public record ReadCapacity16Data(long lastLba, int blockLength, int pType, boolean protEn, int lbppbe,
                                 boolean lbpme, boolean lbprz, int lowestAlignedLba, int rcBasis) {
    public static final int LENGTH = 32;
    /** RC BASIS 01b (ZBC-2 §5.1 Table 33): the RETURNED LOGICAL BLOCK ADDRESS is the last LBA of the device. */
    public static final int RC_BASIS_LAST_LBA = 0b01;

    public ReadCapacity16Data {
        if (lastLba < 0 || blockLength <= 0 || (pType & ~0x7) != 0 || (lbppbe & ~0xF) != 0
                || (lowestAlignedLba & ~0x3FFF) != 0 || (rcBasis & ~0x3) != 0) {
            throw new IllegalArgumentException("READ CAPACITY(16) field out of range");
        }
    }

    /** RC BASIS 00b: what every non-zoned device reports. */
    public ReadCapacity16Data(long lastLba, int blockLength, int pType, boolean protEn, int lbppbe, boolean lbpme,
                              boolean lbprz, int lowestAlignedLba) {
        this(lastLba, blockLength, pType, protEn, lbppbe, lbpme, lbprz, lowestAlignedLba, 0);
    }

    /**
     * log2(PBS / LBS) for the 4-bit LBPPBE field. SBC-4 §5.20.2 can express at most 2^15 logical
     * blocks per physical block (512 B LBS with a 32 MiB PBS needs 2^16): then the exponent is
     * capped at 15 and {@link Exponent#capped()} says so, for the caller to log.
     *
     * @throws IllegalArgumentException unless both are powers of two and pbs ≥ lbs (config validates)
     */
    public static Exponent lbppbe(int lbs, long pbs) {
        if (lbs <= 0 || Integer.bitCount(lbs) != 1 || pbs < lbs || Long.bitCount(pbs) != 1) {
            throw new IllegalArgumentException("LBS and PBS must be powers of two with PBS >= LBS: " + lbs + "/" + pbs);
        }
        int exponent = Long.numberOfTrailingZeros(pbs) - Integer.numberOfTrailingZeros(lbs);
        return new Exponent(Math.min(exponent, 15), exponent > 15);
    }

    /** The LBPPBE value and whether the true exponent had to be capped to fit 4 bits. */
    public record Exponent(int value, boolean capped) {
    }

    public void encode(ByteBuf out) {
        out.writeLong(lastLba);                                              // 0-7: RETURNED LOGICAL BLOCK ADDRESS
        out.writeInt(blockLength);                                           // 8-11: LOGICAL BLOCK LENGTH IN BYTES
        out.writeByte(rcBasis << 4 | pType << 1 | (protEn ? 1 : 0));         // 12: RC BASIS, P_TYPE, PROT_EN
        out.writeByte(lbppbe);                                               // 13: P_I_EXPONENT = 0, LBPPBE
        out.writeShort((lbpme ? 0x8000 : 0) | (lbprz ? 0x4000 : 0) | lowestAlignedLba); // 14-15
        out.writeZero(16);                                                   // 16-31: reserved
    }
}
