package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ThreadExecutorMap;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file I/O of one io_uring event loop: one {@link IoUringIoHandle} registered with the loop's ring, through which
 * every {@link UringFileBlockDevice} called on that loop submits its reads, writes and fsyncs, and whose completions
 * the loop delivers back on the same thread — no lock, no thread hop (io_uring_enter(2) submits them with the loop's
 * socket operations and returns their CQEs with them).
 *
 * <p>Each operation occupies a slot whose index travels in the SQE's user data (Netty's 16-bit {@code data}), so a
 * completion finds its operation without a map. Slots are reused objects: no allocation per I/O beyond the buffer.
 *
 * <p>Only the loop's own thread touches an instance ({@link #current()} builds it there).
 */
final class UringLoop implements IoUringIoHandle {
    /** Operations one loop keeps in flight; beyond it the devices take their worker path (never an error). */
    static final int MAX_IN_FLIGHT = 1024;

    /** io_uring opcodes and flags, include/uapi/linux/io_uring.h. */
    static final byte IORING_OP_FSYNC = 3;
    static final byte IORING_OP_READ = 22;
    static final byte IORING_OP_WRITE = 23;
    static final int IORING_FSYNC_DATASYNC = 1;

    private enum State { OPEN, CLOSED }

    /** What an operation does, and so how its CQE is read. */
    enum Kind { READ, WRITE, FSYNC }

    /** The thread's loop; {@link #NONE} where the thread is no io_uring event loop (epoll loop, worker, test). */
    private static final UringLoop NONE = new UringLoop();
    private static final FastThreadLocal<UringLoop> CURRENT = new FastThreadLocal<>() {
        @Override
        protected UringLoop initialValue() {
            return attach();
        }
    };
    private static final System.Logger LOG = System.getLogger("blocktarget.block");

    private final Op[] ops = new Op[MAX_IN_FLIGHT];
    private final short[] free = new short[MAX_IN_FLIGHT];
    private int freeCount;
    /** Group commit per device (on this loop): the fsync in flight and the flushes waiting for the next one. */
    private final Map<UringFileBlockDevice, FlushGroup> flushGroups = new IdentityHashMap<>();
    private IoRegistration registration;
    private State state = State.CLOSED;
    /** IORING_OP_FSYNCs submitted, for tests of group commit. */
    private long fsyncs;

    private UringLoop() {
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            ops[i] = new Op((short) i);
            free[i] = (short) (MAX_IN_FLIGHT - 1 - i);
        }
        freeCount = MAX_IN_FLIGHT;
    }

    /** The calling thread's io_uring loop with a free slot, or null: then the caller takes its worker path. */
    static UringLoop current() {
        UringLoop loop = CURRENT.get();
        return loop.state == State.OPEN && loop.freeCount > 0 ? loop : null;
    }

    /** True when the calling thread is an io_uring event loop this class can submit on. */
    static boolean onUringLoop() {
        return CURRENT.get().state == State.OPEN;
    }

    private static UringLoop attach() {
        // Netty maps each event loop thread to its executor (SingleThreadEventExecutor); nothing else here does.
        EventExecutor executor = ThreadExecutorMap.currentExecutor();
        if (!(executor instanceof IoEventLoop loop) || !loop.inEventLoop() || !loop.isCompatible(UringLoop.class)) {
            return NONE;
        }
        UringLoop uring = new UringLoop();
        Future<IoRegistration> registered = loop.register(uring);   // on the loop's thread: done before it returns
        if (!registered.isSuccess()) {
            LOG.log(System.Logger.Level.WARNING, "io_uring file I/O cannot register with event loop {0}: {1}; "
                    + "file LUNs use worker threads on it", Thread.currentThread().getName(), registered.cause());
            return NONE;
        }
        uring.registration = registered.getNow();
        uring.state = State.OPEN;
        return uring;
    }

    /** @param address where {@code target}'s memory starts (aligned for O_DIRECT) */
    void read(UringFileBlockDevice device, ByteBuf target, long address, long offset, int length,
              IoCallback<ByteBuf> callback) {
        Op op = transfer(device, Kind.READ, target, address, offset, length);
        op.readCallback = callback;
        submit(op);
    }

    /** @param bounce the aligned copy {@code address} points into, released on completion; null for zero copy */
    void write(UringFileBlockDevice device, ByteBuf bounce, long address, long offset, int length, boolean fua,
               IoCallback<Void> callback) {
        Op op = transfer(device, Kind.WRITE, bounce, address, offset, length);
        op.voidCallback = callback;
        op.fua = fua;
        submit(op);
    }

    /**
     * Group commit: one IORING_OP_FSYNC (DATASYNC) answers every flush asked for before it was submitted. A flush
     * that arrives while one is in flight waits for the next: the one in flight may have started before writes
     * that completed before this flush was asked for. fdatasync on any descriptor of the file covers every write
     * to it, from either of the device's paths.
     */
    void flush(UringFileBlockDevice device, IoCallback<Void> callback) {
        FlushGroup group = flushGroups.computeIfAbsent(device, d -> new FlushGroup());
        if (group.inFlight != null) {
            group.next.add(callback);
            return;
        }
        group.waiting.add(callback);
        startFsync(device, group);
    }

    private void startFsync(UringFileBlockDevice device, FlushGroup group) {
        if (freeCount == 0 || !device.acquire()) {
            // no slot (or closed meanwhile): the whole group takes the worker path, which completes off the loop
            List<IoCallback<Void>> callbacks = List.copyOf(group.waiting);
            group.waiting.clear();
            flushGroups.remove(device);
            for (IoCallback<Void> callback : callbacks) {
                device.flushOnWorker(callback);
            }
            return;
        }
        Op op = take(device, Kind.FSYNC);
        fsyncs++;
        op.group = group;
        group.inFlight = op;
        submit(op);
    }

    private Op transfer(UringFileBlockDevice device, Kind kind, ByteBuf buffer, long address, long offset, int length) {
        Op op = take(device, kind);
        op.buffer = buffer;
        op.address = address;
        op.offset = offset;
        op.length = length;
        return op;
    }

    private Op take(UringFileBlockDevice device, Kind kind) {
        Op op = ops[free[--freeCount]];
        op.device = device;
        op.kind = kind;
        op.done = 0;
        return op;
    }

    private void release(Op op) {
        op.device = null;
        op.buffer = null;
        op.readCallback = null;
        op.voidCallback = null;
        op.group = null;
        op.fua = false;
        free[freeCount++] = op.slot;
    }

    private void submit(Op op) {
        IoUringIoOps sqe = switch (op.kind) {
            case READ, WRITE -> new IoUringIoOps(op.kind == Kind.READ ? IORING_OP_READ : IORING_OP_WRITE, (byte) 0,
                    (short) 0, op.device.fd(), op.offset + op.done, op.address + op.done, op.length - op.done, 0,
                    op.slot, (short) 0, (short) 0, 0, 0L);
            case FSYNC -> new IoUringIoOps(IORING_OP_FSYNC, (byte) 0, (short) 0, op.device.fd(), 0L, 0L, 0,
                    IORING_FSYNC_DATASYNC, op.slot, (short) 0, (short) 0, 0, 0L);
        };
        if (registration.submit(sqe) == 0) {   // the registration is gone (loop shutting down)
            complete(op, -Errno.ECANCELED);
        }
    }

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
        IoUringIoEvent cqe = (IoUringIoEvent) event;
        complete(ops[cqe.data() & 0xFFFF], cqe.res());
    }

    private void complete(Op op, int res) {
        if (res == -Errno.EAGAIN || res == -Errno.EINTR) {
            submit(op);   // nothing transferred: ask again
            return;
        }
        if (op.kind != Kind.FSYNC && res > 0 && op.done + res < op.length) {
            op.done += res;   // short transfer: the rest from where it stopped
            submit(op);
            return;
        }
        UringFileBlockDevice device = op.device;
        switch (op.kind) {
            case READ -> {
                ByteBuf buffer = op.buffer;
                IoCallback<ByteBuf> callback = op.readCallback;
                int length = op.length;
                release(op);
                device.release();
                if (res > 0) {
                    deliver(callback, buffer.writerIndex(length), null);
                } else {
                    buffer.release();
                    deliver(callback, null, device.failure(Kind.READ, res, BlockError.READ_ERROR));
                }
            }
            case WRITE -> {
                ByteBuf bounce = op.buffer;
                IoCallback<Void> callback = op.voidCallback;
                boolean fua = op.fua;
                release(op);
                device.release();
                if (bounce != null) {
                    bounce.release();
                }
                if (res <= 0) {
                    deliver(callback, null, device.failure(Kind.WRITE, res, BlockError.WRITE_ERROR));
                } else if (fua) {
                    flush(device, callback);   // FUA: durable before completion (SBC-4 §5.x FUA, NVMe FUA bit)
                } else {
                    deliver(callback, null, null);
                }
            }
            case FSYNC -> {
                FlushGroup group = op.group;
                release(op);
                device.release();
                BlockIoException failure = res < 0 ? device.failure(Kind.FSYNC, res, BlockError.WRITE_ERROR) : null;
                List<IoCallback<Void>> done = new ArrayList<>(group.waiting);
                group.waiting.clear();
                group.inFlight = null;
                if (group.next.isEmpty()) {
                    flushGroups.remove(device);
                } else {
                    List<IoCallback<Void>> swap = group.waiting;
                    group.waiting = group.next;
                    group.next = swap;
                    startFsync(device, group);
                }
                for (IoCallback<Void> callback : done) {
                    deliver(callback, null, failure);
                }
            }
        }
    }

    /** Runs a callback; one that throws must not reach Netty's loop (which would log it and sleep 100 ms). */
    private static <T> void deliver(IoCallback<T> callback, T result, BlockIoException failure) {
        FileBlockDevice.deliver(callback, result, failure);
    }

    /**
     * The loop is shutting down: Netty still delivers the completions of what is in flight (it drains the ring
     * before it is destroyed); nothing new is submitted here from now on.
     */
    @Override
    public void close() {
        state = State.CLOSED;
        if (registration != null) {
            registration.cancel();
        }
    }

    /** Slots in use on the calling thread's loop, for tests. */
    static int inFlightOnThisThread() {
        UringLoop loop = CURRENT.get();
        return MAX_IN_FLIGHT - loop.freeCount;
    }

    /** IORING_OP_FSYNCs the calling thread's loop submitted so far, for tests. */
    static long fsyncsOnThisThread() {
        return CURRENT.get().fsyncs;
    }

    /** One operation in flight; reused by its slot. */
    private static final class Op {
        final short slot;
        Kind kind;
        UringFileBlockDevice device;
        /** READ: the buffer read into (handed to the callback); WRITE: the bounce copy, or null. */
        ByteBuf buffer;
        IoCallback<ByteBuf> readCallback;
        IoCallback<Void> voidCallback;
        FlushGroup group;
        long address;
        long offset;
        int length;
        /** Bytes already transferred (short transfers resubmit the rest). */
        int done;
        boolean fua;

        Op(short slot) {
            this.slot = slot;
        }
    }

    /** The flushes of one device on one loop: those the fsync in flight answers, and those for the next one. */
    private static final class FlushGroup {
        Op inFlight;
        List<IoCallback<Void>> waiting = new ArrayList<>();
        List<IoCallback<Void>> next = new ArrayList<>();
    }
}
