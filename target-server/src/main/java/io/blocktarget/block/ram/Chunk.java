package io.blocktarget.block.ram;

import io.blocktarget.block.NativeByteBuf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One allocation unit of a {@link RamBlockDevice}: its memory and the lock of the one change that may run on it in
 * place. Readers never take the lock; they check it after taking their reference (see {@link RamBlockDevice}: a
 * change runs in place only while nobody else holds a reference, else on a copy that is swapped in).
 */
final class Chunk {
    private static final VarHandle CHANGING;

    static {
        try {
            CHANGING = MethodHandles.lookup().findVarHandle(Chunk.class, "changing", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The memory; the chunk table holds one reference, every reader's slice and every running change one more. */
    final NativeByteBuf memory;
    /** 1 while a writer owns the chunk (deciding whether to change it in place, or doing so), else 0. */
    @SuppressWarnings("unused") // through CHANGING
    private volatile int changing;

    Chunk(NativeByteBuf memory) {
        this.memory = memory;
    }

    /** Takes the chunk for one change; false when another writer has it. */
    boolean tryLock() {
        return CHANGING.compareAndSet(this, 0, 1);
    }

    void unlock() {
        changing = 0;
    }

    /** Whether a writer has the chunk now (its memory may be changing in place). */
    boolean changing() {
        return changing != 0;
    }

    /**
     * Waits a moment for another thread's change of a chunk (a copy of at most one chunk): spins, and after a while
     * gives the processor up so that a writer that lost its CPU gets it back.
     */
    static void backOff(int attempt) {
        if (attempt < 128) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
