package io.blocktarget.protocol.nvme;

/**
 * The Identify Namespace fields that tell a host the logical and physical block size (DESIGN §4; NVM Command
 * Set §4.1.5.1 "Identify Namespace": LBADS, NSFEAT, NPWG/NPWA/NPDG/NPDA/NOWS).
 * <p>
 * Linux (drivers/nvme/host/core.c, nvme_update_disk_info / nvme_configure_atomic_write, 2026) sets
 * physical_block_size = min(LBS × (1 + NPWG) when NSFEAT bit 4, atomic unit), the atomic unit being LBS × (1 + NAWUPF)
 * when NSFEAT bit 1 and NAWUPF ≠ 0, else LBS (it ignores the controller's AWUPF; kernels before 2026 used LBS ×
 * (1 + AWUPF)); io_min = LBS × (1 + NPWG), io_opt = LBS × (1 + NOWS) when NOWS ≠ 0. NAWUPF is a power-fail atomicity
 * promise, so the geometry sets only the performance hints (NSFEAT bit 4, NPWG = NPWA = NOWS = PBS/LBS − 1) and
 * leaves NSFEAT bit 1, NAWUN and NAWUPF at 0: Linux then shows physical_block_size = LBS and minimum_io_size =
 * optimal_io_size = PBS. A namespace with configured atomic writes sets the atomic fields itself. The deallocate
 * fields follow PBS too, so a discard granularity matches the RAM disk's chunking.
 *
 * @param lbads log2(LBS), LBA format byte 2
 * @param nsfeat NSFEAT bit 4 (OPTPERF)
 * @param blocksPerPhysical PBS/LBS minus one — the 0's based value of NPWG, NPWA, NPDG, NPDA, NOWS
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
        return new NamespaceGeometry(lbs, pbs, Integer.numberOfTrailingZeros(lbs), NSFEAT_OPTPERF,
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

    /** 0: no atomicity beyond one logical block is claimed by the geometry alone. */
    public int nawun() {
        return 0;
    }

    /** 0: see {@link #nawun()}. */
    public int nawupf() {
        return 0;
    }
}
