package io.blocktarget.block.file;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.NativeByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.IoEventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUringIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link UringFileBlockDevice} on a real io_uring event loop (Netty's IoUringIoHandler) over an O_DIRECT file on the
 * temp directory's disk file system: what runs on the ring completes on the submitting loop with no worker task;
 * what cannot (other threads, an NIO loop, unmap) takes the worker path as FileBlockDevice does.
 */
class UringFileBlockDeviceTest {
    private static final int LBS = 4096;
    private static final BlockGeometry GEOMETRY = new BlockGeometry(LBS, LBS, 64);

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final AtomicInteger workerTasks = new AtomicInteger();
    private final Executor worker = task -> {
        workerTasks.incrementAndGet();
        pool.execute(task);
    };
    private MultiThreadIoEventLoopGroup group;
    private IoEventLoop loop;
    private final List<BlockDevice> devices = new ArrayList<>();

    /** One completion: what it carried and the thread it ran on. */
    record Done<T>(T result, BlockIoException failure, Thread thread) {
    }

    @BeforeEach
    void ring() throws Exception {
        assumeTrue(UringFileBlockDevice.unavailability().isEmpty(),
                () -> "io_uring unavailable here: " + UringFileBlockDevice.unavailability().get());
        assumeTrue(Files.getFileStore(dir).getBlockSize() <= LBS, "O_DIRECT needs LBS >= the file system block");
        group = new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory());
        loop = (IoEventLoop) group.next();
    }

    @AfterEach
    void close() throws Exception {
        devices.forEach(BlockDevice::close);
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        pool.shutdownNow();
    }

    private UringFileBlockDevice device(boolean readOnly) throws Exception {
        Path file = dir.resolve("lun" + devices.size() + ".img");
        if (readOnly && !Files.exists(file)) {
            FileBlockDevice.open("rw", file, GEOMETRY, new FileBlockDevice.Options(true, true, false), worker).close();
        }
        FileBlockDevice fileDevice = FileBlockDevice.open("lun", file, GEOMETRY,
                new FileBlockDevice.Options(true, true, readOnly), worker);
        UringFileBlockDevice device = (UringFileBlockDevice) UringFileBlockDevice.select(fileDevice, true);
        devices.add(device);
        return device;
    }

    /** Starts {@code operation} on the io_uring loop and waits for its one completion. */
    private <T> Done<T> onLoop(Consumer<IoCallback<T>> operation) throws Exception {
        return on(loop, operation);
    }

    private static <T> Done<T> on(Executor executor, Consumer<IoCallback<T>> operation) throws Exception {
        CompletableFuture<Done<T>> done = new CompletableFuture<>();
        executor.execute(() -> operation.accept((result, failure) -> {
            if (!done.complete(new Done<>(result, failure, Thread.currentThread()))) {
                throw new AssertionError("completed twice");
            }
        }));
        return done.get(30, TimeUnit.SECONDS);
    }

    private Thread loopThread() throws Exception {
        return loop.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
    }

    private static byte[] bytes(int blocks, int seed) {
        byte[] data = new byte[blocks * LBS];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + seed);
        }
        return data;
    }

    private static ByteBuf pattern(int blocks, int seed) {
        return Unpooled.wrappedBuffer(bytes(blocks, seed));
    }

    private byte[] readOnLoop(BlockDevice device, long lba, int blocks) throws Exception {
        Done<ByteBuf> read = onLoop(cb -> device.read(lba, blocks, cb));
        assertThat(read.failure()).isNull();
        try {
            return ByteBufUtil.getBytes(read.result());
        } finally {
            read.result().release();
        }
    }

    @Test
    void writeAndReadRunOnTheSubmittingLoopWithoutAWorkerTask() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf data = pattern(3, 7);
        try {
            Done<Void> write = this.<Void>onLoop(cb -> device.write(5, data, false, cb));
            assertThat(write.failure()).isNull();
            assertThat(write.thread()).isSameAs(loopThread());
            Done<ByteBuf> read = onLoop(cb -> device.read(5, 3, cb));
            assertThat(read.failure()).isNull();
            assertThat(read.thread()).isSameAs(loopThread());
            assertThat(read.result().readableBytes()).isEqualTo(3 * LBS);
            assertThat(ByteBufUtil.equals(read.result(), data)).isTrue();
            read.result().release();
            assertThat(workerTasks).hasValue(0);
            assertThat(loop.submit(UringLoop::inFlightOnThisThread).get()).isZero();
        } finally {
            data.release();
        }
    }

    @Test
    void writesFromAlignedUnalignedAndHeapBuffersAllLand() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf heap = pattern(1, 1);
        NativeByteBuf aligned = NativeByteBuf.aligned(LBS, LBS);          // zero copy
        aligned.setBytes(0, bytes(1, 2));
        ByteBuf wide = PooledByteBufAllocator.DEFAULT.directBuffer(LBS + 1);
        wide.writeByte(0).writeBytes(bytes(1, 3)).readerIndex(1);  // direct, unaligned: bounced
        ByteBuf composite = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(bytes(1, 4), 0, LBS / 2),
                Unpooled.directBuffer(LBS / 2).writeBytes(bytes(1, 4), LBS / 2, LBS / 2));   // two regions: bounced
        try {
            ByteBuf[] sources = {heap, aligned, wide, composite};
            for (int i = 0; i < sources.length; i++) {
                ByteBuf source = sources[i];
                int lba = i;
                Done<Void> write = this.<Void>onLoop(cb -> device.write(lba, source, false, cb));
                assertThat(write.failure()).isNull();
                assertThat(readOnLoop(device, i, 1)).isEqualTo(ByteBufUtil.getBytes(source));
                assertThat(source.readerIndex()).as("reader index unchanged").isEqualTo(i == 2 ? 1 : 0);
            }
            assertThat(workerTasks).hasValue(0);
        } finally {
            heap.release();
            aligned.release();
            wide.release();
            composite.release();
        }
    }

    @Test
    void concurrentFlushesShareOneFsyncAndALateFlushWaitsForTheNext() throws Exception {
        UringFileBlockDevice device = device(false);
        long before = loop.submit(UringLoop::fsyncsOnThisThread).get();
        List<Integer> order = new ArrayList<>();   // only the loop thread touches it
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger left = new AtomicInteger(10);
        loop.execute(() -> {
            for (int i = 0; i < 10; i++) {
                int id = i;
                device.flush((result, failure) -> {
                    assertThat(failure).isNull();
                    order.add(id);
                    if (left.decrementAndGet() == 0) {
                        all.complete(null);
                    }
                });
            }
        });
        all.get(30, TimeUnit.SECONDS);
        // flush 0 starts an fsync; 1..9 arrive while it is in flight, so they share exactly one more
        assertThat(loop.submit(UringLoop::fsyncsOnThisThread).get() - before).isEqualTo(2);
        assertThat(order.getFirst()).isZero();
        assertThat(order).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(workerTasks).hasValue(0);
    }

    @Test
    void fuaWriteIsFollowedByAnFsyncBeforeItCompletes() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf data = pattern(1, 9);
        try {
            long before = loop.submit(UringLoop::fsyncsOnThisThread).get();
            assertThat(this.<Void>onLoop(cb -> device.write(0, data, true, (Void r, BlockIoException f) -> cb.complete(r, f)))
                    .failure()).isNull();
            assertThat(loop.submit(UringLoop::fsyncsOnThisThread).get() - before).isEqualTo(1);
            assertThat(this.<Void>onLoop(cb -> device.write(1, data, false, cb)).failure()).isNull();
            assertThat(loop.submit(UringLoop::fsyncsOnThisThread).get() - before).as("no FUA, no fsync").isEqualTo(1);
        } finally {
            data.release();
        }
    }

    @Test
    void unmapTakesTheWorkerPathAndReadsZerosAfterwards() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf data = pattern(2, 5);
        try {
            assertThat(this.<Void>onLoop(cb -> device.write(10, data, false, cb)).failure()).isNull();
            Done<Void> unmap = this.<Void>onLoop(cb -> device.unmap(List.of(new BlockRange(10, 2)), cb));
            assertThat(unmap.failure()).isNull();
            assertThat(workerTasks).hasValue(1);
            assertThat(readOnLoop(device, 10, 2)).isEqualTo(new byte[2 * LBS]);
        } finally {
            data.release();
        }
    }

    @Test
    void checkedFailuresCompleteInlineOnTheLoop() throws Exception {
        UringFileBlockDevice device = device(false);
        Done<ByteBuf> past = onLoop(cb -> device.read(63, 2, cb));
        assertThat(past.failure().error()).isEqualTo(BlockError.LBA_OUT_OF_RANGE);
        ByteBuf data = pattern(1, 0);
        try {
            assertThat(this.<Void>onLoop(cb -> device.write(64, data, false, cb)).failure().error())
                    .isEqualTo(BlockError.LBA_OUT_OF_RANGE);
            UringFileBlockDevice readOnly = device(true);
            assertThat(this.<Void>onLoop(cb -> readOnly.write(0, data, false, cb)).failure().error())
                    .isEqualTo(BlockError.WRITE_PROTECTED);
            assertThat(readOnLoop(readOnly, 0, 1)).isEqualTo(new byte[LBS]);
            device.close();
            assertThat(this.<Void>onLoop(cb -> device.write(0, data, false, cb)).failure().error()).isEqualTo(BlockError.CLOSED);
            assertThat(onLoop((IoCallback<ByteBuf> cb) -> device.read(0, 1, cb)).failure().error())
                    .isEqualTo(BlockError.CLOSED);
            assertThat(onLoop((IoCallback<Void> cb) -> device.flush(cb)).failure().error())
                    .isEqualTo(BlockError.CLOSED);
        } finally {
            data.release();
        }
        assertThat(workerTasks).hasValue(0);
    }

    @Test
    void aShortReadIsContinuedAndEndOfFileInsideTheLunIsAReadError() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf data = pattern(2, 3);
        try {
            assertThat(this.<Void>onLoop(cb -> device.write(0, data, false, cb)).failure()).isNull();
        } finally {
            data.release();
        }
        // someone truncates the file to one block behind the LUN's back: reading two returns one block, then 0
        try (RandomAccessFile raf = new RandomAccessFile(device.path().toFile(), "rw")) {
            raf.setLength(LBS);
        }
        Done<ByteBuf> read = onLoop(cb -> device.read(0, 2, cb));
        assertThat(read.failure().error()).isEqualTo(BlockError.READ_ERROR);
        assertThat(read.failure()).hasMessageContaining("end of file inside the LUN");
        assertThat(read.thread()).isSameAs(loopThread());
        assertThat(loop.submit(UringLoop::inFlightOnThisThread).get()).isZero();
    }

    @Test
    void errnoMapping() {
        Errno.Origin ring = Errno.Origin.IO_URING;
        assertThat(Errno.classify(ring, Errno.EIO, BlockError.READ_ERROR)).isEqualTo(BlockError.READ_ERROR);
        assertThat(Errno.classify(ring, Errno.EIO, BlockError.WRITE_ERROR)).isEqualTo(BlockError.WRITE_ERROR);
        assertThat(Errno.classify(ring, Errno.ENOSPC, BlockError.WRITE_ERROR)).isEqualTo(BlockError.OUT_OF_SPACE);
        assertThat(Errno.classify(ring, Errno.EDQUOT, BlockError.WRITE_ERROR)).isEqualTo(BlockError.OUT_OF_SPACE);
        assertThat(Errno.classify(ring, Errno.ENOMEM, BlockError.READ_ERROR))
                .isEqualTo(BlockError.INSUFFICIENT_RESOURCES);
        assertThat(Errno.classify(ring, Errno.EBADF, BlockError.READ_ERROR)).isEqualTo(BlockError.CLOSED);
        assertThat(Errno.classify(ring, Errno.EINVAL, BlockError.READ_ERROR)).isEqualTo(BlockError.READ_ERROR);
        assertThat(Errno.describe(Errno.EIO)).isEqualTo("Input/output error (EIO, errno 5)");
        assertThat(Errno.name(61)).isNull();
    }

    @Test
    void everyErrnoOfACompletionFailsAsTheTableSays() throws Exception {
        UringFileBlockDevice device = device(false);
        for (Errno.Entry e : ErrnoTest.EXPECTED) {
            for (UringLoop.Kind kind : UringLoop.Kind.values()) {
                BlockError io = kind == UringLoop.Kind.READ ? BlockError.READ_ERROR : BlockError.WRITE_ERROR;
                String call = kind == UringLoop.Kind.FSYNC ? "fdatasync" : kind.name().toLowerCase(Locale.ROOT);
                BlockIoException failure = device.failure(kind, -e.number(), io);   // what complete() makes of res
                assertThat(failure.error()).as("%s %s", kind, e.name())
                        .isEqualTo(e.ioUring() != null ? e.ioUring() : io);
                assertThat(failure).hasMessage(device.path() + ": io_uring " + call + " failed: " + e.text() + " ("
                        + e.name() + ", errno " + e.number() + ")");
            }
        }
    }

    @Test
    void realCompletionErrorsReachTheCallbackOnTheLoopAsTheTableSays() throws Exception {
        UringFileBlockDevice readOnly = device(true);
        // a write SQE on the read-only descriptor (the device's own check bypassed): the kernel answers EBADF
        Done<Void> write = this.<Void>onLoop(cb -> {
            UringLoop ring = Objects.requireNonNull(UringLoop.current(), "no ring on the loop");
            NativeByteBuf data = NativeByteBuf.aligned(LBS, LBS);
            if (!readOnly.acquire()) {
                throw new AssertionError("closed");
            }
            ring.write(readOnly, data, data.segment().address(), 0, LBS, false, cb);
        });
        assertThat(write.failure().error()).isEqualTo(BlockError.CLOSED);
        assertThat(write.failure()).hasMessage(readOnly.path()
                + ": io_uring write failed: Bad file descriptor (EBADF, errno 9)");
        assertThat(write.thread()).isSameAs(loopThread());

        // a read SQE into memory that is not mapped (address 0): the kernel answers EFAULT, a medium error
        UringFileBlockDevice device = device(false);
        Done<ByteBuf> read = onLoop(cb -> {
            UringLoop ring = Objects.requireNonNull(UringLoop.current(), "no ring on the loop");
            NativeByteBuf buffer = NativeByteBuf.aligned(LBS, LBS);
            if (!device.acquire()) {
                throw new AssertionError("closed");
            }
            ring.read(device, buffer.writerIndex(0), 0L, 0, LBS, cb);
        });
        assertThat(read.failure().error()).isEqualTo(BlockError.READ_ERROR);
        assertThat(read.failure()).hasMessage(device.path() + ": io_uring read failed: Bad address (EFAULT, errno 14)");
        assertThat(read.thread()).isSameAs(loopThread());
        assertThat(loop.submit(UringLoop::inFlightOnThisThread).get()).isZero();
        assertThat(workerTasks).hasValue(0);
    }

    @Test
    void offTheLoopTheWorkerPathServesAndCompletesOnAWorker() throws Exception {
        UringFileBlockDevice device = device(false);
        ByteBuf data = pattern(1, 4);
        try {
            Done<Void> write = UringFileBlockDeviceTest.<Void>on(Runnable::run, cb -> device.write(2, data, false, cb));   // the test's thread
            assertThat(write.failure()).isNull();
            assertThat(write.thread()).isNotSameAs(Thread.currentThread());
            assertThat(workerTasks).hasValue(1);
            MultiThreadIoEventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            try {
                Done<ByteBuf> read = on(nio.next(), cb -> device.read(2, 1, cb));
                assertThat(read.failure()).isNull();
                assertThat(ByteBufUtil.equals(read.result(), data)).isTrue();
                read.result().release();
                assertThat(workerTasks).hasValue(2);
                Done<Void> flush = on(nio.next(), device::flush);
                assertThat(flush.failure()).isNull();
                assertThat(workerTasks).hasValue(3);
            } finally {
                nio.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        } finally {
            data.release();
        }
    }

    @Test
    void selectionServesDirectFilesOnTheRingAndLeavesBufferedFilesAndTheSwitchedOffCaseToFileBlockDevice()
            throws Exception {
        Path buffered = dir.resolve("buffered.img");
        FileBlockDevice plain = FileBlockDevice.open("b", buffered, GEOMETRY,
                new FileBlockDevice.Options(true, false, false), worker);
        devices.add(plain);
        assertThat(UringFileBlockDevice.wanted(buffered, false)).isFalse();
        assertThat(UringFileBlockDevice.select(plain, false)).isSameAs(plain);

        FileBlockDevice direct = FileBlockDevice.open("d", dir.resolve("direct.img"), GEOMETRY,
                new FileBlockDevice.Options(true, true, false), worker);
        BlockDevice selected = UringFileBlockDevice.select(direct, true);
        devices.add(selected);
        assertThat(selected).isInstanceOf(UringFileBlockDevice.class);
        assertThat(((UringFileBlockDevice) selected).delegate()).isSameAs(direct);

        String old = System.getProperty(UringFileBlockDevice.PROPERTY);
        System.setProperty(UringFileBlockDevice.PROPERTY, "off");
        try {
            assertThat(UringFileBlockDevice.unavailability()).contains("turned off (-Dblocktarget.io-uring=off)");
            FileBlockDevice off = FileBlockDevice.open("o", dir.resolve("off.img"), GEOMETRY,
                    new FileBlockDevice.Options(true, true, false), worker);
            devices.add(off);
            assertThat(UringFileBlockDevice.select(off, true)).isSameAs(off);
        } finally {
            if (old == null) {
                System.clearProperty(UringFileBlockDevice.PROPERTY);
            } else {
                System.setProperty(UringFileBlockDevice.PROPERTY, old);
            }
        }
    }

    @Test
    void aBlockDeviceIsWantedWithoutDirectIo() {
        Path blockDevice = Path.of("/dev/vda");
        assumeTrue(Files.exists(blockDevice), "no /dev/vda here");
        assertThat(UringFileBlockDevice.wanted(blockDevice, false)).isTrue();
        assertThat(UringFileBlockDevice.wanted(dir.resolve("missing.img"), false)).isFalse();
    }

    @Test
    void closingWithAReadInFlightCompletesItAndThenClosesTheDescriptor() throws Exception {
        UringFileBlockDevice device = device(false);
        int fd = device.fd();
        Path link = Path.of("/proc/self/fd/" + fd);
        assertThat(Files.readSymbolicLink(link)).isEqualTo(device.path().toRealPath());
        Done<ByteBuf> read = onLoop(cb -> {
            device.read(0, 16, cb);
            device.close();   // the read is queued on the ring, not yet submitted: the descriptor must stay
        });
        assertThat(read.failure()).isNull();
        read.result().release();
        assertThat(Files.exists(link) && Files.readSymbolicLink(link).equals(device.path().toRealPath()))
                .as("descriptor closed after the last operation").isFalse();
    }
}
