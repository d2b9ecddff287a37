package io.blocktarget.protocol.nvme;

/**
 * The Identify Namespace fields that tell a host the logical and physical block size (DESIGN §4; NVM Command
 * Set §4.1.5.1 "Identify Namespace": LBADS, NSFEAT, NPWG/NPWA/NPDG/NPDA/NOWS, NAWUN/NAWUPF).
 * <p>
 * Linux (drivers/nvme/host/core.c, nvme_update_disk_info / nvme_configure_atomic_write, checked against 6.x and
 * 7.2) sets physical_block_size = min(LBS × (1 + NPWG) when NSFEAT bit 4, LBS × (1 + NAWUPF) when NSFEAT bit 1
 * and NAWUPF ≠ 0 — else LBS × (1 + controller AWUPF)) and io_min = LBS × (1 + NPWG), io_opt = LBS × (1 + NOWS)
 * when NOWS ≠ 0. So both NPWG and NAWUPF say PBS/LBS − 1, both NSFEAT bits are set, and the controller's AWUPF
 * stays 0 so a namespace with PBS = LBS (NAWUPF 0) is not raised. The deallocate fields follow PBS too, so a
 * discard granularity matches the RAM disk's chunking.
 *
 * @param lbads log2(LBS), LBA format byte 2
 * @param nsfeat NSFEAT bits 1 (NSABP) and 4 (OPTPERF)
 * @param blocksPerPhysical PBS/LBS minus one — the 0's based value of NPWG, NPWA, NPDG, NPDA, NOWS, NAWUN, NAWUPF
 */
public record NamespaceGeometry(int lbs, int pbs, int lbads, int nsfeat, int blocksPerPhysical) {
    public static final int NSFEAT_THIN_PROVISIONING = 1;
    public static final int NSFEAT_NSABP = 1 << 1;
    public static final int NSFEAT_DEALLOCATED_ERROR = 1 << 2;
    public static final int NSFEAT_OPTPERF = 1 << 4;
    public static final int MIN_LBS = 512;
    public static final int MAX_LBS = 64 * 1024;
    public static final int MAX_PBS = 32 * 1024 * 1024;

    /**
     * Geometry for a namespace of {@code lbs}-byte logical and {@code pbs}-byte physical blocks, both powers of
     * two with 512 ≤ LBS ≤ 64 KiB and LBS ≤ PBS ≤ 32 MiB (so PBS/LBS ≤ 65536 fits the 16-bit 0's based fields).
     */
    public static NamespaceGeometry of(int lbs, int pbs) {
        if (Integer.bitCount(lbs) != 1 || Integer.bitCount(pbs) != 1 || lbs < MIN_LBS || lbs > MAX_LBS || pbs < lbs
                || pbs > MAX_PBS) {
            throw new IllegalArgumentException("LBS " + lbs + " / PBS " + pbs + " outside powers of two 512..64K / LBS..32M");
        }
        return new NamespaceGeometry(lbs, pbs, Integer.numberOfTrailingZeros(lbs), NSFEAT_NSABP | NSFEAT_OPTPERF,
                pbs / lbs - 1);
    }

    public int npwg() {
        return blocksPerPhysical;
    }

    public int npwa() {
        return blocksPerPhysical;
    }

    public int npdg() {
        return blocksPerPhysical;
    }

    public int npda() {
        return blocksPerPhysical;
    }

    public int nows() {
        return blocksPerPhysical;
    }

    public int nawun() {
        return blocksPerPhysical;
    }

    public int nawupf() {
        return blocksPerPhysical;
    }
}
