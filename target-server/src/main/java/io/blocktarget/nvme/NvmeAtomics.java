package io.blocktarget.nvme;

import io.blocktarget.block.AtomicWrites;

import java.util.Optional;

/**
 * The atomic write fields of Identify Namespace and Identify Controller, from the device's {@link AtomicWrites}
 * (NVM Command Set §4.1.5.1; Base §5.17.2.1; semantics NVM Command Set §2.1.4). All are 0's based counts of logical
 * blocks.
 *
 * <ul>
 * <li>Without {@code atomic:} the namespace claims nothing beyond one logical block: NSFEAT bit 1 clear, NAWUN =
 *     NAWUPF = NABSN = NABSPF = 0. The physical block size then only reaches hosts as NPWG / NPWA / NOWS (NSFEAT
 *     bit 4, "performance" hints that promise no atomicity). Linux (drivers/nvme/host/core.c nvme_update_disk_info,
 *     2026) sets physical_block_size = min(LBS × (1 + NPWG), atomic unit), the atomic unit being LBS × (1 + NAWUPF)
 *     only with NSFEAT bit 1 — it ignores the controller's AWUPF — so it shows physical_block_size = LBS and
 *     minimum_io_size = PBS: Linux cannot see PBS > LBS over NVMe without an atomicity claim.</li>
 * <li>With it: NSFEAT bit 1, NAWUN = NAWUPF = max − 1 (every write within the unit is atomic against readers and,
 *     as far as the backend keeps data at all, power fail alike), NABSN = NABSPF = boundary − 1 (0 = none), NABO = 0
 *     (Linux disables atomics for any other offset). NACWU = 0: no fused Compare and Write (FUSES = 0).</li>
 * <li>Controller AWUN = AWUPF = the smallest NAWUN of its namespaces (0 if one has none), so QEMU's rule NAWUN ≥ AWUN
 *     holds for every namespace; ACWU = 0 as NACWU. Linux ignores AWUPF since 2026; older Linux and other hosts use
 *     it for namespaces without NSFEAT bit 1, which then claim no more than they get.</li>
 * </ul>
 */
final class NvmeAtomics {
    /** NSFEAT bit 1 (NSABP): NAWUN, NAWUPF and NACWU are this namespace's. */
    static final int NSFEAT_NSABP = 1 << 1;
    /** Identify Namespace NABSN (bytes 41:40); NABO (43:42) stays 0. */
    static final int NABSN_OFFSET = 40;

    private NvmeAtomics() {
    }

    static Optional<AtomicWrites> of(Namespace ns) {
        return ns.state().atomicWrites();
    }

    /** NAWUN and NAWUPF. */
    static int nawun(Namespace ns) {
        return of(ns).map(a -> (int) a.maxBlocks() - 1).orElse(0);
    }

    /** NABSN and NABSPF. */
    static int nabsn(Namespace ns) {
        return of(ns).filter(a -> a.boundaryBlocks() != 0).map(a -> (int) a.boundaryBlocks() - 1).orElse(0);
    }

    static int nsfeat(Namespace ns, int plain) {
        return of(ns).isPresent() ? plain | NSFEAT_NSABP : plain & ~NSFEAT_NSABP;
    }

    /** Controller AWUN / AWUPF: what every namespace of the subsystem gives at least. */
    static int awun(Subsystem subsystem) {
        int min = Integer.MAX_VALUE;
        for (Namespace ns : subsystem.namespaces().values()) {
            min = Math.min(min, nawun(ns));
        }
        return min == Integer.MAX_VALUE ? 0 : min;
    }

    /** Whether an NVMe write of these blocks is one the namespace applies atomically (NVM Command Set §2.1.4.1). */
    static boolean applies(Namespace ns, long slba, long blocks) {
        Optional<AtomicWrites> atomic = of(ns);
        return atomic.isPresent() && atomic.get().covers(slba, blocks);
    }
}
