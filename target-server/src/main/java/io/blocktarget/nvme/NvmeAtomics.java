package io.blocktarget.nvme;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockDevice;

import java.util.Optional;

/**
 * The atomic write fields of Identify Namespace and Identify Controller (NVM Command Set §4.1.5.1; Base §5.17.2.1;
 * semantics NVM Command Set §2.1.4): what the namespace promises, and keeps. All are 0's based counts of logical
 * blocks; a boundary field of 0 means none.
 *
 * <ul>
 * <li>Without {@code atomic:} the backend's own atomicity ({@link BlockDevice#atomicUnitBlocks}, {@link
 *     BlockDevice#powerFailAtomicUnitBlocks}): every write within one aligned physical block is applied whole. NAWUN
 *     = NABSN = its normal unit − 1 and NAWUPF = NABSPF = its power-fail unit − 1 — the physical block on a RAM or
 *     null LUN, and 0 for NAWUPF on a file LUN (the page cache writes back page by page). NSFEAT bit 1 (NSABP) says
 *     these fields are the namespace's, set when any of them is not 0, as QEMU's hw/nvme sets it only with a NAWUN.
 *     Linux (drivers/nvme/host/core.c nvme_update_disk_info) sets physical_block_size = min(LBS × (1 + NPWG),
 *     atomic unit), the atomic unit being LBS × (1 + NAWUPF) with NSFEAT bit 1 and NAWUPF ≠ 0 — else LBS (7.x) or
 *     LBS × (1 + AWUPF) (6.1) — so a RAM LUN shows the configured physical block over NVMe as over iSCSI, and a file
 *     LUN the logical block (said at start and in {@code lun show}: {@link #powerFailShortfall}).</li>
 * <li>With {@code atomic:} (RAM and null backends only) its limits: NAWUN = NAWUPF = max − 1, NABSN = NABSPF =
 *     boundary − 1 (0 = none); writes within them take {@link AtomicWrites#write}.</li>
 * <li>NABO = 0 (Linux disables atomics for any other offset). NACWU = NAWUN: a fused Compare and Write within the
 *     unit is atomic like a write (it holds the range lock exclusively, and applies its write whole); 0 when the
 *     knobs switch Compare (and so the fused operation) off.</li>
 * <li>Controller AWUN / AWUPF / ACWU = the smallest NAWUN / NAWUPF / NACWU of its namespaces (0 without any), so
 *     QEMU's rules NAWUN ≥ AWUN, NAWUPF ≥ AWUPF, NABSN ≥ NAWUN, NABSPF ≥ NAWUPF and NAWUPF ≤ NAWUN hold.</li>
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

    /** NAWUN (and NACWU). */
    static int nawun(Namespace ns) {
        return of(ns).map(a -> (int) a.maxBlocks() - 1).orElseGet(() -> ns.device().atomicUnitBlocks() - 1);
    }

    /** NAWUPF. */
    static int nawupf(Namespace ns) {
        return of(ns).map(a -> (int) a.maxBlocks() - 1).orElseGet(() -> ns.device().powerFailAtomicUnitBlocks() - 1);
    }

    /** NABSN: the backend's unit is aligned, so it is its own boundary. */
    static int nabsn(Namespace ns) {
        return of(ns).map(NvmeAtomics::boundary).orElseGet(() -> ns.device().atomicUnitBlocks() - 1);
    }

    /** NABSPF. */
    static int nabspf(Namespace ns) {
        return of(ns).map(NvmeAtomics::boundary).orElseGet(() -> ns.device().powerFailAtomicUnitBlocks() - 1);
    }

    private static int boundary(AtomicWrites a) {
        return a.boundaryBlocks() == 0 ? 0 : (int) a.boundaryBlocks() - 1;
    }

    static int nsfeat(Namespace ns, int plain) {
        boolean claims = of(ns).isPresent() || nawun(ns) != 0 || nawupf(ns) != 0;
        return claims ? plain | NSFEAT_NSABP : plain & ~NSFEAT_NSABP;
    }

    /** Controller AWUN: what every namespace of the subsystem gives at least. */
    static int awun(Subsystem subsystem) {
        int min = Integer.MAX_VALUE;
        for (Namespace ns : subsystem.namespaces().values()) {
            min = Math.min(min, nawun(ns));
        }
        return min == Integer.MAX_VALUE ? 0 : min;
    }

    /** NACWU: a fused Compare and Write within NAWUN is as atomic as a write; 0 where Compare is switched off. */
    static int nacwu(Namespace ns) {
        return ns.supports(io.blocktarget.protocol.nvme.NvmOpcode.COMPARE) ? nawun(ns) : 0;
    }

    /** Controller ACWU: the smallest NACWU. */
    static int acwu(Subsystem subsystem) {
        int min = Integer.MAX_VALUE;
        for (Namespace ns : subsystem.namespaces().values()) {
            min = Math.min(min, nacwu(ns));
        }
        return min == Integer.MAX_VALUE ? 0 : min;
    }

    /** Controller AWUPF. */
    static int awupf(Subsystem subsystem) {
        int min = Integer.MAX_VALUE;
        for (Namespace ns : subsystem.namespaces().values()) {
            min = Math.min(min, nawupf(ns));
        }
        return min == Integer.MAX_VALUE ? 0 : min;
    }

    /**
     * Why NVMe hosts see a smaller physical block than the LUN's (and than iSCSI hosts see), or empty: the backend
     * cannot promise a physical block survives a power loss whole, so NAWUPF stays below it and Linux caps
     * physical_block_size at LBS × (1 + NAWUPF).
     */
    static Optional<String> powerFailShortfall(BlockDevice device, Optional<AtomicWrites> atomic) {
        int lbs = device.geometry().logicalBlockSize();
        int pbs = device.geometry().physicalBlockSize();
        if (atomic.isPresent() || pbs == lbs || device.powerFailAtomicUnitBlocks() * lbs >= pbs) {
            return Optional.empty();
        }
        return Optional.of("NVMe hosts see physical block size " + device.powerFailAtomicUnitBlocks() * lbs
                + " (iSCSI: " + pbs + "): this backend cannot promise a " + pbs + "-byte write survives a power loss"
                + " whole (NAWUPF " + (device.powerFailAtomicUnitBlocks() - 1) + "), and Linux caps"
                + " physical_block_size at the power-fail atomic unit");
    }

    /** Whether an NVMe write of these blocks is one the namespace promises to apply atomically (NVM Command Set §2.1.4.1). */
    static boolean applies(Namespace ns, long slba, long blocks) {
        Optional<AtomicWrites> atomic = of(ns);
        return atomic.isPresent() && atomic.get().covers(slba, blocks);
    }
}
