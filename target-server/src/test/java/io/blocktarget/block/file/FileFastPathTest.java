package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.Io;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The inline fast path of buffered file LUNs (issue 15): RWF_NOWAIT on the caller's thread, the worker fallback on
 * EAGAIN and short transfers, FUA as RWF_DSYNC off the caller's thread, group-committed flushes, and the memory file
 * system path on tmpfs. The hooks of {@link ScriptedFileIo} inject what a cold or busy file system would answer; the
 * cold-cache test makes a real one with posix_fadvise(DONTNEED).
 */
class FileFastPathTest {
    private static final int LBS = 4096;
    private static final BlockGeometry GEOMETRY = new BlockGeometry(LBS, LBS, 256);   // 1 MiB
    private static final FileBlockDevice.Options CREATE = new FileBlockDevice.Options(true, false, false);

    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newFixedThreadPool(2, r -> new Thread(r, "file-io"));
    private final List<FileBlockDevice> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(FileBlockDevice::close);
        io.shutdownNow();
    }

    /** A LUN on the test directory's file system, its system calls through a ScriptedFileIo set up by {@code script}. */
    private FileBlockDevice open(Path file, java.util.function.Consumer<ScriptedFileIo> script,
                                 AtomicReference<ScriptedFileIo> seam) throws Exception {
        FileBlockDevice device = FileBlockDevice.open("fast", file, GEOMETRY, CREATE, io, real -> {
            ScriptedFileIo scripted = new ScriptedFileIo(real);
            script.accept(scripted);
            seam.set(scripted);
            return scripted;
        });
        opened.add(device);
        return device;
    }

    /** Where a callback ran: null while it has not run. */
    private record Outcome<T>(T result, BlockIoException failure, String thread) {
    }

    private static <T> AtomicReference<Outcome<T>> call(java.util.function.Consumer<io.blocktarget.block.IoCallback<T>> op) {
        AtomicReference<Outcome<T>> outcome = new AtomicReference<>();
        op.accept((result, failure) -> outcome.set(new Outcome<>(result, failure, Thread.currentThread().getName())));
        return outcome;
    }

    private static ByteBuf direct(byte[] bytes) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
    }

    private static byte[] bytesAndRelease(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void aHotReadCompletesInlineWithRwfNowait() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("hot.img"), s -> { }, seam);
        assumeTrue(device.readPath() == FileBlockDevice.IoPath.INLINE_NOWAIT, "file system without RWF_NOWAIT reads");
        Io.write(device, 4, Io.pattern(4, 2 * LBS));
        String caller = Thread.currentThread().getName();
        seam.get().calls.clear();

        AtomicReference<Outcome<ByteBuf>> read = call(cb -> device.read(4, 2, cb));

        Outcome<ByteBuf> done = read.get();
        assertThat(done).as("completed before read() returned").isNotNull();
        assertThat(done.thread()).isEqualTo(caller);
        assertThat(bytesAndRelease(done.result())).isEqualTo(Io.pattern(4, 2 * LBS));
        assertThat(seam.get().calls("read")).singleElement().satisfies(c -> {
            assertThat(c.nowait()).isTrue();
            assertThat(c.offset()).isEqualTo(4L * LBS);
            assertThat(c.result()).isEqualTo(2L * LBS);
        });
    }

    @Test
    void aColdReadGetsEagainInlineAndIsFinishedOnAnIoThread() throws Exception {
        // The content goes in with O_DIRECT, which leaves no page of it in the page cache. Writing it through the
        // device and then fdatasync + POSIX_FADV_DONTNEED is not enough: DONTNEED cannot drop pages still in another
        // CPU's LRU batch (the ext4 writes run on an I/O thread), and a CI run found them cached.
        Path file = dir.resolve("cold.img");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            int align = (int) Files.getFileStore(file).getBlockSize();
            ByteBuffer content = ByteBuffer.allocateDirect((int) GEOMETRY.sizeBytes() + align).alignedSlice(align);
            content.put(Io.pattern(9, 256 * LBS)).flip();
            while (content.hasRemaining()) {
                channel.write(content, content.position());
            }
        } catch (UnsupportedOperationException | java.io.IOException e) {
            assumeTrue(false, "no O_DIRECT here: " + e);
        }
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(file, s -> { }, seam);
        assumeTrue(device.readPath() == FileBlockDevice.IoPath.INLINE_NOWAIT, "file system without RWF_NOWAIT reads");
        assertThat(seam.get().fadvise(0, 0, LinuxFileIo.POSIX_FADV_DONTNEED)).isZero();   // and if anything was read
        seam.get().calls.clear();

        byte[] read = Io.read(device, 16, 8);

        assertThat(read).isEqualTo(Arrays.copyOfRange(Io.pattern(9, 256 * LBS), 16 * LBS, 24 * LBS));
        List<ScriptedFileIo.Call> reads = seam.get().calls("read");
        assertThat(reads.getFirst().nowait()).isTrue();
        assertThat(reads.getFirst().result()).as("not in the page cache: EAGAIN, not a wait").isEqualTo(-Errno.EAGAIN);
        assertThat(reads.subList(1, reads.size())).isNotEmpty().allSatisfy(c -> {
            assertThat(c.nowait()).isFalse();
            assertThat(c.thread()).isEqualTo("file-io");
        });
    }

    @Test
    void injectedEagainAndShortReadsHandTheRemainderToAnIoThread() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("short.img"), s -> { }, seam);
        assumeTrue(device.readPath() == FileBlockDevice.IoPath.INLINE_NOWAIT, "file system without RWF_NOWAIT reads");
        byte[] data = Io.pattern(3, 32 * LBS);
        Io.write(device, 0, data);
        ScriptedFileIo s = seam.get();
        for (int cached : new int[] {0, 1, LBS, 5 * LBS + 17, 32 * LBS - 1}) {
            // the page cache holds only the first `cached` bytes: a short read (EAGAIN when none)
            s.readHook = (real, buf, index, length, offset, flags) -> (flags & FileIo.RWF_NOWAIT) == 0 ? null
                    : cached == 0 ? -Errno.EAGAIN : real.read(buf, index, cached, offset, 0);
            s.calls.clear();
            assertThat(Io.read(device, 0, 32)).as("cached %d", cached).isEqualTo(data);
            List<ScriptedFileIo.Call> reads = s.calls("read");
            assertThat(reads.getFirst().nowait()).isTrue();
            assertThat(reads.get(1)).satisfies(c -> {
                assertThat(c.nowait()).isFalse();
                assertThat(c.thread()).isEqualTo("file-io");
                assertThat(c.offset()).as("only the remainder").isEqualTo(cached);
                assertThat(c.length()).isEqualTo(32 * LBS - cached);
            });
        }
    }

    @Test
    void readErrorsInlineAndOnTheWorkerAreReadErrorsAndLeakNoBuffer() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("eio.img"), s -> { }, seam);
        assumeTrue(device.readPath() == FileBlockDevice.IoPath.INLINE_NOWAIT, "file system without RWF_NOWAIT reads");
        ScriptedFileIo s = seam.get();
        s.readHook = (real, buf, index, length, offset, flags) -> (long) -Errno.EIO;
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 1, cb))).isEqualTo(BlockError.READ_ERROR);
        // EAGAIN inline, then EIO on the worker
        s.readHook = (real, buf, index, length, offset, flags) ->
                (long) ((flags & FileIo.RWF_NOWAIT) != 0 ? -Errno.EAGAIN : -Errno.EIO);
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 1, cb))).isEqualTo(BlockError.READ_ERROR);
        // end of file inside the LUN (truncated behind our back): a read error, not a hang
        s.readHook = (real, buf, index, length, offset, flags) -> (flags & FileIo.RWF_NOWAIT) != 0 ? (long) LBS : 0L;
        assertThat(Io.<ByteBuf>failureOf(cb -> device.read(0, 2, cb))).isEqualTo(BlockError.READ_ERROR);
    }

    @Test
    void writesRunInlineWhereRwfNowaitWritesWorkAndFallBackOnEagainOrShortWrites() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("w.img"), s -> s.writeHook = ScriptedFileIo.nowaitWritesSucceed(), seam);
        assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.INLINE_NOWAIT);
        ScriptedFileIo s = seam.get();
        String caller = Thread.currentThread().getName();
        byte[] data = Io.pattern(5, 8 * LBS);

        ByteBuf buf = direct(data);
        s.calls.clear();
        AtomicReference<Outcome<Void>> write = call(cb -> device.write(8, buf, false, cb));
        assertThat(write.get()).as("completed before write() returned").isNotNull();
        assertThat(write.get().failure()).isNull();
        assertThat(write.get().thread()).isEqualTo(caller);
        assertThat(s.calls("write")).singleElement().satisfies(c -> assertThat(c.nowait()).isTrue());
        assertThat(buf.readerIndex()).isZero();
        buf.release();
        assertThat(Io.read(device, 8, 8)).isEqualTo(data);

        for (int accepted : new int[] {-Errno.EAGAIN, 1, 3 * LBS, 8 * LBS - 1}) {
            byte[] next = Io.pattern(accepted, 8 * LBS);
            s.writeHook = (real, b, index, length, offset, flags) -> (flags & FileIo.RWF_NOWAIT) == 0 ? null
                    : accepted < 0 ? (long) accepted : real.write(b, index, accepted, offset, 0);
            s.calls.clear();
            ByteBuf again = direct(next);
            Io.<Void>await(cb -> device.write(8, again, false, cb));
            again.release();
            assertThat(Io.read(device, 8, 8)).as("accepted inline %d", accepted).isEqualTo(next);
            List<ScriptedFileIo.Call> writes = s.calls("write");
            int inline = Math.max(0, accepted);
            assertThat(writes.get(1)).satisfies(c -> {
                assertThat(c.nowait()).isFalse();
                assertThat(c.thread()).isEqualTo("file-io");
                assertThat(c.offset()).isEqualTo(8L * LBS + inline);
                assertThat(c.length()).isEqualTo(8 * LBS - inline);
            });
        }
    }

    @Test
    void aCompositeBufferIsWrittenWithOneVectoredCall() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("v.img"), s -> s.writeHook = ScriptedFileIo.nowaitWritesSucceed(), seam);
        byte[] data = Io.pattern(11, 3 * LBS);
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        for (int i = 0; i < 3; i++) {
            composite.addComponent(true, direct(Arrays.copyOfRange(data, i * LBS, (i + 1) * LBS)));
        }
        seam.get().calls.clear();
        try {
            Io.<Void>await(cb -> device.write(1, composite, false, cb));
        } finally {
            composite.release();
        }
        assertThat(seam.get().calls("write")).singleElement().satisfies(c -> assertThat(c.result()).isEqualTo(3L * LBS));
        assertThat(Io.read(device, 1, 3)).isEqualTo(data);
    }

    @Test
    void writeErrorsKeepTheirMapping() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("we.img"), s -> s.writeHook = ScriptedFileIo.nowaitWritesSucceed(), seam);
        ScriptedFileIo s = seam.get();
        ByteBuf block = direct(Io.pattern(1, LBS));
        try {
            for (int errno : new int[] {Errno.EIO, Errno.ENOSPC, Errno.EDQUOT}) {
                BlockError expected = errno == Errno.EIO ? BlockError.WRITE_ERROR : BlockError.OUT_OF_SPACE;
                s.writeHook = (real, b, index, length, offset, flags) -> (long) -errno;
                assertThat(Io.<Void>failureOf(cb -> device.write(0, block, false, cb))).as("inline errno %d", errno)
                        .isEqualTo(expected);
                s.writeHook = (real, b, index, length, offset, flags) ->
                        (long) ((flags & FileIo.RWF_NOWAIT) != 0 ? -Errno.EAGAIN : -errno);
                assertThat(Io.<Void>failureOf(cb -> device.write(0, block, false, cb))).as("worker errno %d", errno)
                        .isEqualTo(expected);
                assertThat(Io.<Void>failureOf(cb -> device.write(0, block, true, cb))).as("FUA errno %d", errno)
                        .isEqualTo(expected);
            }
        } finally {
            block.release();
        }
    }

    @Test
    void fuaIsRwfDsyncOnAnIoThreadNeverInline() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("fua.img"), s -> s.writeHook = ScriptedFileIo.nowaitWritesSucceed(), seam);
        assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.INLINE_NOWAIT);
        ScriptedFileIo s = seam.get();
        s.calls.clear();
        ByteBuf block = direct(Io.pattern(2, LBS));
        try {
            Io.<Void>await(cb -> device.write(3, block, true, cb));
            assertThat(s.calls("write")).singleElement().satisfies(c -> {
                assertThat(c.flags()).isEqualTo(FileIo.RWF_DSYNC);
                assertThat(c.thread()).isEqualTo("file-io");
            });
            assertThat(s.fdatasyncs.get()).as("RWF_DSYNC makes it durable by itself").isZero();

            // a kernel without RWF_DSYNC: the write, then fdatasync
            s.writeHook = (real, b, index, length, offset, flags) ->
                    (flags & FileIo.RWF_DSYNC) != 0 ? (long) -Errno.EOPNOTSUPP : null;
            s.calls.clear();
            Io.<Void>await(cb -> device.write(3, block, true, cb));
            assertThat(s.calls).extracting(ScriptedFileIo.Call::op).containsExactly("write", "write", "fdatasync");
            assertThat(s.calls).allSatisfy(c -> assertThat(c.thread()).isEqualTo("file-io"));
        } finally {
            block.release();
        }
        assertThat(Io.read(device, 3, 1)).isEqualTo(Io.pattern(2, LBS));
    }

    @Test
    void flushesArrivingWhileAnFdatasyncRunsShareTheNextOne() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("sync.img"), s -> { }, seam);
        ScriptedFileIo s = seam.get();
        Semaphore gate = new Semaphore(0);
        s.syncGate = gate;

        CompletableFuture<BlockIoException> first = flush(device);
        s.syncStarted.acquire();                                  // fdatasync #1 is running
        Io.write(device, 7, Io.pattern(7, LBS));                  // completed while it runs: not covered by it
        List<CompletableFuture<BlockIoException>> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            later.add(flush(device));
        }
        assertThat(s.fdatasyncs.get()).isEqualTo(1);
        gate.release();                                           // #1 done: the first flush only
        assertThat(first.get(10, TimeUnit.SECONDS)).isNull();
        s.syncStarted.acquire();                                  // #2, for all five, started after they were asked
        assertThat(later).as("not answered by the fdatasync that was running when they came").noneMatch(CompletableFuture::isDone);
        gate.release();
        for (CompletableFuture<BlockIoException> f : later) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isNull();
        }
        assertThat(s.fdatasyncs.get()).as("six flushes, two fdatasyncs").isEqualTo(2);

        s.syncGate = null;
        Io.flush(device);                                         // idle again: a flush starts its own
        assertThat(s.fdatasyncs.get()).isEqualTo(3);
        s.syncResult = -Errno.EIO;
        assertThat(Io.<Void>failureOf(device::flush)).isEqualTo(BlockError.WRITE_ERROR);
        s.syncResult = 0;
    }

    /**
     * A flush callback that throws (a bug upstream, or a completion hop to an event loop that refuses the task) must
     * not end the group commit: the flushes queued behind it would wait for an fdatasync nobody starts, and so would
     * every later flush of the LUN.
     */
    @Test
    void aFlushCallbackThatThrowsNeitherStrandsTheOthersNorStopsGroupCommit() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("throw.img"), s -> { }, seam);
        ScriptedFileIo s = seam.get();
        Semaphore gate = new Semaphore(0);
        s.syncGate = gate;

        CompletableFuture<BlockIoException> thrower = new CompletableFuture<>();
        device.flush((v, failure) -> {
            thrower.complete(failure);
            throw new IllegalStateException("a callback that throws");
        });
        s.syncStarted.acquire();                                  // fdatasync #1 runs for the thrower
        CompletableFuture<BlockIoException> second = flush(device);
        device.flush((v, failure) -> {                           // in the same batch as the second: throws too
            throw new IllegalStateException("another");
        });
        CompletableFuture<BlockIoException> third = flush(device);
        gate.release(2);
        assertThat(thrower.get(10, TimeUnit.SECONDS)).isNull();
        assertThat(second.get(10, TimeUnit.SECONDS)).as("the batch after the throw").isNull();
        assertThat(third.get(10, TimeUnit.SECONDS)).as("after a throw inside its own batch").isNull();
        assertThat(s.fdatasyncs.get()).isEqualTo(2);
        s.syncGate = null;
        Io.flush(device);                                         // idle again: a new flush starts its own
        assertThat(s.fdatasyncs.get()).isEqualTo(3);
    }

    /**
     * Group commit takes an I/O thread for one fdatasync at a time: the next batch queues behind the work that was
     * waiting for a thread meanwhile (here a FUA write), instead of the thread going straight on to the next
     * fdatasync for as long as flushes keep coming — which on the server's two I/O threads held every worker-path
     * operation of every LUN (writes on ext4, FUA, O_DIRECT) behind a stream of flushes.
     */
    @Test
    void aStreamOfFlushesLetsWorkQueuedMeanwhileRunBetweenItsFdatasyncs() throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor(r -> new Thread(r, "file-io"));
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = FileBlockDevice.open("one", dir.resolve("one.img"), GEOMETRY, CREATE, one, real -> {
            ScriptedFileIo scripted = new ScriptedFileIo(real);
            seam.set(scripted);
            return scripted;
        });
        ScriptedFileIo s = seam.get();
        Semaphore gate = new Semaphore(0);
        s.syncGate = gate;
        ByteBuf block = direct(Io.pattern(4, LBS));
        try {
            CompletableFuture<BlockIoException> first = flush(device);
            s.syncStarted.acquire();                              // fdatasync #1 holds the only I/O thread
            CompletableFuture<BlockIoException> second = flush(device);   // for fdatasync #2
            CompletableFuture<BlockIoException> fua = new CompletableFuture<>();
            device.write(5, block, true, (v, failure) -> fua.complete(failure));   // queued behind #1
            gate.release();                                       // #1 done
            assertThat(first.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(fua.get(10, TimeUnit.SECONDS)).as("queued before fdatasync #2 started: runs first").isNull();
            s.syncStarted.acquire();                              // then #2, for the second flush
            assertThat(second).isNotDone();
            gate.release();
            assertThat(second.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(s.fdatasyncs.get()).isEqualTo(2);
        } finally {
            s.syncGate = null;
            gate.release(100);                                    // nothing left waiting at the gate, close included
            block.release();
            device.close();
            one.shutdownNow();
        }
    }

    private static CompletableFuture<BlockIoException> flush(FileBlockDevice device) {
        CompletableFuture<BlockIoException> done = new CompletableFuture<>();
        device.flush((v, failure) -> done.complete(failure));
        return done;
    }

    @Test
    void aFileSystemThatRefusesRwfNowaitRunsEverythingOnIoThreads() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        FileBlockDevice device = open(dir.resolve("refuse.img"), s -> {
            s.readHook = ScriptedFileIo.refuseNowait();
            s.writeHook = ScriptedFileIo.refuseNowait();
        }, seam);
        assertThat(device.readPath()).isEqualTo(FileBlockDevice.IoPath.WORKER);
        assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.WORKER);
        seam.get().calls.clear();
        Io.write(device, 2, Io.pattern(2, LBS));
        assertThat(Io.read(device, 2, 1)).isEqualTo(Io.pattern(2, LBS));
        assertThat(seam.get().calls).allSatisfy(c -> {
            assertThat(c.nowait()).isFalse();
            assertThat(c.thread()).isEqualTo("file-io");
        });
    }

    @Test
    void aFileOnTmpfsWithoutSwapRunsInlineWithoutFlags() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no /dev/shm");
        assumeTrue(Files.readAllLines(Path.of("/proc/swaps")).size() <= 1, "swap is on");
        Path file = Files.createTempFile(shm, "blocktarget-fast", ".img");
        Files.delete(file);
        try {
            AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
            FileBlockDevice device = open(file, s -> { }, seam);
            assumeTrue(seam.get().fileSystemType() == LinuxFileIo.TMPFS_MAGIC, "/dev/shm is not tmpfs");
            assertThat(device.readPath()).isEqualTo(FileBlockDevice.IoPath.INLINE_MEMORY);
            assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.INLINE_MEMORY);
            String caller = Thread.currentThread().getName();
            seam.get().calls.clear();
            ByteBuf data = direct(Io.pattern(8, 4 * LBS));
            AtomicReference<Outcome<Void>> write = call(cb -> device.write(12, data, false, cb));
            data.release();
            assertThat(write.get().thread()).isEqualTo(caller);
            AtomicReference<Outcome<ByteBuf>> read = call(cb -> device.read(12, 4, cb));
            assertThat(read.get().thread()).isEqualTo(caller);
            assertThat(bytesAndRelease(read.get().result())).isEqualTo(Io.pattern(8, 4 * LBS));
            assertThat(seam.get().calls).allSatisfy(c -> assertThat(c.flags()).isZero());
        } finally {
            opened.forEach(FileBlockDevice::close);
            opened.clear();
            Files.deleteIfExists(file);
        }
    }
}
