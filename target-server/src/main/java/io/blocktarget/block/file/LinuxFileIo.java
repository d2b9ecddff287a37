package io.blocktarget.block.file;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file descriptor of our own, opened with open(2) through FFM, and the Linux calls the file backends make on it:
 * preadv2 / pwritev2 with per-call flags (RWF_NOWAIT for the inline fast path, RWF_DSYNC for FUA), fdatasync,
 * fallocate, posix_fadvise. {@link java.nio.channels.FileChannel} offers none of the flags and hides its descriptor.
 *
 * <p>I/O goes straight from and into the Netty buffer's memory (its memory address, or the addresses of its direct
 * NIO components as one iovec array): no copy. Only heap buffers, which have no stable address, are copied through a
 * pooled direct buffer. The iovec array and the errno capture live in per-thread scratch memory, so a call allocates
 * nothing.
 *
 * <p>The descriptor is reference-counted ({@link #acquire()} / {@link #release()}, done by every method here): close(2)
 * runs only when no call is in progress, so a number the kernel reuses for another open can never get our I/O. Other
 * engines (io_uring) may borrow {@link #fd()} between acquire and release.
 */
public final class LinuxFileIo implements FileIo {
    public static final int POSIX_FADV_DONTNEED = 4;
    /** statfs f_type values, linux/magic.h. */
    public static final long TMPFS_MAGIC = 0x01021994L;
    public static final long RAMFS_MAGIC = 0x858458f6L;

    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 02000000;
    /** asm-generic/fcntl.h, also on x86 and arm64. */
    private static final int O_NOATIME = 01000000;
    /** O_DIRECT differs between architectures (asm/fcntl.h): 040000 on x86, 0200000 on arm64. */
    private static final int O_DIRECT = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).contains("aarch64")
            ? 0200000 : 040000;
    private static final int SEEK_END = 2;
    /** Linux UIO_MAXIOV: more components than this are copied into one buffer first. */
    private static final int IOV_MAX = 1024;
    private static final long IOVEC_SIZE = 16;   // struct iovec { void *iov_base; size_t iov_len; }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(INT, ValueLayout.ADDRESS, INT, INT), Linker.Option.firstVariadicArg(2), CAPTURE_ERRNO);
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(INT, INT));
    /**
     * The calls on the descriptor that fail with -1 and errno, each adapted to the one shape {@link #call} runs:
     * {@code (errno capture, fd, pointer, a, b, c) -> long}. The numbers after a handle say which of pointer (2), a
     * (3), b (4), c (5) its own arguments after the fd take; the rest are dropped, ints widen to long. invokeExact on
     * these constants boxes nothing and allocates nothing.
     */
    private static final MethodType CALL = MethodType.methodType(long.class, MemorySegment.class, int.class,
            MemorySegment.class, long.class, long.class, long.class);
    private static final MethodHandle PREADV2 = shaped(downcall("preadv2",
            FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, INT, LONG, INT), CAPTURE_ERRNO), 2, 3, 4, 5);
    private static final MethodHandle PWRITEV2 = shaped(downcall("pwritev2",
            FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, INT, LONG, INT), CAPTURE_ERRNO), 2, 3, 4, 5);
    private static final MethodHandle FDATASYNC = shaped(downcall("fdatasync",
            FunctionDescriptor.of(INT, INT), CAPTURE_ERRNO));
    private static final MethodHandle FALLOCATE = shaped(downcall("fallocate",
            FunctionDescriptor.of(INT, INT, INT, LONG, LONG), CAPTURE_ERRNO), 3, 4, 5);
    private static final MethodHandle LSEEK = shaped(downcall("lseek",
            FunctionDescriptor.of(LONG, INT, LONG, INT), CAPTURE_ERRNO), 3, 4);
    private static final MethodHandle FSTATFS = shaped(downcall("fstatfs",
            FunctionDescriptor.of(INT, INT, ValueLayout.ADDRESS), CAPTURE_ERRNO), 2);
    /** Returns the error number itself, not -1 and errno. */
    private static final MethodHandle POSIX_FADVISE = downcall("posix_fadvise",
            FunctionDescriptor.of(INT, INT, LONG, LONG, INT));
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, INT));
    /** struct statfs is 120 bytes on 64-bit Linux; f_type is its first field, a long. */
    private static final long STATFS_SIZE = 128;

    /** Per-thread errno capture and iovec array: the hot path allocates no native memory. */
    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch(8);
        }
    };

    private final Path path;
    private final int fd;
    /** Bit 0: closed; the rest: calls in progress, in steps of 2. */
    private final AtomicInteger uses = new AtomicInteger();

    private LinuxFileIo(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /**
     * open(2) with O_CLOEXEC, read-only or read-write, optionally O_DIRECT. Fails with an IOException naming the path
     * and the error (EINVAL with O_DIRECT: the file system refuses direct I/O).
     *
     * <p>Also O_NOATIME where the kernel allows it (owner or CAP_FOWNER, else EPERM and we open without): a read
     * after a write would otherwise update atime, which on ext4 starts a journal transaction inside the read — a
     * wait RWF_NOWAIT does not guard against — and dirties the inode for nothing a block device needs.
     */
    public static LinuxFileIo open(Path path, boolean readOnly, boolean direct) throws IOException {
        int flags = (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC | (direct ? O_DIRECT : 0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            MemorySegment name = arena.allocateFrom(path.toString());
            int fd = (int) OPEN.invokeExact(state, name, flags | O_NOATIME, 0);
            if (fd < 0 && (int) ERRNO.get(state, 0L) == Errno.EPERM) {
                fd = (int) OPEN.invokeExact(state, name, flags, 0);
            }
            if (fd < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IOException(path + ": open failed: " + Errno.describe(errno));
            }
            return new LinuxFileIo(path, fd);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("open(2) failed", t);
        }
    }

    public Path path() {
        return path;
    }

    /** The descriptor number; valid only between {@link #acquire()} and {@link #release()}. */
    public int fd() {
        return fd;
    }

    /** Holds the descriptor open for a call; false once closed. Every true must be followed by one release. */
    public boolean acquire() {
        for (;;) {
            int s = uses.get();
            if ((s & 1) != 0) {
                return false;
            }
            if (uses.compareAndSet(s, s + 2)) {
                return true;
            }
        }
    }

    public void release() {
        if (uses.addAndGet(-2) == 1) {   // closed, and this was the last call in progress
            closeNow();
        }
    }

    @Override
    public void close() {
        for (;;) {
            int s = uses.get();
            if ((s & 1) != 0) {
                return;
            }
            if (uses.compareAndSet(s, s | 1)) {
                if (s == 0) {
                    closeNow();
                }
                return;
            }
        }
    }

    private void closeNow() {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long read(ByteBuf into, int index, int length, long offset, int flags) {
        Scratch scratch = SCRATCH.get();
        int count = scratch.fill(into, index, length);
        if (count < 0) {   // heap memory: read into a direct buffer and copy
            ByteBuf bounce = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            try {
                long n = read(bounce, 0, length, offset, flags);
                if (n > 0) {
                    into.setBytes(index, bounce, 0, (int) n);
                }
                return n;
            } finally {
                bounce.release();
            }
        }
        return call(scratch, PREADV2, scratch.iov, count, offset, flags);
    }

    @Override
    public long write(ByteBuf from, int index, int length, long offset, int flags) {
        Scratch scratch = SCRATCH.get();
        int count = scratch.fill(from, index, length);
        if (count < 0) {
            ByteBuf bounce = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            try {
                bounce.writeBytes(from, index, length);
                return write(bounce, 0, length, offset, flags);
            } finally {
                bounce.release();
            }
        }
        return call(scratch, PWRITEV2, scratch.iov, count, offset, flags);
    }

    @Override
    public int fdatasync() {
        return (int) call(SCRATCH.get(), FDATASYNC, MemorySegment.NULL, 0, 0, 0);
    }

    @Override
    public int fallocate(int mode, long offset, long length) {
        return (int) call(SCRATCH.get(), FALLOCATE, MemorySegment.NULL, mode, offset, length);
    }

    @Override
    public int fadvise(long offset, long length, int advice) {
        if (!acquire()) {
            return -Errno.EBADF;
        }
        try {
            return -(int) POSIX_FADVISE.invokeExact(fd, offset, length, advice);
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
    }

    @Override
    public long size() {
        return call(SCRATCH.get(), LSEEK, MemorySegment.NULL, 0, SEEK_END, 0);
    }

    @Override
    public long fileSystemType() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment statfs = arena.allocate(STATFS_SIZE, 8);
            long r = call(SCRATCH.get(), FSTATFS, statfs, 0, 0, 0);
            return r < 0 ? r : statfs.get(LONG, 0) & 0xffffffffL;
        }
    }

    /**
     * Runs one {@link #CALL}-shaped call on the descriptor, held open for it: the result, or -errno (-EBADF once
     * closed). EINTR — a signal came before anything was done — is asked again.
     */
    private long call(Scratch scratch, MethodHandle handle, MemorySegment pointer, long a, long b, long c) {
        if (!acquire()) {
            return -Errno.EBADF;
        }
        try {
            for (;;) {
                long r = (long) handle.invokeExact(scratch.state, fd, pointer, a, b, c);
                if (r >= 0) {
                    return r;
                }
                int errno = (int) ERRNO.get(scratch.state, 0L);
                if (errno != Errno.EINTR) {
                    return -errno;
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        } finally {
            release();
        }
    }

    /** The C library's text for an errno, for messages. */
    public static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? "errno " + errno : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String toString() {
        return "LinuxFileIo[" + path + ", fd " + fd + "]";
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /**
     * {@code downcall} (errno capture, fd, then its own arguments) as a {@link #CALL}: its own arguments taken from
     * the positions given, ints narrowed from the long ones (the callers pass int values), the result widened to long.
     */
    private static MethodHandle shaped(MethodHandle downcall, int... positions) {
        MethodType own = downcall.type();
        if (positions.length != own.parameterCount() - 2) {
            throw new IllegalArgumentException(own + ": " + positions.length + " positions");
        }
        MethodType widened = MethodType.methodType(long.class, MemorySegment.class, int.class);
        int[] reorder = new int[own.parameterCount()];
        reorder[1] = 1;
        for (int i = 2; i < own.parameterCount(); i++) {
            widened = widened.appendParameterTypes(CALL.parameterType(positions[i - 2]));
            reorder[i] = positions[i - 2];
        }
        return MethodHandles.permuteArguments(MethodHandles.explicitCastArguments(downcall, widened), CALL, reorder);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("native call failed", t);
    }

    /** One thread's native scratch memory, freed by the GC with the thread's FastThreadLocal map. */
    private static final class Scratch {
        final MemorySegment state = Arena.ofAuto().allocate(CAPTURE_LAYOUT);
        MemorySegment iov;
        int capacity;

        Scratch(int capacity) {
            grow(capacity);
        }

        private void grow(int entries) {
            iov = Arena.ofAuto().allocate(entries * IOVEC_SIZE, 8);
            capacity = entries;
        }

        /** Writes the iovecs of {@code buf[index, index + length)}; their count, or -1 when some memory is not native. */
        int fill(ByteBuf buf, int index, int length) {
            if (buf.hasMemoryAddress()) {
                set(0, buf.memoryAddress() + index, length);
                return 1;
            }
            if (buf.nioBufferCount() == 1) {
                ByteBuffer b = buf.nioBuffer(index, length);
                if (!b.isDirect()) {
                    return -1;
                }
                set(0, MemorySegment.ofBuffer(b).address(), length);
                return 1;
            }
            ByteBuffer[] parts = buf.nioBuffers(index, length);
            if (parts.length > IOV_MAX) {
                return -1;
            }
            if (parts.length > capacity) {
                grow(Math.max(parts.length, capacity * 2));
            }
            int count = 0;
            for (ByteBuffer b : parts) {
                if (!b.isDirect()) {
                    return -1;
                }
                if (b.hasRemaining()) {
                    set(count++, MemorySegment.ofBuffer(b).address(), b.remaining());
                }
            }
            return count;
        }

        private void set(int i, long address, long length) {
            iov.set(LONG, i * IOVEC_SIZE, address);
            iov.set(LONG, i * IOVEC_SIZE + 8, length);
        }
    }
}
