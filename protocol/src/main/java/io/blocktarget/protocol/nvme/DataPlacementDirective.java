package io.blocktarget.protocol.nvme;

/**
 * The directive fields of Write, Write Zeroes and Copy (NVM Command Set 1.1 "Write command", "Copy command"; NVMe
 * Base 2.1 "Directives"): CDW12 bits 23:20 DTYPE, CDW13 bits 31:16 DSPEC. With DTYPE 2 (Data Placement, TP4146) DSPEC
 * is the placement identifier; with one reclaim group (RGIF = 0) that is the namespace's placement handle. Linux sets
 * DTYPE 2 and DSPEC = the placement identifier of write stream {@code n} (its n-th RUH Status descriptor) on every
 * write with a stream ({@code nvme_setup_rw}), and leaves both zero otherwise.
 *
 * @param dtype directive type, 0..15
 * @param dspec directive specific, 0..65535
 */
public record DataPlacementDirective(int dtype, int dspec) {
    public static final int DTYPE_NONE = 0;
    public static final int DTYPE_STREAMS = 1;
    public static final int DTYPE_DATA_PLACEMENT = 2;
    private static final int DTYPE_SHIFT = 20;

    public DataPlacementDirective {
        if (dtype < 0 || dtype > 0xF || dspec < 0 || dspec > 0xFFFF) {
            throw new IllegalArgumentException("DTYPE / DSPEC out of range");
        }
    }

    public static DataPlacementDirective of(int cdw12, int cdw13) {
        return new DataPlacementDirective(cdw12 >>> DTYPE_SHIFT & 0xF, cdw13 >>> 16);
    }

    public static DataPlacementDirective placement(int placementIdentifier) {
        return new DataPlacementDirective(DTYPE_DATA_PLACEMENT, placementIdentifier);
    }

    public boolean isDataPlacement() {
        return dtype == DTYPE_DATA_PLACEMENT;
    }

    /** {@code cdw12} with DTYPE replaced (test initiators). */
    public int applyToCdw12(int cdw12) {
        return cdw12 & ~(0xF << DTYPE_SHIFT) | dtype << DTYPE_SHIFT;
    }

    /** {@code cdw13} with DSPEC replaced; the DSM bits 7:0 stay. */
    public int applyToCdw13(int cdw13) {
        return cdw13 & 0xFFFF | dspec << 16;
    }
}
