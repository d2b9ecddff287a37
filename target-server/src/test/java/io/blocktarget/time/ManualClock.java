package io.blocktarget.time;

import io.netty.util.concurrent.EventExecutor;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A virtual {@link Clock} for tests: time stands still and nothing runs until the test calls {@link #advance}; then
 * every task due by the new instant runs in due order (ties in the order scheduled) on the caller's thread — an
 * EmbeddedChannel's loop is the caller's thread, and a task's loop argument is ignored. Thread-safe: tasks may be
 * scheduled from any thread, and a task may schedule more (they run in the same advance when due by then).
 */
public final class ManualClock implements Clock {
    private record Task(long due, long seq, Runnable run, boolean[] cancelled) {
    }

    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
            Comparator.comparingLong(Task::due).thenComparingLong(Task::seq));
    private long now = 1_000_000_000L; // not zero: a bug that treats 0 as "never" would hide
    private long seq;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public Timer schedule(EventExecutor loop, long delayNanos, Runnable task) {
        return schedule(delayNanos, task);
    }

    @Override
    public synchronized Timer schedule(long delayNanos, Runnable task) {
        Task t = new Task(now + Math.max(0, delayNanos), seq++, java.util.Objects.requireNonNull(task, "task"),
                new boolean[1]);
        tasks.add(t);
        return () -> {
            synchronized (this) {
                t.cancelled[0] = true;
            }
        };
    }

    /** Moves time forward by {@code amount} {@code unit}s, running every task due by then. */
    public void advance(long amount, TimeUnit unit) {
        advanceNanos(unit.toNanos(amount));
    }

    public void advanceMillis(long millis) {
        advanceNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    public void advanceNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("time goes forward only: " + nanos);
        }
        long target;
        synchronized (this) {
            target = now + nanos;
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due > target) {
                    now = Math.max(now, target);
                    return;
                }
                tasks.poll();
                now = Math.max(now, next.due);
                if (next.cancelled[0]) {
                    continue;
                }
            }
            next.run.run(); // outside the lock: the task may schedule or cancel
        }
    }

    /** Tasks scheduled and neither cancelled nor run. */
    public synchronized int pending() {
        return (int) tasks.stream().filter(t -> !t.cancelled[0]).count();
    }

    /** Nanoseconds until the next pending task is due; -1 when none is pending. */
    public synchronized long nextDueIn() {
        return tasks.stream().filter(t -> !t.cancelled[0]).mapToLong(Task::due).min().stream()
                .map(due -> due - now).findFirst().orElse(-1);
    }
}
