package io.blocktarget.block.ram;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * A lock-free sparse array indexed by {@code long}: a radix tree with a fan-out of 1024 whose inner
 * nodes are created on first store (by CAS), like the page cache's xarray. Its depth is the least the
 * capacity needs: a 1 TiB RAM disk of 64 KiB chunks (2^24 chunks) has two levels below the root.
 *
 * <p>The capacity only grows ({@link #grow}, for a RAM disk resize): the root is always 1024 slots,
 * so growing within its reach changes nothing but the bound, and growing past it puts a new root
 * above the old one (the old root becomes slot 0 of the new). Readers and writers that loaded the
 * old {@link Top} keep working on the same nodes, which stay reachable from the new root.
 */
final class SparseArray<T> {
    private static final int BITS = 10;
    private static final int FANOUT = 1 << BITS;
    private static final int MASK = FANOUT - 1;

    /**
     * What one access needs, published together.
     *
     * @param levels inner levels below the root; 0 when the root holds the elements itself
     */
    private record Top(AtomicReferenceArray<Object> root, int levels, long capacity) {
    }

    private volatile Top top;

    SparseArray(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.top = new Top(new AtomicReferenceArray<>(FANOUT), depth(capacity), capacity);
    }

    /** Levels below a 1024-slot root that {@code capacity} slots need. */
    private static int depth(long capacity) {
        int depth = 0;
        for (long reach = FANOUT; reach < capacity && depth < 6; reach <<= BITS) {
            depth++;   // 1024^7 > 2^63: six levels reach every long index
        }
        return depth;
    }

    long capacity() {
        return top.capacity();
    }

    /** Raises the capacity to {@code capacity} (no-op when not larger); elements stay where they are. */
    synchronized void grow(long capacity) {
        Top t = top;
        if (capacity <= t.capacity()) {
            return;
        }
        AtomicReferenceArray<Object> root = t.root();
        int levels = t.levels();
        for (int need = depth(capacity); levels < need; levels++) {
            AtomicReferenceArray<Object> above = new AtomicReferenceArray<>(FANOUT);
            above.set(0, root);
            root = above;
        }
        top = new Top(root, levels, capacity);
    }

    T get(long index) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf == null ? null : element(leaf.get(slot(index, 0)));
    }

    /** Stores {@code value} if the slot is empty; false when another thread got there first. */
    boolean putIfAbsent(long index, T value) {
        return leaf(index, true).compareAndSet(slot(index, 0), null, value);
    }

    /** Replaces {@code expected} (non-null) by {@code value}; false when the slot no longer holds {@code expected}. */
    boolean replace(long index, T expected, T value) {
        return leaf(index, true).compareAndSet(slot(index, 0), expected, value);
    }

    /** Empties the slot and returns what it held, or null. */
    T remove(long index) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf == null ? null : element(leaf.getAndSet(slot(index, 0), null));
    }

    /** Empties every slot, handing each removed element to {@code action}. */
    void removeAll(Consumer<? super T> action) {
        removeRange(0, top.capacity(), action);
    }

    /** Empties the slots {@code [from, to)}, handing each removed element to {@code action}; skips absent subtrees. */
    void removeRange(long from, long to, Consumer<? super T> action) {
        Top t = top;
        if (from < 0 || to > t.capacity() || from > to) {
            throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + t.capacity());
        }
        if (from < to) {
            removeRange(t.root(), t.levels(), 0, from, to, action);
        }
    }

    /** {@code node} covers indexes from {@code base}; each of its slots covers 2^(level*BITS) of them. */
    private void removeRange(AtomicReferenceArray<Object> node, int level, long base, long from, long to,
                             Consumer<? super T> action) {
        int shift = level * BITS;
        int first = (int) (Math.max(from - base, 0) >>> shift);
        int last = (int) Math.min((to - 1 - base) >>> shift, node.length() - 1);
        for (int i = first; i <= last; i++) {
            if (level == 0) {
                T removed = element(node.getAndSet(i, null));
                if (removed != null) {
                    action.accept(removed);
                }
            } else {
                AtomicReferenceArray<Object> child = node(node.get(i));
                if (child != null) {
                    removeRange(child, level - 1, base + ((long) i << shift), from, to, action);
                }
            }
        }
    }

    /**
     * The first index in {@code [from, to)} whose slot is non-empty ({@code present}) or empty (not {@code present}),
     * else {@code to}; skips subtrees never written, so a run over a huge empty range costs little.
     */
    long next(long from, long to, boolean present) {
        Top t = top;
        long end = Math.min(to, t.capacity());
        if (from < 0 || from >= end) {
            return Math.max(from, to);
        }
        long found = next(t.root(), t.levels(), 0, from, end, present);
        return found < 0 ? (present ? to : end) : found;
    }

    private long next(AtomicReferenceArray<Object> node, int level, long base, long from, long to, boolean present) {
        int shift = level * BITS;
        int first = (int) (Math.max(from - base, 0) >>> shift);
        int last = (int) Math.min((to - 1 - base) >>> shift, node.length() - 1);
        for (int i = first; i <= last; i++) {
            long childBase = base + ((long) i << shift);
            Object o = node.get(i);
            if (level == 0) {
                if ((o != null) == present) {
                    return childBase;
                }
            } else if (o == null) {
                if (!present) {
                    return Math.max(childBase, from);
                }
            } else {
                long found = next(node(o), level - 1, childBase, from, to, present);
                if (found >= 0) {
                    return found;
                }
            }
        }
        return -1;
    }

    private static int slot(long index, int level) {
        return (int) ((index >>> (level * BITS)) & MASK);
    }

    private AtomicReferenceArray<Object> leaf(long index, boolean create) {
        Top t = top;
        if (index < 0 || index >= t.capacity()) {
            throw new IndexOutOfBoundsException(index);
        }
        AtomicReferenceArray<Object> node = t.root();
        for (int level = t.levels(); level > 0; level--) {
            int slot = slot(index, level);
            AtomicReferenceArray<Object> child = node(node.get(slot));
            if (child == null) {
                if (!create) {
                    return null;
                }
                AtomicReferenceArray<Object> fresh = new AtomicReferenceArray<>(FANOUT);
                child = node.compareAndSet(slot, null, fresh) ? fresh : node(node.get(slot));
            }
            node = child;
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static AtomicReferenceArray<Object> node(Object o) {
        return (AtomicReferenceArray<Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static <T> T element(Object o) {
        return (T) o;
    }
}
