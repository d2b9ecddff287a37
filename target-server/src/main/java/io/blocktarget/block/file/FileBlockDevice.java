package io.blocktarget.block.file;

import io.blocktarget.block.BlockChecks;
import io.blocktarget.block.AbstractBlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.Libc;
import io.blocktarget.block.NativeByteBuf;
import io.blocktarget.block.ZeroBuffers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The "loop device" (DESIGN.md §3): a LUN on a regular file or block device, positional I/O through
 * a {@link FileChannel} (pread/pwrite, safe from several threads at once) on {@code ioExecutor},
 * never on the caller's thread. Every callback, failures included, runs on an executor thread;
 * only when the executor refuses the task does the callback run inline, with CLOSED.
 *
 * <p>flush = fdatasync ({@code force(false)}), FUA = write then fdatasync, unmap and write-zeroes
 * = fallocate(PUNCH_HOLE) with a fallback to writing zeros where the file system cannot punch. With
 * {@code directIo} the file is opened O_DIRECT and I/O goes through buffers aligned to the file
 * system block size (JDK requirement), so the logical block size must be at least that.
 *
 * <p>Do not interrupt the executor's threads: an interrupt during FileChannel I/O closes the
 * channel (ClosedByInterruptException), after which every operation fails CLOSED.
 */
public final class FileBlockDevice extends AbstractBlockDevice {
    /**
     * @param create   make a sparse file of the geometry's size if the path does not exist
     * @param directIo open with O_DIRECT (bypass the page cache)
     * @param readOnly open read-only; writes, unmap and write-zeroes fail WRITE_PROTECTED
     */
    public record Options(boolean create, boolean directIo, boolean readOnly) {
    }

    private static final System.Logger LOG = System.getLogger(FileBlockDevice.class.getName());

    private final Path path;
    private final Options options;
    private final Executor ioExecutor;
    private final FileChannel channel;
    /** Null when read-only. */
    private final HolePuncher holePuncher;
    /** Buffer alignment for O_DIRECT, 0 without. */
    private final int directAlignment;

    private FileBlockDevice(String name, Path path, BlockGeometry geometry, Options options, Executor ioExecutor,
                            FileChannel channel, HolePuncher holePuncher, int directAlignment) {
        super(name, geometry, options.readOnly());
        this.path = path;
        this.options = options;
        this.ioExecutor = ioExecutor;
        this.channel = channel;
        this.holePuncher = holePuncher;
        this.directAlignment = directAlignment;
    }

    /**
     * Opens (or with {@code options.create()} creates, sparse) the file. Fails with an IOException
     * naming the path when it is missing, its size differs from the geometry (a block device may be
     * larger), the file system refuses O_DIRECT, or O_DIRECT needs a larger block size.
     */
    public static FileBlockDevice open(String name, Path path, BlockGeometry geometry, Options options,
                                       Executor ioExecutor) throws IOException {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(geometry, "geometry");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(ioExecutor, "ioExecutor");
        boolean exists = Files.exists(Objects.requireNonNull(path, "path"));
        if (!exists && !options.create()) {
            throw new NoSuchFileException(path.toString(), null, "LUN " + name + ": file does not exist and create is off");
        }
        // Checked before creating anything, on the directory when the file is still missing.
        int alignment = options.directIo()
                ? directAlignment(exists ? path : path.toAbsolutePath().getParent(), geometry) : 0;
        if (!exists) {
            createSparse(path, geometry.sizeBytes());
        }
        FileChannel channel = null;
        HolePuncher puncher = null;
        try {
            channel = openChannel(path, options);
            checkSize(path, channel.size(), geometry);
            puncher = options.readOnly() ? null : HolePuncher.open(path);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            if (!exists) {
                Files.deleteIfExists(path);   // leave no half-made LUN file behind
            }
            throw e;
        }
        return new FileBlockDevice(name, path, geometry, options, ioExecutor, channel, puncher, alignment);
    }

    private static void createSparse(Path path, long size) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(Files.createFile(path).toFile(), "rw")) {
            file.setLength(size);   // ftruncate: a hole of the whole size, no blocks allocated
        }
    }

    private static int directAlignment(Path where, BlockGeometry geometry) throws IOException {
        // The JDK checks O_DIRECT buffers, positions and lengths against the file store's block size.
        long blockSize = Files.getFileStore(where).getBlockSize();
        if (geometry.logicalBlockSize() < blockSize) {
            throw new IOException(where + ": direct-io needs a logical block size of at least the file system block size "
                    + blockSize + " (have " + geometry.logicalBlockSize() + "); use direct-io: false or a larger block size");
        }
        return (int) blockSize;
    }

    private static FileChannel openChannel(Path path, Options options) throws IOException {
        Set<OpenOption> open = new HashSet<>();
        open.add(StandardOpenOption.READ);
        if (!options.readOnly()) {
            open.add(StandardOpenOption.WRITE);
        }
        if (options.directIo()) {
            open.add(com.sun.nio.file.ExtendedOpenOption.DIRECT);
        }
        try {
            return FileChannel.open(path, open);
        } catch (IOException e) {
            if (options.directIo() && Files.exists(path)) {
                throw new IOException(path + ": the file system refuses O_DIRECT (" + e.getMessage()
                        + "); use direct-io: false or put the file on a file system that supports direct I/O", e);
            }
            throw e;
        }
    }

    private static void checkSize(Path path, long actual, BlockGeometry geometry) throws IOException {
        long expected = geometry.sizeBytes();
        boolean blockDevice = Files.readAttributes(path, BasicFileAttributes.class).isOther();
        if (blockDevice ? actual < expected : actual != expected) {
            throw new IOException(path + " is " + actual + " bytes but the LUN is " + geometry.blockCount() + " blocks of "
                    + geometry.logicalBlockSize() + " = " + expected + " bytes"
                    + (blockDevice ? "; the block device is too small" : "; resize the file or fix the LUN size"));
        }
    }

    public Path path() {
        return path;
    }

    /**
     * Completed writes sit in the page cache (or, with O_DIRECT, in the disk's write cache and
     * unwritten file metadata) until fsync.
     */
    @Override
    public boolean volatileWriteCache() {
        return true;
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkReadRequest(lba, blockCount);
            if (failure != null) {
                callback.complete(null, failure);
                return;
            }
            int length = blockCount << geometry().logicalBlockShift();
            ByteBuf buffer;
            try {
                buffer = length == 0 ? Unpooled.EMPTY_BUFFER : allocate(length);
            } catch (OutOfMemoryError e) {   // Netty's direct memory limit or malloc: fail this read only
                callback.complete(null, new BlockIoException(BlockError.INSUFFICIENT_RESOURCES,
                        name() + ": no memory for a read buffer", e));
                return;
            }
            try {
                ByteBuffer target = buffer.nioBuffer(0, length);
                long position = lba << geometry().logicalBlockShift();
                while (target.hasRemaining()) {
                    if (channel.read(target, position + target.position()) < 0) {
                        throw new IOException(path + ": end of file inside the LUN (file truncated?)");
                    }
                }
                buffer.writerIndex(length);
            } catch (IOException e) {
                buffer.release();
                callback.complete(null, failure(e, BlockError.READ_ERROR));
                return;
            }
            callback.complete(buffer, null);
        });
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkWriteRequest(lba, data);
            if (failure == null) {
                try {
                    writeAt(lba << geometry().logicalBlockShift(), data);
                    if (fua) {
                        channel.force(false);
                    }
                } catch (IOException e) {
                    failure = failure(e, BlockError.WRITE_ERROR);
                }
            }
            callback.complete(null, failure);
        });
    }

    private void writeAt(long position, ByteBuf data) throws IOException {
        int length = data.readableBytes();
        if (directAlignment == 0) {
            for (ByteBuffer source : data.nioBuffers(data.readerIndex(), length)) {
                position = writeFully(source, position);
            }
            return;
        }
        NativeByteBuf bounce;
        try {
            bounce = NativeByteBuf.aligned(directAlignment, length);
        } catch (OutOfMemoryError e) {
            throw new NoBufferException("no memory for an O_DIRECT bounce buffer of " + length + " bytes", e);
        }
        try {
            bounce.copyFrom(0, data, data.readerIndex(), length);
            writeFully(bounce.nioBuffer(0, length), position);
        } finally {
            bounce.release();
        }
    }

    private long writeFully(ByteBuffer source, long position) throws IOException {
        while (source.hasRemaining()) {
            position += channel.write(source, position);
        }
        return position;
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = null;
            try {
                channel.force(false);
            } catch (IOException e) {
                failure = failure(e, BlockError.WRITE_ERROR);
            }
            callback.complete(null, failure);
        });
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        List<BlockRange> copy = List.copyOf(ranges);
        submit(callback, () -> {
            BlockIoException failure = checkUnmapRequest(copy);
            for (int i = 0; failure == null && i < copy.size(); i++) {
                failure = deallocate(copy.get(i).lba(), copy.get(i).count());
            }
            callback.complete(null, failure);
        });
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkWriteZeroesRequest(lba, blockCount);
            callback.complete(null, failure != null ? failure : deallocate(lba, blockCount));
        });
    }

    /** Punches a hole; where the file system cannot, writes zeros instead. */
    private BlockIoException deallocate(long lba, long blockCount) {
        long offset = lba << geometry().logicalBlockShift();
        long length = blockCount << geometry().logicalBlockShift();
        if (length == 0) {
            return null;
        }
        int errno = holePuncher.punch(offset, length);
        if (errno == 0) {
            return null;
        }
        if (errno == Libc.ENOSPC || errno == Libc.EDQUOT) {
            return new BlockIoException(BlockError.OUT_OF_SPACE, path + ": no space to punch a hole");
        }
        if (errno != Libc.EOPNOTSUPP) {
            return new BlockIoException(BlockError.WRITE_ERROR, path + ": fallocate(PUNCH_HOLE) failed, errno " + errno);
        }
        return writeZeros(offset, length);
    }

    /** The fallback where the file system cannot punch holes: zeros written from the shared (aligned) zero region. */
    BlockIoException writeZeros(long offset, long length) {
        try {
            for (long end = offset + length; offset < end; ) {
                offset = writeFully(ZeroBuffers.nioBuffer((int) Math.min(ZeroBuffers.REGION_SIZE, end - offset)), offset);
            }
            return null;
        } catch (IOException e) {
            return failure(e, BlockError.WRITE_ERROR);
        }
    }

    /**
     * Resizes on the I/O executor. A regular file is set to the new size (ftruncate: growing leaves a hole that
     * reads as zeros, shrinking discards the tail); when it already has that size — grown or shrunk by someone
     * else — the LUN just follows it, which is also the only resize a read-only file takes. A block device is never
     * changed: the LUN may take any size up to the device's current one (which follows an externally grown device).
     */
    @Override
    public void resize(long newBlockCount, IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkResize(newBlockCount);
            if (failure == null) {
                failure = resizeMedium(newBlockCount << geometry().logicalBlockShift());
            }
            if (failure == null) {
                publishBlockCount(newBlockCount);
            }
            callback.complete(null, failure);
        });
    }

    private synchronized BlockIoException resizeMedium(long newSize) {
        try {
            long actual = channel.size();
            if (Files.readAttributes(path, BasicFileAttributes.class).isOther()) {
                return actual >= newSize ? null : new BlockIoException(BlockError.INVALID_LENGTH, path + " is "
                        + actual + " bytes, less than the " + newSize + " asked for; grow the block device first");
            }
            if (actual == newSize) {
                return null;
            }
            if (options.readOnly()) {
                return new BlockIoException(BlockError.WRITE_PROTECTED, path + " is read-only and " + actual
                        + " bytes; cannot make it " + newSize);
            }
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                file.setLength(newSize);   // ftruncate either way
            }
            return null;
        } catch (IOException e) {
            return failure(e, BlockError.WRITE_ERROR);
        }
    }

    /** Flushes and closes; blocks the caller for the fsync. Operations still queued fail CLOSED. */
    @Override
    public void close() {
        if (!transitionToClosed()) {
            return;
        }
        try {
            if (!options.readOnly()) {
                channel.force(false);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "LUN {0}: fsync of {1} on close failed: {2}", name(), path, e.toString());
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "LUN {0}: closing {1} failed: {2}", name(), path, e.toString());
        }
        if (holePuncher != null) {
            holePuncher.close();
        }
    }

    private ByteBuf allocate(int length) {
        return directAlignment == 0
                ? PooledByteBufAllocator.DEFAULT.directBuffer(length, length)
                : NativeByteBuf.aligned(directAlignment, length).writerIndex(0);
    }

    /** Runs {@code operation} on the executor unless the device is closed by then. */
    private void submit(IoCallback<?> callback, Runnable operation) {
        try {
            ioExecutor.execute(() -> {
                BlockIoException closed = checkOpen();
                if (closed != null) {
                    callback.complete(null, closed);
                } else {
                    operation.run();
                }
            });
        } catch (RejectedExecutionException e) {
            callback.complete(null, BlockChecks.closed(name()));
        }
    }

    private BlockIoException failure(IOException e, BlockError ioError) {
        return new BlockIoException(classify(e, ioError), path + ": " + e, e);
    }

    /**
     * CLOSED for a closed channel, OUT_OF_SPACE for a full file system, INSUFFICIENT_RESOURCES for a
     * buffer we could not allocate (not the medium's fault), else {@code ioError}.
     */
    static BlockError classify(IOException e, BlockError ioError) {
        if (e instanceof ClosedChannelException) {   // also AsynchronousClose / ClosedByInterrupt
            return BlockError.CLOSED;
        }
        if (e instanceof NoBufferException) {
            return BlockError.INSUFFICIENT_RESOURCES;
        }
        String message = String.valueOf(e.getMessage());
        // FileChannel reports errno only as strerror text: ENOSPC / EDQUOT.
        if (message.contains("No space left on device") || message.contains("Disk quota exceeded")) {
            return BlockError.OUT_OF_SPACE;
        }
        return ioError;
    }

    /** A bounce buffer could not be allocated: carried through the write path's IOException handling. */
    static final class NoBufferException extends IOException {
        NoBufferException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
