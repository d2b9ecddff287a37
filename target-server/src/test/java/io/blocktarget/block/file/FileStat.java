package io.blocktarget.block.file;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The test's own view of a file, by path and independent of the descriptor calls under test: stat(2)'s st_blocks and
 * statfs(2)'s f_type, as coreutils' {@code stat -c %b} and {@code stat -f -c %t} print them — read in this JVM, so a
 * unit test starts no process (issue 26: the quick tier starts none).
 */
final class FileStat {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle STAT = LINKER.downcallHandle(LINKER.defaultLookup().find("stat").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle STATFS = LINKER.downcallHandle(LINKER.defaultLookup().find("statfs").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    /** x86_64 struct stat: 144 bytes, st_blocks (512-byte units) at offset 64 (asm/stat.h). */
    private static final long STAT_SIZE = 144;
    private static final long ST_BLOCKS = 64;
    /** 64-bit struct statfs: 120 bytes, f_type first (bits/statfs.h). */
    private static final long STATFS_SIZE = 120;

    private FileStat() {
    }

    /** Allocated 512-byte units of {@code file} (st_blocks). */
    static long allocatedSectors(Path file) {
        assumeTrue("amd64".equals(System.getProperty("os.arch")), "struct stat layout of x86_64");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STAT_SIZE, 8);
            assertThat((int) STAT.invokeExact(arena.allocateFrom(file.toString()), st)).as("stat %s", file).isZero();
            return st.get(ValueLayout.JAVA_LONG, ST_BLOCKS);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The file system's f_type (linux/magic.h), as an unsigned 32-bit value. */
    static long fileSystemType(Path file) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATFS_SIZE, 8);
            assertThat((int) STATFS.invokeExact(arena.allocateFrom(file.toString()), st)).as("statfs %s", file).isZero();
            return st.get(ValueLayout.JAVA_LONG, 0) & 0xffffffffL;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
