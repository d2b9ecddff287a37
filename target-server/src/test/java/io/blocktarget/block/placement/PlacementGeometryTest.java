package io.blocktarget.block.placement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Mapping unit choice, unit counts and the memory bound. */
class PlacementGeometryTest {
    private static final long GIB = 1L << 30;

    @Test
    void aOneGibLunAt4KiBIsTrackedPerBlock() {
        PlacementGeometry g = PlacementGeometry.of(PlacementSpec.DEFAULTS, 4096, GIB / 4096);
        assertThat(g.blockExact()).isTrue();
        assertThat(g.mappingUnits()).isEqualTo(262_144);
        assertThat(g.slotsPerUnit()).isEqualTo(16_384);
        // 16 units of capacity, 7 % more rounds up to 18 (= 16 + the two-unit minimum); 14 writers × 2
        assertThat(g.baseUnits()).isEqualTo(18);
        assertThat(g.physicalUnits()).isEqualTo(18 + 28);
        assertThat(g.reclaimUnitBytes()).isEqualTo(64L << 20);
        // 1.25 MiB of per-block tables, 2.9 MiB of reverse map (46 units of 16384 slots)
        assertThat(g.tableBytes()).isBetween(4L << 20, 5L << 20);
    }

    @Test
    void overProvisioningAddsUnitsOnceItExceedsTheTwoUnitMinimum() {
        PlacementSpec thirty = new PlacementSpec(64L << 20, 8, 6, 3000);
        PlacementGeometry g = PlacementGeometry.of(thirty, 4096, 16 * GIB / 4096);
        assertThat(g.baseUnits()).isEqualTo(333);            // ceil(256 × 1.3) = 332.8 -> 333
        PlacementGeometry none = PlacementGeometry.of(new PlacementSpec(64L << 20, 8, 6, 0), 4096, 16 * GIB / 4096);
        assertThat(none.baseUnits()).isEqualTo(258);         // 256 + 2
    }

    @Test
    void aLunTooBigForTheTableGetsTheSmallestCoarserUnitThatFits() {
        PlacementGeometry g = PlacementGeometry.of(PlacementSpec.DEFAULTS, 4096, 64 * GIB / 4096);
        assertThat(g.blockExact()).isFalse();
        assertThat(g.tableBytes()).isLessThanOrEqualTo(PlacementGeometry.DEFAULT_MAX_TABLE_BYTES);
        assertThat(g.reclaimUnitBlocks() % g.mappingUnitBlocks()).isZero();
        // the next finer divisor of the reclaim unit would not fit
        int finer = g.mappingUnitBlocks() / 2;
        long finerUnits = (g.blockCount() + finer - 1) / finer;
        int finerPerUnit = g.reclaimUnitBlocks() / finer;
        long finerBase = PlacementGeometry.baseUnits(finerUnits, finerPerUnit, 700);
        assertThat(PlacementGeometry.tableBytes(finerUnits, finerBase + 28, finerPerUnit, 14))
                .isGreaterThan(PlacementGeometry.DEFAULT_MAX_TABLE_BYTES);
        PlacementGeometry huge = PlacementGeometry.of(PlacementSpec.DEFAULTS, 4096, 1024 * GIB / 4096);
        assertThat(huge.tableBytes()).isLessThanOrEqualTo(PlacementGeometry.DEFAULT_MAX_TABLE_BYTES);
    }

    @Test
    void aTinyReclaimUnitOnAHugeLunIsRefused() {
        PlacementSpec tiny = new PlacementSpec(4096, 8, 6, 700);
        assertThatThrownBy(() -> PlacementGeometry.of(tiny, 4096, 1024 * GIB / 4096))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("placement.reclaim-unit-size: 4096 bytes makes too many reclaim units");
    }

    @Test
    void aReclaimUnitLargerThanTheLunStillHasTwoSpareUnits() {
        PlacementGeometry g = PlacementGeometry.of(new PlacementSpec(1L << 20, 1, 1, 0), 512, 64);
        assertThat(g.mappingUnits()).isEqualTo(64);
        assertThat(g.baseUnits()).isEqualTo(2);
        assertThat(g.physicalUnits()).isEqualTo(6);
    }

    @Test
    void divisorsAscending() {
        assertThat(PlacementGeometry.divisors(12)).containsExactly(1, 2, 3, 4, 6, 12);
        assertThat(PlacementGeometry.divisors(16)).containsExactly(1, 2, 4, 8, 16);
        assertThat(PlacementGeometry.divisors(1)).containsExactly(1);
        assertThat(PlacementGeometry.divisors(7)).containsExactly(1, 7);
    }

    @Test
    void inconsistentGeometriesAreRefused() {
        assertThatThrownBy(() -> new PlacementGeometry(4096, 64, 8, 3, 22, 2, 10, 2, 14))
                .isInstanceOf(IllegalArgumentException.class);          // 3 does not divide 8
        assertThatThrownBy(() -> new PlacementGeometry(4096, 64, 8, 1, 64, 8, 1, 2, 5))
                .isInstanceOf(IllegalArgumentException.class);          // fewer than two base units
        assertThatThrownBy(() -> new PlacementGeometry(4096, 64, 8, 1, 64, 8, 10, 2, 13))
                .isInstanceOf(IllegalArgumentException.class);          // physical != base + 2 × writers
        assertThat(new PlacementGeometry(4096, 64, 8, 1, 64, 8, 10, 2, 14).slots()).isEqualTo(112);
    }

    /**
     * The memory a placement LUN costs, measured from the model's arrays as allocated: the estimate the geometry makes
     * beforehand (and lun show reports as model-bytes) covers them, by at most 100 bytes per writer. A 1 GiB LUN with
     * the defaults (64 MiB reclaim units, 8 handles, 6 streams, 7 % over-provisioning) has 18 reclaim units of capacity
     * and 28 for its 14 writers' open and reclaim units, 46 in all: 34.0 MiB at 512 B blocks, 4.25 MiB at 4 KiB, 1.06
     * MiB at 16 KiB (docs/placement.md).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"512, 34.0", "4096, 4.25", "16384, 1.06"})
    void theEstimateCoversTheModelsArrays(int lbs, double mibPerGib) {
        PlacementGeometry g = PlacementGeometry.of(PlacementSpec.DEFAULTS, lbs, GIB / lbs);
        assertThat(g.blockExact()).isTrue();
        MediaModel model = new MediaModel(g, () -> 0);
        long arrays = model.arrayBytes();
        assertThat(g.tableBytes()).isGreaterThanOrEqualTo(arrays).isLessThanOrEqualTo(arrays + 100L * g.writers());
        assertThat(g.physicalUnits()).isEqualTo(18 + 28);
        assertThat(arrays / 1048576.0).isCloseTo(mibPerGib, org.assertj.core.data.Offset.offset(mibPerGib * 0.02));
    }
}
