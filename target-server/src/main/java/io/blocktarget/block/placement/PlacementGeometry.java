package io.blocktarget.block.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The shape of one LUN's {@link MediaModel}: how logical blocks map onto reclaim units and how much memory that takes.
 *
 * <p><b>Mapping unit.</b> The model tracks the location of every mapping unit of {@code mappingUnitBlocks} logical
 * blocks — the logical block itself when the tables fit {@link #DEFAULT_MAX_TABLE_BYTES}, else the smallest coarser unit
 * that divides the reclaim unit and fits. A coarser unit behaves like an SSD with that indirection unit: a write that
 * covers part of a unit is a read-modify-write of the whole unit on the medium (a sequential writer continuing the unit
 * it just wrote is merged, as a drive's write buffer does).
 *
 * <p><b>Reclaim units.</b> {@code baseUnits} hold the capacity plus over-provisioning (at least two spare units, so
 * reclaim always makes progress); every writer the LUN may use (one per handle and per stream) gets two more, for its
 * open unit and for the unit reclaim copies its data to, and they join the pool only once the writer has written: the
 * spare the reclaim works with is the configured over-provisioning whatever the number of open units, so hinted and
 * unhinted runs of the same workload compare on the same medium.
 *
 * <p><b>Memory.</b> Per mapping unit a 4-byte location and a 1-byte owner; per physical slot a 4-byte reverse entry;
 * per reclaim unit 17 bytes; per slot of a reclaim unit 8 bytes (the reclaim buckets): about 9.3 bytes per mapping
 * unit at 7 % over-provisioning — 2.3 MiB per GiB of LUN at 4 KiB blocks, 18.6 MiB at 512 B — and never more than
 * {@link #DEFAULT_MAX_TABLE_BYTES} per LUN.
 *
 * @param logicalBlockSize    bytes per logical block
 * @param blockCount          logical blocks of the LUN
 * @param reclaimUnitBlocks   logical blocks per reclaim unit
 * @param mappingUnitBlocks   logical blocks per mapping unit (divides reclaimUnitBlocks)
 * @param mappingUnits        mapping units covering the LUN (the last may be partial)
 * @param slotsPerUnit        mapping units a reclaim unit holds
 * @param baseUnits           reclaim units for capacity plus over-provisioning
 * @param writers             host writers (handles + streams)
 * @param physicalUnits       all reclaim units: baseUnits + 2 × writers
 */
public record PlacementGeometry(int logicalBlockSize, long blockCount, int reclaimUnitBlocks, int mappingUnitBlocks,
                                int mappingUnits, int slotsPerUnit, int baseUnits, int writers, int physicalUnits) {
    /** The most memory one LUN's tables may take; a LUN that would need more gets a coarser mapping unit. */
    public static final long DEFAULT_MAX_TABLE_BYTES = 36L << 20;

    public PlacementGeometry {
        if (logicalBlockSize <= 0 || blockCount <= 0 || reclaimUnitBlocks <= 0 || mappingUnitBlocks <= 0
                || reclaimUnitBlocks % mappingUnitBlocks != 0 || mappingUnits <= 0
                || slotsPerUnit != reclaimUnitBlocks / mappingUnitBlocks || writers <= 0
                || baseUnits < 2 || physicalUnits != baseUnits + 2L * writers) {
            throw new IllegalArgumentException("inconsistent placement geometry");
        }
    }

    /** The geometry for {@code config} on a LUN of {@code blockCount} blocks of {@code logicalBlockSize} bytes. */
    public static PlacementGeometry of(PlacementSpec config, int logicalBlockSize, long blockCount) {
        return of(config, logicalBlockSize, blockCount, DEFAULT_MAX_TABLE_BYTES);
    }

    /**
     * As {@link #of(PlacementSpec, int, long)} with the memory bound {@code maxTableBytes}. Fails with the reason when
     * the reclaim unit is not a multiple of the block size or when even whole-reclaim-unit mapping exceeds the bound (a
     * tiny reclaim unit on a huge LUN).
     */
    public static PlacementGeometry of(PlacementSpec config, int logicalBlockSize, long blockCount,
                                       long maxTableBytes) {
        Objects.requireNonNull(config, "config");
        if (blockCount <= 0) {
            throw new IllegalArgumentException("block count " + blockCount);
        }
        config.checkBlockSize(logicalBlockSize).ifPresent(reason -> {
            throw new IllegalArgumentException(reason);
        });
        long ruBlocks = config.reclaimUnitBytes() / logicalBlockSize;
        if (ruBlocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("placement.reclaim-unit-size: " + config.reclaimUnitBytes()
                    + " bytes; allowed at most " + (long) Integer.MAX_VALUE * logicalBlockSize + " at this block size");
        }
        int writers = config.writers();
        for (int d : divisors((int) ruBlocks)) {
            long units = ceilDiv(blockCount, d);
            int perUnit = (int) ruBlocks / d;
            long base = baseUnits(units, perUnit, config.overProvisioningBasisPoints());
            long physical = base + 2L * writers;
            if (units <= Integer.MAX_VALUE && physical * perUnit <= Integer.MAX_VALUE
                    && tableBytes(units, physical, perUnit, writers) <= maxTableBytes) {
                return new PlacementGeometry(logicalBlockSize, blockCount, (int) ruBlocks, d, (int) units, perUnit,
                        (int) base, writers, (int) physical);
            }
        }
        throw new IllegalArgumentException("placement.reclaim-unit-size: " + config.reclaimUnitBytes()
                + " bytes makes too many reclaim units for a LUN of " + blockCount * logicalBlockSize
                + " bytes; allowed: a reclaim unit large enough that the model fits " + (maxTableBytes >> 20)
                + " MiB");
    }

    /** Capacity plus over-provisioning in whole units, and never fewer than two spare units. */
    static long baseUnits(long mappingUnits, int slotsPerUnit, int overProvisioningBasisPoints) {
        long withSpare = ceilDiv(mappingUnits * (10_000 + overProvisioningBasisPoints), 10_000L * slotsPerUnit);
        return Math.max(withSpare, mappingUnits / slotsPerUnit + 2);
    }

    /** Ascending divisors of {@code n}. */
    static List<Integer> divisors(int n) {
        List<Integer> low = new ArrayList<>();
        List<Integer> high = new ArrayList<>();
        for (int d = 1; (long) d * d <= n; d++) {
            if (n % d == 0) {
                low.add(d);
                if (d != n / d) {
                    high.add(0, n / d);
                }
            }
        }
        low.addAll(high);
        return low;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    public long reclaimUnitBytes() {
        return (long) reclaimUnitBlocks * logicalBlockSize;
    }

    public long mappingUnitBytes() {
        return (long) mappingUnitBlocks * logicalBlockSize;
    }

    /** Physical slots: mapping units the whole medium holds. */
    public long slots() {
        return (long) physicalUnits * slotsPerUnit;
    }

    /** Bytes of the model's tables: the heap a placement LUN costs, give or take object headers. */
    public long tableBytes() {
        return tableBytes(mappingUnits, physicalUnits, slotsPerUnit, writers);
    }

    static long tableBytes(long mappingUnits, long physicalUnits, long slotsPerUnit, int writers) {
        return 5L * mappingUnits                 // location (int) and owner (byte) per mapping unit
                + 4L * physicalUnits * slotsPerUnit  // reverse map per physical slot
                + 17L * physicalUnits                // valid count, bucket links, free ring, state
                + 8L * (slotsPerUnit + 1)            // reclaim bucket heads and tails
                + 100L * writers;                    // per-writer positions and counters
    }

    /** True when every logical block is tracked on its own (no read-modify-write of partial mapping units). */
    public boolean blockExact() {
        return mappingUnitBlocks == 1;
    }
}
