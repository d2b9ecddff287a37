package io.blocktarget.block;

import io.netty.util.concurrent.FastThreadLocal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A fixed set of {@code long} counters that I/O threads add to without an atomic instruction and readers sum: each
 * thread adds into its own shard with plain (opaque) stores — no lock, no CAS, no allocation after the thread's first
 * add (issue 27: an atomic per counter and command cost a few per cent at 4 KiB) — and {@link #sum} adds the shards up
 * (each count untorn, at most a moment late). The shard of a thread that ended is folded into the rest by the next
 * sum, so thread churn leaves nothing behind. What the per-LUN statistics of both layers are built on: the command
 * sets' {@code CommandStats} and the backends' {@link LunStats}.
 *
 * <p>A thread finds its shard through one Netty {@link FastThreadLocal} for the whole process (on an event loop, a
 * FastThreadLocalThread, one array read by a fixed index; JFR put 24 % of an iSCSI event loop's samples in
 * {@code ThreadLocalMap.getEntry} when this was a ThreadLocal per instance) holding the thread's shards by counter-set
 * id. Ids are reused once a counter set is unreachable (the next set made takes back the ids of collected ones from a
 * reference queue: no thread of its own), and a shard names the generation of the set it belongs to, not the set: a
 * thread's table never keeps a removed LUN's counters alive, and holds at most one stale shard per id, replaced on
 * that thread's first add to the id's next owner. So adding and removing LUNs at run time does not grow the threads'
 * tables (one FastThreadLocal per set did: Netty never reuses their indexes, and each recording thread kept every
 * set's shard).
 */
public final class ShardedCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** The ids in use; guarded by itself. */
    private static final BitSet IDS = new BitSet();
    /** The generation of each id, bumped when it is handed out again; guarded by {@link #IDS}. */
    private static int[] generations = new int[64];
    /** Where the references of collected sets arrive; drained by {@link #reclaimIds}. */
    private static final ReferenceQueue<ShardedCounters> COLLECTED = new ReferenceQueue<>();
    /** The live sets' references (a reference must stay reachable to be enqueued); guarded by {@link #IDS}. */
    private static final Set<IdReference> REFERENCES = new HashSet<>();

    /** Gives a set's id back once the set is collected. */
    private static final class IdReference extends PhantomReference<ShardedCounters> {
        final int id;

        IdReference(ShardedCounters counters, int id) {
            super(counters, COLLECTED);
            this.id = id;
        }
    }

    /** The calling thread's shards by id. */
    private static final FastThreadLocal<Shard[]> THREAD_SHARDS = new FastThreadLocal<>() {
        @Override
        protected Shard[] initialValue() {
            return new Shard[16];
        }
    };

    /** One thread's counts: written by that thread only, read by any. Holds no reference to its counter set. */
    private static final class Shard {
        final Thread owner = Thread.currentThread();
        final long stamp;
        final long[] counts;

        Shard(long stamp, int length) {
            this.stamp = stamp;
            this.counts = new long[length];
        }

        long get(int slot) {
            return (long) SLOT.getOpaque(counts, slot);
        }
    }

    private final int length;
    private final int id;
    /** id and generation: which shards are this set's. */
    private final long stamp;
    /** The live threads' shards; guarded by this object's monitor (a new thread registers once). */
    private final List<Shard> shards = new ArrayList<>();
    /** The counts of threads that ended, folded in by a read; guarded by this object's monitor. */
    private final long[] retired;

    /** {@code length} counters, all zero. */
    public ShardedCounters(int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("length " + length);
        }
        this.length = length;
        this.retired = new long[length];
        int generation;
        synchronized (IDS) {
            reclaimIds();
            id = IDS.nextClearBit(0);
            IDS.set(id);
            if (id >= generations.length) {
                generations = Arrays.copyOf(generations, Math.max(id + 1, generations.length * 2));
            }
            generation = ++generations[id];
            REFERENCES.add(new IdReference(this, id));
        }
        this.stamp = (long) id << 32 | (generation & 0xFFFFFFFFL);
    }

    /** Frees the ids of the sets collected since the last call; the caller holds {@link #IDS}. */
    private static void reclaimIds() {
        Reference<? extends ShardedCounters> collected;
        while ((collected = COLLECTED.poll()) != null) {
            IdReference reference = (IdReference) collected;
            REFERENCES.remove(reference);
            IDS.clear(reference.id);
        }
    }

    /** How many counters there are. */
    public int length() {
        return length;
    }

    /**
     * The calling thread's counts of this set, for {@link #add(long[], int, long)}: look it up once per event, then
     * add each counter of the event into it. Only the calling thread may add into it.
     */
    public long[] local() {
        return shard().counts;
    }

    /** Adds {@code delta} to counter {@code slot} of {@code local}, the calling thread's counts from {@link #local}. */
    public static void add(long[] local, int slot, long delta) {
        SLOT.setOpaque(local, slot, local[slot] + delta);
    }

    /** The calling thread's shard of this set, made on the thread's first add. */
    private Shard shard() {
        Shard[] byId = THREAD_SHARDS.get();
        if (id < byId.length) {
            Shard shard = byId[id];
            if (shard != null && shard.stamp == stamp) {
                return shard;
            }
        } else {
            byId = Arrays.copyOf(byId, Math.max(id + 1, byId.length * 2));
            THREAD_SHARDS.set(byId);
        }
        Shard shard = register();
        byId[id] = shard;   // a stale shard of an earlier owner of this id goes: its set is gone
        return shard;
    }

    private synchronized Shard register() {
        Shard shard = new Shard(stamp, length);
        shards.add(shard);
        return shard;
    }

    /** Sum of counter {@code slot} over every thread; folds the shards of threads that ended into the rest first. */
    public synchronized long sum(int slot) {
        long total = retired[slot];
        for (int k = shards.size() - 1; k >= 0; k--) {
            Shard shard = shards.get(k);
            // JLS §17.4.5: a thread's actions happen-before another thread sees it terminated (isAlive false)
            if (!shard.owner.isAlive()) {
                for (int i = 0; i < length; i++) {
                    retired[i] += shard.counts[i];
                }
                shards.remove(k);
                total += shard.counts[slot];
            } else {
                total += shard.get(slot);
            }
        }
        return total;
    }

    /** The id this set holds in every thread's table (tests: ids are reused after a set is collected). */
    int id() {
        return id;
    }

    /** Whether a set not yet collected (or collected but not yet noticed) holds {@code id} (tests). */
    static boolean idInUse(int id) {
        synchronized (IDS) {
            reclaimIds();
            return IDS.get(id);
        }
    }
}
