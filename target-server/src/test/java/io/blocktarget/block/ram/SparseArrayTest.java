package io.blocktarget.block.ram;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SparseArrayTest {
    @Test
    void storesAndRemovesAtTheEdgesOfEveryDepth() {
        for (long capacity : new long[] {1, 1024, 1025, 1L << 20, (1L << 20) + 1, 1L << 47}) {
            SparseArray<String> array = new SparseArray<>(capacity);
            long last = capacity - 1;
            assertThat(array.get(0)).isNull();
            assertThat(array.get(last)).isNull();
            assertThat(array.putIfAbsent(0, "first")).isTrue();
            assertThat(array.putIfAbsent(last, last == 0 ? "first" : "last")).isEqualTo(last != 0);
            assertThat(array.putIfAbsent(0, "again")).isFalse();
            assertThat(array.get(0)).isEqualTo("first");
            assertThat(array.get(last)).isEqualTo(last == 0 ? "first" : "last");
            if (capacity > 2) {
                assertThat(array.get(capacity / 2)).isNull();
            }
            assertThat(array.remove(0)).isEqualTo("first");
            assertThat(array.get(0)).isNull();
            assertThat(array.remove(0)).isNull();
        }
    }

    /** next(): the end of a run of present or absent slots, across leaves and absent subtrees, bounded by to. */
    @Test
    void nextFindsTheEndOfARunAtEveryDepth() {
        SparseArray<Long> array = new SparseArray<>(1L << 40);
        long[] present = {5, 6, 7, 1023, 1024, 1L << 20, (1L << 40) - 1};
        for (long i : present) {
            array.putIfAbsent(i, i);
        }
        assertThat(array.next(0, 1L << 40, true)).isEqualTo(5);
        assertThat(array.next(5, 1L << 40, false)).isEqualTo(8);
        assertThat(array.next(8, 1L << 40, true)).isEqualTo(1023);
        assertThat(array.next(1023, 1L << 40, false)).isEqualTo(1025);         // across two leaves
        assertThat(array.next(1025, 1L << 40, true)).isEqualTo(1L << 20);      // over absent leaves
        assertThat(array.next((1L << 20) + 1, 1L << 40, true)).isEqualTo((1L << 40) - 1); // over absent subtrees
        assertThat(array.next((1L << 40) - 1, 1L << 40, false)).isEqualTo(1L << 40); // present to the end
        assertThat(array.next(8, 100, true)).isEqualTo(100);                     // none before to
        assertThat(array.next(5, 7, false)).isEqualTo(7);
        assertThat(array.next(2000, 3000, false)).isEqualTo(2000);               // absent at once
        assertThat(array.next(1L << 40, (1L << 40) + 5, true)).isEqualTo((1L << 40) + 5); // past the capacity
    }

    @Test
    void removeAllVisitsEveryElementOnce() {
        SparseArray<Long> array = new SparseArray<>(1L << 40);
        long[] indexes = {0, 1023, 1024, 1L << 20, (1L << 40) - 1};
        for (long i : indexes) {
            array.putIfAbsent(i, i);
        }
        List<Long> seen = new ArrayList<>();
        array.removeAll(seen::add);
        assertThat(seen).containsExactly(0L, 1023L, 1024L, 1L << 20, (1L << 40) - 1);
        for (long i : indexes) {
            assertThat(array.get(i)).isNull();
        }
    }

    @Test
    void removeRangeTakesExactlyTheRange() {
        for (long capacity : new long[] {1000, 1L << 22, 1L << 40}) {
            SparseArray<Long> array = new SparseArray<>(capacity);
            List<Long> stored = new ArrayList<>();
            for (long i = 0; i < capacity; i = i * 3 + 1) {
                array.putIfAbsent(i, i);
                stored.add(i);
            }
            array.putIfAbsent(capacity - 1, capacity - 1);
            stored.add(capacity - 1);
            long from = capacity / 7;
            long to = capacity / 2 + 1;
            List<Long> removed = new ArrayList<>();
            array.removeRange(from, to, removed::add);
            assertThat(removed).containsExactlyElementsOf(stored.stream().filter(i -> i >= from && i < to).toList());
            for (long i : stored) {
                assertThat(array.get(i)).as("index %d", i).isEqualTo(i >= from && i < to ? null : i);
            }
            array.removeRange(from, from, removed::add);   // empty range
            assertThatThrownBy(() -> array.removeRange(0, capacity + 1, removed::add))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void indexesOutsideTheCapacityAreBugs() {
        SparseArray<String> array = new SparseArray<>(5000);
        assertThatThrownBy(() -> array.get(5000)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> array.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new SparseArray<String>(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
