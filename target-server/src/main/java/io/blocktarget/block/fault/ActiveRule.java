package io.blocktarget.block.fault;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/** A rule as installed on a LUN: the rule plus its trigger state and hit count. Thread-safe. */
public final class ActiveRule {
    private final FaultRule rule;
    private final Object origin;
    private final long addedNanos;
    private final AtomicLong matched = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    /** Hits whose action did not apply where they hit (a digest not negotiated, a fault of the other protocol). */
    private final AtomicLong notApplicable = new AtomicLong();
    /** Completed once the rule is no longer installed (removed, or replaced by a reload): stalls end then. */
    private final java.util.concurrent.CompletableFuture<Void> removed = new java.util.concurrent.CompletableFuture<>();
    /** Throttle: when the next command may start (theoretical arrival time, on the LUN's clock). */
    private final AtomicLong nextStart = new AtomicLong(Long.MIN_VALUE);
    /** Probability: drawn in the order commands arrive, so a seed reproduces a sequence. */
    private final Random random;
    /** OncePerLba: healed intervals, first LBA to last (inclusive); guarded by itself. */
    private final TreeMap<Long, Long> healed;
    /** Delay with jitter: drawn in the order hits arrive, seeded by the rule; guarded by itself. */
    private final Random jitter;

    ActiveRule(FaultRule rule, Object origin, long addedNanos) {
        this.rule = rule;
        this.origin = origin;
        this.addedNanos = addedNanos;
        this.random = rule.trigger() instanceof FaultTrigger.Probability p ? new Random(p.seed()) : null;
        this.healed = rule.trigger() instanceof FaultTrigger.OncePerLba ? new TreeMap<>() : null;
        // a generator of its own (not the trigger's): the delays repeat whatever the trigger draws
        this.jitter = rule.action() instanceof FaultAction.Delay d && d.jitterNanos() > 0 ? new Random(d.seed()) : null;
    }

    /** Delay: how long this hit waits — the fixed part plus the next draw of the rule's seeded jitter. */
    public long delayNanos(FaultAction.Delay d) {
        if (jitter == null) {
            return d.nanos();
        }
        synchronized (jitter) {
            // uniform in [0, jitter]: the bound is inclusive, as documented
            return d.nanos() + (d.jitterNanos() == Long.MAX_VALUE ? jitter.nextLong(Long.MAX_VALUE)
                    : jitter.nextLong(d.jitterNanos() + 1));
        }
    }

    public FaultRule rule() {
        return rule;
    }

    /** What the rule was made from (the configuration's form), for listing it as it was given. */
    public Object origin() {
        return origin;
    }

    /** Commands this rule hit (its action applied). */
    public long hits() {
        return hits.get();
    }

    /** Commands that matched, hit or not. */
    public long matched() {
        return matched.get();
    }

    /** Hits whose action did not apply to the connection or protocol they hit; included in {@link #hits()}. */
    public long notApplicable() {
        return notApplicable.get();
    }

    /** Counts a hit whose action did not apply (the command went on normally). */
    public void countNotApplicable() {
        notApplicable.incrementAndGet();
    }

    /** Runs {@code then} once the rule is no longer installed (at once if it is gone already), on the remover's thread. */
    public void whenRemoved(Runnable then) {
        removed.thenRun(then);
    }

    /** Whether the rule has been removed. */
    public boolean isRemoved() {
        return removed.isDone();
    }

    void retire() {
        removed.complete(null);
    }

    /** The hit for {@code c} at time {@code now} (the LUN's clock), or null. */
    FaultHit test(FaultCommand c, long now) {
        if (!rule.match().matches(c)) {
            return null;
        }
        long n = matched.incrementAndGet();
        long first = rule.match().firstHit(c);
        boolean fire = switch (rule.trigger()) {
            case FaultTrigger.Always _ -> true;
            case FaultTrigger.FirstN t -> n <= t.n();
            case FaultTrigger.EveryNth t -> n % t.n() == 0;
            case FaultTrigger.Probability t -> draw() < t.p();
            case FaultTrigger.After t -> now - addedNanos >= t.nanos();
            case FaultTrigger.OncePerLba _ -> {
                long bad = heal(first, rule.match().lastHit(c));
                first = bad;
                yield bad >= 0;
            }
        };
        if (!fire) {
            return null;
        }
        hits.incrementAndGet();
        return new FaultHit(this, rule.action(), first);
    }

    /**
     * Throttle: reserves the rule's next slot for a command of {@code bytes} arriving at {@code now}; returns how
     * long it must wait (0: at once). Lock-free: concurrent commands take consecutive slots.
     */
    public long reserve(FaultAction.Throttle throttle, long bytes, long now) {
        long cost = throttle.costNanos(bytes);
        while (true) {
            long next = nextStart.get();
            long start = next == Long.MIN_VALUE ? now : Math.max(now, next);
            if (nextStart.compareAndSet(next, start + cost)) {
                return start - now;
            }
        }
    }

    private double draw() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    /** The first not yet healed LBA of [first, last], or -1; heals the whole interval. */
    private long heal(long first, long last) {
        synchronized (healed) {
            long lba = first;
            while (lba <= last) {
                Map.Entry<Long, Long> e = healed.floorEntry(lba);
                if (e == null || e.getValue() < lba) {
                    break;
                }
                if (e.getValue() == Long.MAX_VALUE) {
                    return -1;
                }
                lba = e.getValue() + 1;
            }
            if (lba > last) {
                return -1;
            }
            // merge [first, last] into the healed set
            long from = first;
            long to = last;
            Map.Entry<Long, Long> below = healed.floorEntry(from);
            if (below != null && below.getValue() >= from - 1) {
                from = below.getKey();
                to = Math.max(to, below.getValue());
            }
            Map.Entry<Long, Long> next;
            while ((next = healed.ceilingEntry(from)) != null && next.getKey() <= (to == Long.MAX_VALUE ? to : to + 1)) {
                to = Math.max(to, next.getValue());
                healed.remove(next.getKey());
            }
            healed.put(from, to);
            return lba;
        }
    }

    @Override
    public String toString() {
        return "ActiveRule[" + rule.id() + ", hits " + hits + "]";
    }
}
