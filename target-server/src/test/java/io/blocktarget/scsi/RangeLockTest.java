package io.blocktarget.scsi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RangeLockTest {
    private final RangeLock lock = new RangeLock();
    private final List<String> granted = new ArrayList<>();
    private final List<RangeLock.Lease> leases = new ArrayList<>();

    private void shared(String name, long lba, long count) {
        lock.acquireShared(lba, count, l -> {
            granted.add(name);
            leases.add(l);
        });
    }

    private void exclusive(String name, long lba, long count) {
        lock.acquireExclusive(lba, count, l -> {
            granted.add(name);
            leases.add(l);
        });
    }

    @Test
    void sharedRangesOverlapExclusiveOnesWaitAndNothingOvertakesAWaiter() {
        shared("w1", 0, 10);
        shared("w2", 5, 10);                      // overlapping writes: both granted
        exclusive("caw", 8, 1);                   // waits for both
        shared("w3", 100, 1);                     // disjoint: granted at once
        shared("w4", 8, 1);                       // overlaps the waiting CAW: queued behind it
        assertThat(granted).containsExactly("w1", "w2", "w3");
        leases.get(0).release();
        assertThat(granted).containsExactly("w1", "w2", "w3");
        leases.get(1).release();
        assertThat(granted).containsExactly("w1", "w2", "w3", "caw");
        leases.get(3).release();
        assertThat(granted).containsExactly("w1", "w2", "w3", "caw", "w4");
        leases.get(2).release();
        leases.get(4).release();
        assertThat(lock.heldCount()).isZero();
        assertThatThrownBy(() -> leases.get(4).release()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void zeroLengthRangesStillCountAsOneBlock() {
        exclusive("a", 7, 0);
        shared("b", 7, 1);
        assertThat(granted).containsExactly("a");
        leases.getFirst().release();
        assertThat(granted).containsExactly("a", "b");
    }
}
