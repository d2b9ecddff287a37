package io.blocktarget.block;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc functions the backends call through FFM: native memory outside the JVM's direct
 * memory limit (the RAM disk counts it against its own budget instead), and {@code fallocate} for
 * punching holes, which {@link java.nio.channels.FileChannel} does not offer.
 */
public final class Libc {
    /** fallocate(2) mode bits, linux/falloc.h. */
    public static final int FALLOC_FL_KEEP_SIZE = 0x01;
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    /** errno values, asm-generic/errno*.h. */
    public static final int ENOSPC = 28;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;
    /** madvise(2): back the range with transparent huge pages where the kernel can (THP "madvise" or "always"). */
    public static final int MADV_HUGEPAGE = 14;
    /** madvise(2): never back the range with transparent huge pages (not even with THP "always"). */
    public static final int MADV_NOHUGEPAGE = 15;
    /** madvise(2): drop the range's pages; a private anonymous mapping reads zeros there afterwards. */
    public static final int MADV_DONTNEED = 4;
    /** madvise(2), Linux 6.1+: collapse the range into huge pages now, synchronously; EINVAL before 6.1. */
    public static final int MADV_COLLAPSE = 25;

    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;

    private static final int O_WRONLY = 01;
    private static final int O_CLOEXEC = 02000000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle CALLOC = downcall("calloc",
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MALLOC = downcall("malloc",
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle ALIGNED_ALLOC = downcall("aligned_alloc",
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = downcall("free", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    private static final MethodHandle MADVISE = downcall("madvise",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), CAPTURE_ERRNO);
    private static final MethodHandle CLOSE = downcall("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), CAPTURE_ERRNO);

    private Libc() {
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** Zeroed native memory of {@code size} bytes, or {@link MemorySegment#NULL} when malloc fails. */
    public static MemorySegment calloc(long size) {
        try {
            return sized((MemorySegment) CALLOC.invokeExact(1L, size), size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Uninitialised native memory, for a buffer about to be overwritten completely. */
    public static MemorySegment malloc(long size) {
        try {
            return sized((MemorySegment) MALLOC.invokeExact(size), size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Uninitialised native memory aligned to {@code alignment} (a power of two), as O_DIRECT needs. */
    public static MemorySegment alignedAlloc(long alignment, long size) {
        // C11 aligned_alloc wants the size to be a multiple of the alignment.
        long rounded = (size + alignment - 1) & -alignment;
        try {
            return sized((MemorySegment) ALIGNED_ALLOC.invokeExact(alignment, rounded), size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void free(MemorySegment memory) {
        try {
            FREE.invokeExact(memory);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * madvise(memory, its size, advice); returns 0, or -1 when the kernel refused (a hint: callers go on either way).
     * The range must start on a page.
     */
    public static int madvise(MemorySegment memory, int advice) {
        try {
            return (int) MADVISE.invokeExact(memory, memory.byteSize(), advice);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Zeroed private anonymous memory of {@code size} bytes aligned to {@code alignment} (a power of two, a multiple of
     * the page size), or {@link MemorySegment#NULL} when mmap fails (e.g. vm.max_map_count reached): maps
     * size + alignment, then unmaps the unaligned head and the tail. Give it back with {@link #munmap}.
     */
    public static MemorySegment mmapAligned(long alignment, long size) {
        long length = size + alignment;
        try {
            MemorySegment mapped = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, length,
                    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
            long start = mapped.address();
            if (start == -1L) {   // MAP_FAILED
                return MemorySegment.NULL;
            }
            long aligned = (start + alignment - 1) & -alignment;
            if (aligned > start) {
                int head = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(start), aligned - start);
            }
            long end = start + length;
            if (end > aligned + size) {
                int tail = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(aligned + size), end - aligned - size);
            }
            return MemorySegment.ofAddress(aligned).reinterpret(size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** munmap(memory, its size): memory from {@link #mmapAligned}. */
    public static void munmap(MemorySegment memory) {
        try {
            int ignored = (int) MUNMAP.invokeExact(memory, memory.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MemorySegment sized(MemorySegment address, long size) {
        return address.equals(MemorySegment.NULL) ? MemorySegment.NULL : address.reinterpret(size);
    }

    /** open(path, O_WRONLY | O_CLOEXEC); returns the fd, or {@code -errno}. */
    public static int openForWrite(String path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path), O_WRONLY | O_CLOEXEC, 0);
            return fd >= 0 ? fd : -(int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fallocate(fd, mode, offset, length); returns 0 or the errno. */
    public static int fallocate(int fd, int mode, long offset, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            int result = (int) FALLOCATE.invokeExact(state, fd, mode, offset, length);
            return result == 0 ? 0 : (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
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
}
