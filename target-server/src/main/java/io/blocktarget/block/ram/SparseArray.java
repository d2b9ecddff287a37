package io.blocktarget.block.ram;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * A lock-free sparse array indexed by {@code long}: a radix tree with a fan-out of 1024 whose inner
 * nodes are created on first store (by CAS), like the page cache's xarray. Its depth is fixed by the
 * capacity, so the root is at most 1024 slots: a 1 TiB RAM disk of 64 KiB chunks (2^24 chunks)
 * costs a 16-slot root until something is written, and an 8 EiB one a 128-slot root.
 */
final class SparseArray<T> {
    private static final int BITS = 10;
    private static final int FANOUT = 1 << BITS;
    private static final int MASK = FANOUT - 1;

    /** Inner levels below the root; 0 when the root holds the elements itself. */
    private final int levels;
    private final AtomicReferenceArray<Object> root;
    private final long capacity;

    SparseArray(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        int depth = 0;
        long rootSlots = capacity;
        while (rootSlots > FANOUT) {
            rootSlots = (rootSlots + MASK) >>> BITS;
            depth++;
        }
        this.levels = depth;
        this.capacity = capacity;
        this.root = new AtomicReferenceArray<>((int) rootSlots);
    }

    long capacity() {
        return capacity;
    }

    T get(long index) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf == null ? null : element(leaf.get(slot(index, 0)));
    }

    /** Stores {@code value} if the slot is empty; false when another thread got there first. */
    boolean putIfAbsent(long index, T value) {
        return leaf(index, true).compareAndSet(slot(index, 0), null, value);
    }

    /** Empties the slot and returns what it held, or null. */
    T remove(long index) {
        AtomicReferenceArray<Object> leaf = leaf(index, false);
        return leaf == null ? null : element(leaf.getAndSet(slot(index, 0), null));
    }

    /** Empties every slot, handing each removed element to {@code action}. */
    void removeAll(Consumer<? super T> action) {
        removeRange(0, capacity, action);
    }

    /** Empties the slots {@code [from, to)}, handing each removed element to {@code action}; skips absent subtrees. */
    void removeRange(long from, long to, Consumer<? super T> action) {
        if (from < 0 || to > capacity || from > to) {
            throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + capacity);
        }
        if (from < to) {
            removeRange(root, levels, 0, from, to, action);
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

    private static int slot(long index, int level) {
        return (int) ((index >>> (level * BITS)) & MASK);
    }

    private AtomicReferenceArray<Object> leaf(long index, boolean create) {
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException(index);
        }
        AtomicReferenceArray<Object> node = root;
        for (int level = levels; level > 0; level--) {
            int slot = level == levels ? (int) (index >>> (level * BITS)) : slot(index, level);
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
