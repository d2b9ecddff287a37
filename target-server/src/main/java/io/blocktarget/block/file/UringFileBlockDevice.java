package io.blocktarget.block.file;

import io.blocktarget.block.BlockChecks;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.NativeByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.channel.uring.IoUring;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An O_DIRECT file or a block device whose reads, writes and flushes are io_uring operations submitted on the
 * calling event loop's own ring and completed there (issue 15, deliverable 2): no worker thread, no hop. This is
 * what Linux's loop driver gained from direct I/O with in-context submission — the request never changes thread.
 *
 * <p>The rings are Netty's: with the io_uring transport every event loop owns one (IoUringIoHandler), and a
 * {@link UringLoop} registered on it submits {@code IORING_OP_READ / WRITE / FSYNC} on this device's descriptor.
 * Called anywhere else — an epoll loop (poll mode, io_uring turned off for the transport), a worker or test
 * thread, or a loop with all its slots busy — an operation takes the {@link FileBlockDevice} it wraps (the worker
 * path), as does everything but read, write and flush: unmap, write zeroes and resize as today.
 *
 * <p>O_DIRECT wants memory, offset and length aligned: reads go to an aligned native buffer handed to the caller;
 * a write goes straight from the caller's direct buffer when that is one aligned region, else through an aligned
 * bounce copy. Flushes are group-committed per loop (see {@link UringLoop#flush}); FUA = the write, then a flush.
 */
public final class UringFileBlockDevice extends ForwardingBlockDevice {
    /** {@code -Dblocktarget.io-uring=off} turns io_uring off for file I/O and the transport alike. */
    public static final String PROPERTY = "blocktarget.io-uring";

    private enum State { OPEN, CLOSED }

    private final FileBlockDevice file;
    private final Path path;
    /** The ring's descriptor (reference-counted: it closes after the last operation in flight). */
    private final LinuxFileIo io;
    /** Memory alignment O_DIRECT needs (the file system block size, as {@link FileBlockDevice} checks); 1 without. */
    private final int alignment;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    private UringFileBlockDevice(FileBlockDevice file, LinuxFileIo io, int alignment) {
        super(file);
        this.file = file;
        this.path = file.path();
        this.io = io;
        this.alignment = alignment;
    }

    /** Why io_uring cannot be used in this JVM (turned off, kernel, seccomp, sysctl), or empty when it can. */
    public static Optional<String> unavailability() {
        if ("off".equalsIgnoreCase(System.getProperty(PROPERTY, "on"))) {
            return Optional.of("turned off (-D" + PROPERTY + "=off)");
        }
        if (!IoUring.isAvailable()) {
            Throwable cause = IoUring.unavailabilityCause();
            return Optional.of(cause == null ? "unavailable" : cause.toString());
        }
        return Optional.empty();
    }

    /** True for the LUNs this class serves: an O_DIRECT file, or a block device (direct or not). */
    public static boolean wanted(Path path, boolean directIo) {
        return directIo || isBlockDevice(path);
    }

    /**
     * The backend for an opened file LUN: {@code file} itself unless it is {@link #wanted} and io_uring is usable,
     * else this class over it (which takes {@code file} as its worker path and closes it with itself).
     */
    public static BlockDevice select(FileBlockDevice file, boolean directIo) throws IOException {
        if (!wanted(file.path(), directIo) || unavailability().isPresent()) {
            return file;
        }
        return over(file, directIo);
    }

    /** Opens the ring's descriptor on {@code file}'s path; on failure {@code file} is closed. */
    static UringFileBlockDevice over(FileBlockDevice file, boolean directIo) throws IOException {
        Objects.requireNonNull(file, "file");
        try {
            int alignment = directIo ? (int) Files.getFileStore(file.path()).getBlockSize() : 1;
            return new UringFileBlockDevice(file, LinuxFileIo.open(file.path(), file.readOnly(), directIo), alignment);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    private static boolean isBlockDevice(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).isOther();
        } catch (IOException e) {
            return false;   // missing yet: a file to be created
        }
    }

    public Path path() {
        return path;
    }

    int fd() {
        return io.fd();
    }

    /** True when a call from this thread is submitted to its ring (else it takes the worker path). */
    public static boolean ringOnThisThread() {
        return UringLoop.onUringLoop();
    }

    /** Ordered with the worker path's I/O by the file's {@link UnitLocks} (see {@link FileBlockDevice}). */
    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        file.units().acquire(lba, blockCount, false,
                lease -> readOrdered(lba, blockCount, FileBlockDevice.releasing(lease, callback)));
    }

    /** On the ring of the thread this runs on (a grant may run on the thread that released a unit), else the worker path. */
    private void readOrdered(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        UringLoop loop = UringLoop.current();
        if (loop == null) {
            file.readOrdered(lba, blockCount, callback);
            return;
        }
        BlockIoException failure = BlockChecks.checkRead(geometry(), lba, blockCount);
        if (failure == null) {
            failure = checkOpen();
        }
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        int length = blockCount << geometry().logicalBlockShift();
        // aligned: a NativeByteBuf (its address goes into the SQE)
        NativeByteBuf buffer = (NativeByteBuf) FileBlockDevice.readBuffer(name(), length, Math.max(alignment, 8),
                callback);
        if (buffer == null) {
            return;
        }
        if (!acquire()) {
            buffer.release();
            callback.complete(null, BlockChecks.closed(name()));
            return;
        }
        loop.read(this, buffer, buffer.segment().address(), (long) lba << geometry().logicalBlockShift(), length,
                callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        long blocks = data.readableBytes() >>> geometry().logicalBlockShift();
        file.units().acquire(lba, blocks, true,
                lease -> writeOrdered(lba, data, fua, FileBlockDevice.releasing(lease, callback)));
    }

    private void writeOrdered(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        UringLoop loop = UringLoop.current();
        if (loop == null) {
            file.writeOrdered(lba, data, fua, callback);
            return;
        }
        BlockIoException failure = BlockChecks.checkWrite(geometry(), lba, data);
        if (failure == null) {
            failure = readOnly() ? BlockChecks.writeProtected(name()) : checkOpen();
        }
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        int length = data.readableBytes();
        long address = zeroCopyAddress(data, length);
        NativeByteBuf bounce = null;
        if (address == 0) {
            try {
                bounce = NativeByteBuf.aligned(Math.max(alignment, 8), length);
            } catch (OutOfMemoryError e) {
                callback.complete(null, new BlockIoException(BlockError.INSUFFICIENT_RESOURCES,
                        name() + ": no memory for an O_DIRECT bounce buffer of " + length + " bytes", e));
                return;
            }
            bounce.copyFrom(0, data, data.readerIndex(), length);
            address = bounce.segment().address();
        }
        if (!acquire()) {
            if (bounce != null) {
                bounce.release();
            }
            callback.complete(null, BlockChecks.closed(name()));
            return;
        }
        loop.write(this, bounce, address, lba << geometry().logicalBlockShift(), length, fua, callback);
    }

    /** The address of {@code data}'s bytes when they are one direct region aligned for O_DIRECT, else 0. */
    private long zeroCopyAddress(ByteBuf data, int length) {
        if (data.nioBufferCount() != 1) {
            return 0;
        }
        ByteBuffer region = data.nioBuffer(data.readerIndex(), length);
        if (!region.isDirect()) {
            return 0;
        }
        long address = MemorySegment.ofBuffer(region).address();
        return (address & (alignment - 1)) == 0 ? address : 0;
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        UringLoop loop = UringLoop.current();
        if (loop == null) {
            file.flush(callback);
            return;
        }
        BlockIoException failure = checkOpen();
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        loop.flush(this, callback);
    }

    /** The worker path of a flush the loop could not take (no slot). */
    void flushOnWorker(IoCallback<Void> callback) {
        file.flush(callback);
    }

    private BlockIoException checkOpen() {
        return state.get() == State.CLOSED ? BlockChecks.closed(name()) : null;
    }

    /** Takes a use of the descriptor for one operation; false once the device is closed and idle. */
    boolean acquire() {
        return io.acquire();
    }

    /** Gives a use back; the last one closes the descriptor (never while the ring may still read it). */
    void release() {
        io.release();
    }

    /** The failure of an operation whose CQE said {@code res} (0 = nothing transferred, else -errno). */
    BlockIoException failure(UringLoop.Kind kind, int res, BlockError ioError) {
        String what = switch (kind) {
            case READ -> "read";
            case WRITE -> "write";
            case FSYNC -> "fdatasync";
        };
        if (res == 0) {
            return new BlockIoException(ioError, path + ": io_uring " + what + " transferred nothing"
                    + (kind == UringLoop.Kind.READ ? ": end of file inside the LUN (file truncated?)" : ""));
        }
        return Errno.failure(Errno.Origin.IO_URING, path, what, -res, ioError);
    }

    /** Flushes and closes the worker path; the ring's descriptor closes when its last operation completes. */
    @Override
    public void close() {
        if (state.compareAndSet(State.OPEN, State.CLOSED)) {
            file.close();
            io.close();
        }
    }
}
