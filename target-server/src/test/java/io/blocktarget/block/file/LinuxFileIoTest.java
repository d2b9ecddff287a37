package io.blocktarget.block.file;

import io.blocktarget.block.Io;
import io.blocktarget.block.Libc;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The FFM binding itself: errors as -errno, heap buffers, and a close that waits for calls in progress. */
class LinuxFileIoTest {
    @TempDir
    Path dir;

    @Test
    void openReportsThePathAndTheError() {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> LinuxFileIo.open(missing, false, false))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString()).hasMessageContaining("No such file or directory");
    }

    @Test
    void heapAndDirectBuffersRoundTripAndErrorsAreNegativeErrnos() throws Exception {
        Path file = Files.write(dir.resolve("f"), new byte[8192]);
        byte[] data = "blocktarget".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (LinuxFileIo io = LinuxFileIo.open(file, false, false)) {
            ByteBuf heap = Unpooled.wrappedBuffer(data);
            assertThat(io.write(heap, 0, data.length, 100, 0)).isEqualTo(data.length);
            ByteBuf into = Unpooled.directBuffer(data.length + 5);
            try {
                assertThat(io.read(into, 5, data.length, 100, 0)).isEqualTo(data.length);
                assertThat(ByteBufUtil.getBytes(into, 5, data.length)).isEqualTo(data);
            } finally {
                into.release();
            }
            assertThat(io.read(heap, 0, data.length, 8192, 0)).as("at end of file").isZero();
            assertThat(io.size()).isEqualTo(8192);
            assertThat(io.write(heap, 0, data.length, -2, 0)).as("-1 would mean the file position").isEqualTo(-Errno.EINVAL);
            heap.release();
        }
        try (LinuxFileIo readOnly = LinuxFileIo.open(file, true, false)) {
            ByteBuf one = Unpooled.directBuffer(1).writeByte(1);
            assertThat(readOnly.write(one, 0, 1, 0, 0)).isEqualTo(-Errno.EBADF);
            one.release();
        }
    }

    @Test
    void eachCallGetsItsOwnArgumentsInItsOwnPlaces() throws Exception {
        byte[] data = Io.pattern(3, 3 * 4096);
        Path file = Files.write(dir.resolve("args"), data);
        try (LinuxFileIo io = LinuxFileIo.open(file, false, false)) {
            // fallocate(mode, offset, length): a hole exactly at [4096, 8192), the rest untouched
            assertThat(io.fallocate(Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, 4096, 4096)).isZero();
            byte[] expected = data.clone();
            Arrays.fill(expected, 4096, 8192, (byte) 0);
            assertThat(Files.readAllBytes(file)).isEqualTo(expected);
            assertThat(io.fallocate(Libc.FALLOC_FL_PUNCH_HOLE, 0, 4096)).as("PUNCH_HOLE wants KEEP_SIZE")
                    .isEqualTo(-Errno.EOPNOTSUPP);
            assertThat(io.fallocate(0, 0, 0)).as("length 0").isEqualTo(-Errno.EINVAL);
            // preadv2 / pwritev2 (fd, iov, count, offset, flags): offset and flags where the kernel looks for them
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
            try {
                assertThat(io.read(buf, 0, 4096, 8192, 0)).isEqualTo(4096);
                assertThat(ByteBufUtil.getBytes(buf, 0, 4096)).isEqualTo(Arrays.copyOfRange(data, 8192, 12288));
                assertThat(io.read(buf, 0, 4096, 0, 0x40000000)).as("an unknown RWF flag").isEqualTo(-Errno.EOPNOTSUPP);
                assertThat(io.write(buf, 0, 4096, 12288, 0)).isEqualTo(4096);
            } finally {
                buf.release();
            }
            assertThat(io.size()).as("lseek(fd, 0, SEEK_END)").isEqualTo(4 * 4096);
            assertThat(io.fdatasync()).isZero();
            assertThat(io.fileSystemType()).isEqualTo(FileStat.fileSystemType(file));
            io.close();
            assertThat(io.fallocate(0, 0, 4096)).isEqualTo(-Errno.EBADF);
            assertThat(io.size()).isEqualTo(-Errno.EBADF);
            assertThat(io.fileSystemType()).isEqualTo(-Errno.EBADF);
        }
        try (LinuxFileIo readOnly = LinuxFileIo.open(file, true, false)) {
            assertThat(readOnly.fallocate(0, 0, 4096)).as("errno from the capture").isEqualTo(-Errno.EBADF);
        }
    }

    /**
     * The calls run on the event loop per I/O, so the one helper they share must allocate nothing: no boxing of the
     * long / int arguments and results, no capturing lambda, no native scratch per call. Counted with the thread's
     * allocated bytes over many calls after a warm-up (a 16-byte box per call would be 16 bytes a call here; HEAD
     * before the helper measured 0 as well once compiled).
     */
    @Test
    @Tag("stress") // needs C2's escape analysis: the quick tier's JVMs run C1 only (issue 26), where boxes stay
    void theCallsAllocateNothingPerCall() throws Exception {
        assumeTrue(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .noneMatch(a -> a.startsWith("-XX:TieredStopAtLevel=")), "C1 only: no escape analysis");
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no allocation counter");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "no allocation counter");
        // tmpfs where there is one: fdatasync costs nothing there, and RWF_NOWAIT is refused (the errno path)
        Path shm = Path.of("/dev/shm");
        Path file = Files.createTempFile(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : dir, "alloc", ".img");
        Files.write(file, new byte[4 * 4096]);
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(4096, 4096);
        try (LinuxFileIo io = LinuxFileIo.open(file, false, false)) {
            assumeTrue(buf.hasMemoryAddress(), "no Unsafe: Netty's buffers have no address (another iovec path)");
            long[] sink = new long[1];
            Runnable round = () -> {
                sink[0] += io.read(buf, 0, 4096, 0, 0);
                sink[0] += io.read(buf, 0, 4096, 4096, FileIo.RWF_NOWAIT);
                sink[0] += io.write(buf, 0, 4096, 8192, 0);
                sink[0] += io.fallocate(Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, 12288, 4096);
                sink[0] += io.fdatasync();
                sink[0] += io.size();
                sink[0] += io.fallocate(0, 0, 0);   // -EINVAL: the errno capture
            };
            int rounds = 20_000;
            for (int i = 0; i < 2 * rounds; i++) {   // until compiled: the interpreter and C1 allocate what C2 does not
                round.run();
            }
            // passes until one allocates nothing: C2 may compile late (a busy machine, another test JVM beside this
            // one) and a compilation may land in a pass, but a box lands in every pass, however many
            long least = Long.MAX_VALUE;
            for (int pass = 0; pass < 50 && least >= rounds; pass++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < rounds; i++) {
                    round.run();
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertThat(least).as("bytes allocated by %d rounds of 7 calls (sum %d)", rounds, sink[0])
                    .isLessThan(rounds);
        } finally {
            buf.release();
            Files.deleteIfExists(file);
        }
    }

    @Test
    void closeWaitsForTheLastCallInProgressSoTheNumberIsNeverReusedUnderIt() throws Exception {
        Path file = Files.write(dir.resolve("g"), new byte[4096]);
        LinuxFileIo io = LinuxFileIo.open(file, false, false);
        Path fdLink = Path.of("/proc/self/fd/" + io.fd());
        assertThat(io.acquire()).isTrue();                  // a call in progress
        io.close();
        ByteBuf buf = Unpooled.directBuffer(16);
        try {
            assertThat(io.read(buf, 0, 16, 0, 0)).as("no new calls once closed").isEqualTo(-Errno.EBADF);
            assertThat(io.fdatasync()).isEqualTo(-Errno.EBADF);
            assertThat(io.acquire()).isFalse();
            assertThat(Files.readSymbolicLink(fdLink)).as("still ours while the call runs").isEqualTo(file);
            io.release();                                   // the last call returns: now close(2)
            assertThat(Files.exists(fdLink, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && file.equals(Files.readSymbolicLink(fdLink))).isFalse();
            io.close();                                     // idempotent
        } finally {
            buf.release();
        }
    }
}
