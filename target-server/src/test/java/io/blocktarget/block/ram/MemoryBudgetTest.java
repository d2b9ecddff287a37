package io.blocktarget.block.ram;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryBudgetTest {
    @Test
    void reservesUpToTheLimitExactly() {
        MemoryBudget budget = new MemoryBudget(100);
        assertThat(budget.tryReserve(60)).isTrue();
        assertThat(budget.tryReserve(41)).isFalse();
        assertThat(budget.used()).isEqualTo(60);
        assertThat(budget.tryReserve(40)).isTrue();
        assertThat(budget.tryReserve(1)).isFalse();
        budget.release(100);
        assertThat(budget.used()).isZero();
        assertThat(budget.limit()).isEqualTo(100);
    }

    @Test
    void hugeReservationsDoNotOverflow() {
        MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE);
        assertThat(budget.tryReserve(Long.MAX_VALUE - 1)).isTrue();
        assertThat(budget.tryReserve(Long.MAX_VALUE)).isFalse();
        assertThat(budget.tryReserve(1)).isTrue();
        assertThat(budget.tryReserve(1)).isFalse();
    }

    @Test
    void misuseIsRefused() {
        assertThatThrownBy(() -> new MemoryBudget(-1)).isInstanceOf(IllegalArgumentException.class);
        MemoryBudget budget = new MemoryBudget(10);
        assertThatThrownBy(() -> budget.tryReserve(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> budget.release(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void concurrentReservationsNeverExceedTheLimit() throws Exception {
        MemoryBudget budget = new MemoryBudget(10_000);
        AtomicLong granted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        if (budget.tryReserve(7)) {
                            granted.addAndGet(7);
                        }
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertThat(granted.get()).isEqualTo(budget.used()).isEqualTo(10_000 / 7 * 7);
    }
}
