package io.blocktarget.transport.iscsi;

import io.netty.util.concurrent.EventExecutor;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A fake clock for iSCSI connection timers: nothing runs until the test calls {@link #advance}; then every task due
 * by the new instant runs in due order on the caller's thread (an EmbeddedChannel's loop is the caller's thread).
 */
final class ManualIscsiScheduler implements IscsiScheduler {
    private record Task(long due, long seq, Runnable run, boolean[] cancelled) {
    }

    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
            Comparator.comparingLong(Task::due).thenComparingLong(Task::seq));
    private long now = 1_000_000_000L; // not zero: a bug that treats 0 as "never" would hide
    private long seq;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Cancellable schedule(EventExecutor loop, long delayNanos, Runnable task) {
        Task t = new Task(now + Math.max(0, delayNanos), seq++, task, new boolean[1]);
        tasks.add(t);
        return () -> t.cancelled[0] = true;
    }

    void advanceMillis(long millis) {
        advanceNanos(millis * 1_000_000L);
    }

    void advanceNanos(long nanos) {
        long target = now + nanos;
        while (true) {
            Task next = tasks.peek();
            if (next == null || next.due > target) {
                now = target;
                return;
            }
            tasks.poll();
            now = next.due;
            if (!next.cancelled[0]) {
                next.run.run();
            }
        }
    }

    /** Tasks scheduled and neither cancelled nor run. */
    int pending() {
        return (int) tasks.stream().filter(t -> !t.cancelled[0]).count();
    }
}
