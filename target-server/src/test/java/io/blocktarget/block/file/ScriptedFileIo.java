package io.blocktarget.block.file;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The test seam of the file backend: the real {@link FileIo} with every read and write recorded (thread, flags,
 * result) and optionally answered by a hook instead — EAGAIN, a short transfer, an error, or a file system that
 * refuses (or honours) RWF_NOWAIT — and fdatasync counted and optionally gated so a test holds it "running".
 */
final class ScriptedFileIo implements FileIo {
    /** Answers one call, or returns null to let the real descriptor do it. */
    @FunctionalInterface
    interface Hook {
        Long answer(FileIo real, ByteBuf buf, int index, int length, long offset, int flags);
    }

    record Call(String op, int flags, long offset, int length, long result, String thread) {
        boolean nowait() {
            return (flags & RWF_NOWAIT) != 0;
        }
    }

    final FileIo real;
    volatile Hook readHook = (real, buf, index, length, offset, flags) -> null;
    volatile Hook writeHook = (real, buf, index, length, offset, flags) -> null;
    final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    final AtomicInteger fdatasyncs = new AtomicInteger();
    /** When set, each fdatasync releases one {@link #syncStarted} permit and then takes a permit from here. */
    volatile Semaphore syncGate;
    final Semaphore syncStarted = new Semaphore(0);
    volatile int syncResult;
    /** When not 0, what fallocate answers instead of the real call. */
    volatile int fallocateResult;

    ScriptedFileIo(FileIo real) {
        this.real = real;
    }

    /** A hook emulating a file system without RWF_NOWAIT (tmpfs; ext4 for buffered writes). */
    static Hook refuseNowait() {
        return (real, buf, index, length, offset, flags) -> (flags & RWF_NOWAIT) != 0 ? (long) -Errno.EOPNOTSUPP : null;
    }

    /** A hook emulating one that honours RWF_NOWAIT writes and never has to wait (XFS on allocated, cached blocks). */
    static Hook nowaitWritesSucceed() {
        return (real, buf, index, length, offset, flags) -> (flags & RWF_NOWAIT) != 0
                ? real.write(buf, index, length, offset, flags & ~RWF_NOWAIT) : null;
    }

    /** A hook emulating a file system whose pages are all cached: RWF_NOWAIT reads are honoured and never wait. */
    static Hook nowaitReadsSucceed() {
        return (real, buf, index, length, offset, flags) -> (flags & RWF_NOWAIT) != 0
                ? real.read(buf, index, length, offset, flags & ~RWF_NOWAIT) : null;
    }

    List<Call> calls(String op) {
        return calls.stream().filter(c -> c.op().equals(op)).toList();
    }

    @Override
    public long read(ByteBuf into, int index, int length, long offset, int flags) {
        Long answer = readHook.answer(real, into, index, length, offset, flags);
        long n = answer != null ? answer : real.read(into, index, length, offset, flags);
        calls.add(new Call("read", flags, offset, length, n, Thread.currentThread().getName()));
        return n;
    }

    @Override
    public long write(ByteBuf from, int index, int length, long offset, int flags) {
        Long answer = writeHook.answer(real, from, index, length, offset, flags);
        long n = answer != null ? answer : real.write(from, index, length, offset, flags);
        calls.add(new Call("write", flags, offset, length, n, Thread.currentThread().getName()));
        return n;
    }

    @Override
    public int fdatasync() {
        fdatasyncs.incrementAndGet();
        Semaphore gate = syncGate;
        if (gate != null) {
            syncStarted.release();
            gate.acquireUninterruptibly();
        }
        calls.add(new Call("fdatasync", 0, 0, 0, 0, Thread.currentThread().getName()));
        return syncResult != 0 ? syncResult : real.fdatasync();
    }

    @Override
    public int fallocate(int mode, long offset, long length) {
        int answer = fallocateResult;
        return answer != 0 ? answer : real.fallocate(mode, offset, length);
    }

    @Override
    public int fadvise(long offset, long length, int advice) {
        return real.fadvise(offset, length, advice);
    }

    @Override
    public long size() {
        return real.size();
    }

    @Override
    public long fileSystemType() {
        return real.fileSystemType();
    }

    @Override
    public void close() {
        real.close();
    }
}
