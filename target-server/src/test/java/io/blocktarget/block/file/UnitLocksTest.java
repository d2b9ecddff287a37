package io.blocktarget.block.file;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link UnitLocks}: reads share a unit, a write has it alone, in arrival order, rounded out to whole units. */
class UnitLocksTest {
    private final List<String> order = new ArrayList<>();
    private final List<UnitLocks.Lease> leases = new ArrayList<>();

    private void take(UnitLocks locks, String name, long lba, long blocks, boolean write) {
        locks.acquire(lba, blocks, write, lease -> {
            order.add(name);
            leases.add(lease);
        });
    }

    @Test
    void readsShareAndAWriteWaitsForThemThenHoldsItsUnitsAlone() {
        UnitLocks locks = new UnitLocks(4);
        take(locks, "r1", 0, 1, false);
        take(locks, "r2", 3, 1, false);             // the same unit (blocks 0..3): shared
        take(locks, "w", 2, 1, true);               // block 2, unit 0: waits for both reads
        take(locks, "r3", 1, 1, false);             // after the waiting write: does not overtake it
        take(locks, "other", 4, 4, true);           // unit 1: free
        assertThat(order).containsExactly("r1", "r2", "other");
        leases.get(0).release();
        assertThat(order).containsExactly("r1", "r2", "other");
        leases.get(1).release();
        assertThat(order).containsExactly("r1", "r2", "other", "w");
        leases.get(3).release();                    // the write
        assertThat(order).containsExactly("r1", "r2", "other", "w", "r3");
        leases.get(2).release();
        leases.get(4).release();
        assertThat(locks.pending()).isZero();
    }

    @Test
    void rangesAreRoundedOutToUnitsAndNeighboursDoNotWait() {
        UnitLocks locks = new UnitLocks(8);
        take(locks, "w", 7, 2, true);               // blocks 7..8: units 0 and 1
        take(locks, "r0", 0, 1, false);             // unit 0: waits
        take(locks, "r1", 15, 1, false);            // unit 1: waits
        take(locks, "r2", 16, 1, false);            // unit 2: free
        assertThat(order).containsExactly("w", "r2");
        leases.get(0).release();
        assertThat(order).containsExactly("w", "r2", "r0", "r1");
    }

    @Test
    void writesOfOneUnitExcludeEachOtherAndAZeroCountIsOneBlock() {
        UnitLocks locks = new UnitLocks(1);
        take(locks, "w1", 5, 0, true);
        take(locks, "w2", 5, 1, true);
        take(locks, "w3", 6, 1, true);
        assertThat(order).containsExactly("w1", "w3");
        leases.get(0).release();
        assertThat(order).containsExactly("w1", "w3", "w2");
    }

    @Test
    void rangesNearTheEndOfTheLbaSpaceSaturateInsteadOfWrapping() {
        UnitLocks locks = new UnitLocks(4);
        take(locks, "huge", Long.MAX_VALUE - 1, Long.MAX_VALUE, true);
        take(locks, "low", 0, 1, true);
        assertThat(order).containsExactly("huge", "low");
        assertThat(UnitLocks.end(Long.MAX_VALUE - 1, 10)).isEqualTo(Long.MAX_VALUE);
        assertThat(UnitLocks.end(10, 0)).isEqualTo(11);
    }

    @Test
    void aSecondReleaseIsABug() {
        UnitLocks locks = new UnitLocks(2);
        take(locks, "r", 0, 1, false);
        leases.getFirst().release();
        assertThatThrownBy(() -> leases.getFirst().release()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new UnitLocks(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new UnitLocks(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
