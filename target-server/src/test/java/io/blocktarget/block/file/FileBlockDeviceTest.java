package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What is particular to the file backend: creation, sizes, holes, O_DIRECT, threads, durability. */
class FileBlockDeviceTest {
    private static final FileBlockDevice.Options CREATE = new FileBlockDevice.Options(true, false, false);

    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newFixedThreadPool(2, r -> new Thread(r, "file-io"));

    @AfterEach
    void stopExecutor() {
        io.shutdownNow();
    }

    @Test
    void createMakesASparseFileOfTheGeometrySize() throws Exception {
        Path file = dir.resolve("new.img");
        BlockGeometry g = new BlockGeometry(4096, 4096, 1L << 20);   // 4 GiB
        try (FileBlockDevice device = FileBlockDevice.open("new", file, g, CREATE, io)) {
            assertThat(device.path()).isEqualTo(file);
            assertThat(Files.size(file)).isEqualTo(4L << 30);
            assertThat(FileStat.allocatedSectors(file)).isZero();
            assertThat(Io.read(device, g.blockCount() - 1, 1)).isEqualTo(new byte[4096]);
        }
        // Reopening an existing file of the right size works without create.
        try (FileBlockDevice device = FileBlockDevice.open("again", file, g, new FileBlockDevice.Options(false, false, false), io)) {
            assertThat(device.geometry()).isEqualTo(g);
        }
    }

    @Test
    void missingFileWithoutCreateIsAClearError() {
        Path file = dir.resolve("missing.img");
        assertThatThrownBy(() -> FileBlockDevice.open("m", file, new BlockGeometry(512, 512, 8),
                new FileBlockDevice.Options(false, false, false), io))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("create is off");
        assertThat(file).doesNotExist();
    }

    @Test
    void existingFileOfAnotherSizeIsRefused() throws Exception {
        Path file = dir.resolve("small.img");
        Files.write(file, new byte[8192]);
        assertThatThrownBy(() -> FileBlockDevice.open("s", file, new BlockGeometry(512, 512, 17), CREATE, io))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("8192 bytes").hasMessageContaining("8704 bytes").hasMessageContaining(file.toString());
        assertThat(Files.size(file)).isEqualTo(8192);
    }

    @Test
    void unmapPunchesAHoleThatReadsZerosAndFreesBlocks() throws Exception {
        Path file = dir.resolve("holes.img");
        BlockGeometry g = new BlockGeometry(512, 4096, 8192);   // 4 MiB
        try (FileBlockDevice device = FileBlockDevice.open("h", file, g, CREATE, io)) {
            Io.write(device, 0, Io.pattern(1, 4 << 20));
            Io.flush(device);
            long before = FileStat.allocatedSectors(file);
            Io.unmap(device, 0, 4096);            // the first 2 MiB
            Io.writeZeroes(device, 6144, 2048);   // the last 1 MiB
            Io.unmap(device, 4097, 1);            // one 512-byte block inside a 4 KiB file system block
            long after = FileStat.allocatedSectors(file);
            System.out.printf("file holes: st_blocks %d -> %d (512-byte units)%n", before, after);
            assertThat(before).isGreaterThanOrEqualTo(8192);
            assertThat(after).isLessThanOrEqualTo(before - 6144);
            byte[] expected = Io.pattern(1, 4 << 20);
            java.util.Arrays.fill(expected, 0, 2 << 20, (byte) 0);
            java.util.Arrays.fill(expected, 3 << 20, 4 << 20, (byte) 0);
            java.util.Arrays.fill(expected, 4097 * 512, 4098 * 512, (byte) 0);
            assertThat(Io.read(device, 0, 8192)).isEqualTo(expected);
        }
    }

    @Test
    void zeroWritingFallbackForFileSystemsWithoutHolesWorksBufferedAndDirect() throws Exception {
        for (boolean direct : new boolean[] {false, true}) {
            Path file = dir.resolve("zeros-" + direct + ".img");
            BlockGeometry g = new BlockGeometry(4096, 4096, 1024);   // 4 MiB: several zero-region writes
            try (FileBlockDevice device = FileBlockDevice.open("z", file, g, new FileBlockDevice.Options(true, direct, false), io)) {
                Io.write(device, 0, Io.pattern(6, 4 << 20));
                assertThat(device.writeZeros(4096, (3 << 20) - 4096)).isNull();
                byte[] expected = Io.pattern(6, 4 << 20);
                java.util.Arrays.fill(expected, 4096, 3 << 20, (byte) 0);
                assertThat(Io.read(device, 0, 1024)).as("direct %s", direct).isEqualTo(expected);
            }
        }
    }

    @Test
    void errnosAreClassifiedByCause() {
        Errno.Origin call = Errno.Origin.SYSTEM_CALL;
        assertThat(Errno.classify(call, Errno.ENOSPC, BlockError.WRITE_ERROR)).isEqualTo(BlockError.OUT_OF_SPACE);
        assertThat(Errno.classify(call, Errno.EDQUOT, BlockError.WRITE_ERROR)).isEqualTo(BlockError.OUT_OF_SPACE);
        assertThat(Errno.classify(call, Errno.EBADF, BlockError.READ_ERROR)).isEqualTo(BlockError.CLOSED);
        assertThat(Errno.classify(call, Errno.EIO, BlockError.READ_ERROR)).isEqualTo(BlockError.READ_ERROR);
        assertThat(Errno.classify(call, Errno.EIO, BlockError.WRITE_ERROR)).isEqualTo(BlockError.WRITE_ERROR);
    }

    @Test
    void directIoRoundTripsOnADiskFileSystem() throws Exception {
        Path file = dir.resolve("direct.img");
        BlockGeometry g = new BlockGeometry(4096, 4096, 1024);
        try (FileBlockDevice device = FileBlockDevice.open("d", file, g, new FileBlockDevice.Options(true, true, false), io)) {
            ByteBuf unaligned = Unpooled.buffer(3 + 8192).writerIndex(3).writeBytes(Io.pattern(2, 8192)).readerIndex(3);
            try {
                Io.<Void>await(cb -> device.write(7, unaligned, true, cb));
            } finally {
                unaligned.release();
            }
            assertThat(Io.read(device, 7, 2)).isEqualTo(Io.pattern(2, 8192));
        }
    }

    @Test
    void directIoWithBlocksSmallerThanTheFileSystemBlockIsRefusedClearly() throws Exception {
        long fsBlock = Files.getFileStore(dir).getBlockSize();
        assumeTrue(fsBlock > 512, "file system block is 512");
        Path file = dir.resolve("d512.img");
        assertThatThrownBy(() -> FileBlockDevice.open("d", file, new BlockGeometry(512, 4096, 64),
                new FileBlockDevice.Options(true, true, false), io))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("direct-io needs a logical block size of at least the file system block size " + fsBlock);
        assertThat(file).as("nothing created for a LUN that cannot open").doesNotExist();
    }

    @Test
    void aFileSystemThatRefusesODirectIsAClearError() {
        // procfs never allows O_DIRECT (EINVAL at open); tmpfs does since Linux 6.6, so it cannot serve here.
        Path proc = Path.of("/proc/version");
        assumeTrue(Files.isReadable(proc), "no procfs");
        assertThatThrownBy(() -> FileBlockDevice.open("p", proc, new BlockGeometry(4096, 4096, 1),
                new FileBlockDevice.Options(false, true, true), io))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("/proc/version: the file system refuses O_DIRECT");
    }

    @Test
    void withoutAnInlinePathCallbacksRunOnTheExecutorNotTheCaller() throws Exception {
        // O_DIRECT never runs inline: every call, validation failures included, completes on the executor.
        try (FileBlockDevice device = FileBlockDevice.open("t", dir.resolve("t.img"), new BlockGeometry(4096, 4096, 8),
                new FileBlockDevice.Options(true, true, false), io)) {
            assertThat(device.readPath()).isEqualTo(FileBlockDevice.IoPath.WORKER);
            CompletableFuture<String> thread = new CompletableFuture<>();
            device.read(0, 1, (buf, failure) -> {
                buf.release();
                thread.complete(Thread.currentThread().getName());
            });
            assertThat(thread.get(10, TimeUnit.SECONDS)).isEqualTo("file-io");
            CompletableFuture<String> failed = new CompletableFuture<>();
            device.read(8, 1, (buf, failure) -> failed.complete(Thread.currentThread().getName() + " " + failure.error()));
            assertThat(failed.get(10, TimeUnit.SECONDS)).isEqualTo("file-io LBA_OUT_OF_RANGE");
        }
    }

    @Test
    void operationsQueuedWhenTheDeviceClosesFailClosed() throws Exception {
        ExecutorService single = Executors.newSingleThreadExecutor();
        try {
            // every operation queued on the executor: a file system that refuses RWF_NOWAIT (no inline path)
            FileBlockDevice device = FileBlockDevice.open("q", dir.resolve("q.img"), new BlockGeometry(4096, 4096, 64),
                    CREATE, single, real -> {
                        ScriptedFileIo io = new ScriptedFileIo(real);
                        io.readHook = ScriptedFileIo.refuseNowait();
                        io.writeHook = ScriptedFileIo.refuseNowait();
                        return io;
                    });
            assertThat(device.readPath()).isEqualTo(FileBlockDevice.IoPath.WORKER);
            assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.WORKER);
            CountDownLatch gate = new CountDownLatch(1);
            single.execute(() -> {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ByteBuf block = Unpooled.directBuffer(4096).writeZero(4096);
            List<CompletableFuture<BlockError>> outcomes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CompletableFuture<BlockError> outcome = new CompletableFuture<>();
                IoCallback<Object> cb = (result, failure) -> outcome.complete(failure == null ? null : failure.error());
                outcomes.add(outcome);
                switch (i % 4) {
                    case 0 -> device.write(i, block, false, cb::complete);
                    case 1 -> device.read(i, 1, (buf, failure) -> {
                        if (buf != null) {
                            buf.release();
                        }
                        cb.complete(null, failure);
                    });
                    case 2 -> device.flush(cb::complete);
                    default -> device.writeZeroes(i, 1, cb::complete);
                }
            }
            device.close();
            gate.countDown();
            for (CompletableFuture<BlockError> outcome : outcomes) {
                assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(BlockError.CLOSED);
            }
            block.release();
            single.shutdown();
            CompletableFuture<BlockError> rejected = new CompletableFuture<>();
            assertThat(single.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            device.flush((v, failure) -> rejected.complete(failure.error()));
            assertThat(rejected.getNow(null)).as("an executor that refuses work: CLOSED inline").isEqualTo(BlockError.CLOSED);
        } finally {
            single.shutdownNow();
        }
    }

    @Test
    void closeFlushesAndIsIdempotent() throws Exception {
        Path file = dir.resolve("c.img");
        BlockGeometry g = new BlockGeometry(512, 512, 16);
        FileBlockDevice device = FileBlockDevice.open("c", file, g, CREATE, io);
        Io.write(device, 3, Io.pattern(3, 512));
        device.close();
        device.close();
        byte[] content = Files.readAllBytes(file);
        assertThat(java.util.Arrays.copyOfRange(content, 1536, 2048)).isEqualTo(Io.pattern(3, 512));
    }

    @Test
    void readOnlyOpenRefusesWritesItself() throws Exception {
        Path file = dir.resolve("ro.img");
        BlockGeometry g = new BlockGeometry(512, 512, 16);
        Files.write(file, new byte[8192]);
        assertThat(file.toFile().setWritable(false)).isTrue();
        // root may write anyway; the point is that the device opens read-only and refuses writes itself.
        try (FileBlockDevice device = FileBlockDevice.open("ro", file, g, new FileBlockDevice.Options(false, false, true), io)) {
            assertThat(device.readOnly()).isTrue();
            assertThat(Io.<Void>failureOf(cb -> device.writeZeroes(0, 1, cb))).isEqualTo(BlockError.WRITE_PROTECTED);
        }
    }

}
