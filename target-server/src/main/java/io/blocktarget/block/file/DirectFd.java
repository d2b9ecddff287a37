package io.blocktarget.block.file;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * open(2) of the raw file descriptor that {@link UringFileBlockDevice} submits io_uring operations on: a
 * {@link java.nio.channels.FileChannel} does not hand out its descriptor, and the ring needs a number.
 */
final class DirectFd {
    /** fcntl.h on x86_64 / aarch64 generic. */
    static final int O_RDONLY = 0;
    static final int O_RDWR = 02;
    static final int O_DIRECT = 040000;
    static final int O_CLOEXEC = 02000000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = LINKER.downcallHandle(
            LINKER.defaultLookup().find("open").orElseThrow(() -> new UnsatisfiedLinkError("libc has no open")),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));

    private DirectFd() {
    }

    /** open(path, flags | O_CLOEXEC); the descriptor, or {@code -errno}. */
    static int open(String path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path), flags | O_CLOEXEC, 0);
            return fd >= 0 ? fd : -(int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException("open failed", t);
        }
    }
}
