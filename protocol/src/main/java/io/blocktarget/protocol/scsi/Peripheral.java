package io.blocktarget.protocol.scsi;

/**
 * Byte 0 of INQUIRY data and of every VPD page: PERIPHERAL QUALIFIER (bits 7-5) and PERIPHERAL
 * DEVICE TYPE (bits 4-0), SPC-4 §6.6.2, Tables 139-140.
 */
public record Peripheral(int qualifier, int deviceType) {
    /** A direct access block device (SBC) that is connected. */
    public static final Peripheral DIRECT_ACCESS_BLOCK_DEVICE = new Peripheral(0, 0x00);
    /** A host managed zoned block device (ZBC-2 §6.4.2, device type 14h): Linux's TYPE_ZBC. */
    public static final Peripheral HOST_MANAGED_ZONED_BLOCK_DEVICE = new Peripheral(0, 0x14);
    /**
     * INQUIRY to a LUN that does not exist: qualifier 011b, type 1Fh (SPC-4 §6.6.2), which Linux
     * scsi_scan treats as "no LU here".
     */
    public static final Peripheral NOT_CAPABLE = new Peripheral(3, 0x1F);

    public Peripheral {
        if (qualifier < 0 || qualifier > 7 || deviceType < 0 || deviceType > 0x1F) {
            throw new IllegalArgumentException("peripheral qualifier/type out of range");
        }
    }

    public int encode() {
        return qualifier << 5 | deviceType;
    }
}
