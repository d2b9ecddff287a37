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
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.UnaryOperator;

/**
 * The "loop device" (DESIGN.md §3): a LUN on a regular file or block device, positional I/O with preadv2 / pwritev2
 * on a descriptor of our own ({@link LinuxFileIo}), straight from and into the Netty buffers.
 *
 * <p>Buffered (page cache) files take an inline fast path on the caller's thread — the event loop — chosen once at
 * open per direction ({@link IoPath}, named in the LUN's start-up log line): RWF_NOWAIT where the file system honours
 * it, so a call that would wait (page not cached, block allocation, lock contention) returns EAGAIN or a short count
 * instead and the rest goes to {@code ioExecutor}; plain calls on a memory file system without swap, where the page
 * cache is the medium and nothing waits for a device. This is the shape Linux's loop driver moved to (a non-blocking
 * submit tried inline first, the queued worker path only as the fallback). Everything that may wait by design runs on
 * the executor: FUA writes (RWF_DSYNC), flush, unmap / write zeroes, resize, and every call with O_DIRECT. A callback
 * therefore runs either inline, before the method returns (as a RAM LUN's does), or on an executor thread; when the
 * executor refuses a task the callback runs inline with CLOSED.
 *
 * <p>flush = fdatasync, with group commit: a flush that arrives while an fdatasync runs waits for the next one, which
 * starts after it was asked for and so covers every write completed before, and all such flushes share that one.
 * Unmap and write-zeroes = fallocate(PUNCH_HOLE) with a fallback to writing zeros where the file system cannot punch.
 * With {@code directIo} the file is opened O_DIRECT and I/O goes through buffers aligned to the file system block size,
 * so the logical block size must be at least that.
 *
 * <p>Overlapping I/O is ordered per physical block ({@link UnitLocks}): reads of a physical block share it, a write,
 * unmap or write zeroes has it alone, so every write within one physical block — one logical block in particular — is
 * atomic with respect to other reads and writes (NVM Command Set §2.1.4.1), which the page cache alone does not give
 * (it copies page by page, and buffered reads take no lock on ext4 or tmpfs). Across a power loss or a crash nothing
 * beyond what the kernel wrote back is promised ({@link #powerFailAtomicUnitBlocks} is 1).
 */
public final class FileBlockDevice extends AbstractBlockDevice {
    /**
     * @param create   make a sparse file of the geometry's size if the path does not exist
     * @param directIo open with O_DIRECT (bypass the page cache)
     * @param readOnly open read-only; writes, unmap and write-zeroes fail WRITE_PROTECTED
     */
    public record Options(boolean create, boolean directIo, boolean readOnly) {
    }

    /** Where the reads (or the writes) of a LUN run; chosen once at open. */
    public enum IoPath {
        /** On the caller's thread with RWF_NOWAIT; EAGAIN or a short transfer hands the remainder to the executor. */
        INLINE_NOWAIT(FileIo.RWF_NOWAIT, "inline (RWF_NOWAIT, the rest on I/O threads)"),
        /**
         * On the caller's thread without flags: a regular file on tmpfs / ramfs while no swap is on. Such a file's pages
         * are the medium: a read copies from memory, a write allocates memory as a RAM LUN does, and no call waits for
         * a device (these file systems refuse RWF_NOWAIT, so it cannot be asked for).
         */
        INLINE_MEMORY(0, "inline (memory file system, no swap)"),
        /** Every call on the executor. */
        WORKER(0, "on I/O threads");

        final int flags;
        private final String description;

        IoPath(int flags, String description) {
            this.flags = flags;
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    private static final System.Logger LOG = System.getLogger("blocktarget.block");
    private static final Runnable NOTHING = () -> { };

    private final Path path;
    private final Options options;
    private final Executor ioExecutor;
    private final FileIo io;
    private final IoPath readPath;
    private final IoPath writePath;
    /** Buffer alignment for O_DIRECT, 0 without. */
    private final int directAlignment;
    /** The order of overlapping I/O per physical block: what makes a write within one atomic (class comment). */
    private final UnitLocks units;
    private final Object syncLock = new Object();
    /** Flushes the running fdatasync serves; null when none runs. Guarded by syncLock. */
    private List<IoCallback<Void>> syncing;
    /** Flushes that arrived while one ran: the next fdatasync serves them. Guarded by syncLock. */
    private List<IoCallback<Void>> nextSync;

    private FileBlockDevice(String name, Path path, BlockGeometry geometry, Options options, Executor ioExecutor,
                            FileIo io, IoPath readPath, IoPath writePath, int directAlignment) {
        super(name, geometry, options.readOnly());
        this.path = path;
        this.options = options;
        this.ioExecutor = ioExecutor;
        this.io = io;
        this.readPath = readPath;
        this.writePath = writePath;
        this.directAlignment = directAlignment;
        this.units = new UnitLocks(geometry.logicalBlocksPerPhysicalBlock());
    }

    /**
     * Opens (or with {@code options.create()} creates, sparse) the file. Fails with an IOException
     * naming the path when it is missing, its size differs from the geometry (a block device may be
     * larger), the file system refuses O_DIRECT, or O_DIRECT needs a larger block size.
     */
    public static FileBlockDevice open(String name, Path path, BlockGeometry geometry, Options options,
                                       Executor ioExecutor) throws IOException {
        return open(name, path, geometry, options, ioExecutor, UnaryOperator.identity());
    }

    /** As above, with the system calls wrapped by {@code syscalls} (tests: counting, injected EAGAIN and errors). */
    static FileBlockDevice open(String name, Path path, BlockGeometry geometry, Options options,
                                Executor ioExecutor, UnaryOperator<FileIo> syscalls) throws IOException {
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
        FileIo io = null;
        try {
            io = syscalls.apply(openDescriptor(path, options));
            long size = io.size();
            if (size < 0) {
                throw new IOException(path + ": lseek failed: " + Errno.describe((int) -size));
            }
            checkSize(path, size, geometry);
            IoPath reads = IoPath.WORKER;
            IoPath writes = IoPath.WORKER;
            long fsType = io.fileSystemType();
            if (!options.directIo()) {
                boolean memory = Files.isRegularFile(path) && memoryFileSystem(fsType) && noSwap();
                reads = probe(io, geometry.logicalBlockSize(), false, memory);
                writes = options.readOnly() ? IoPath.WORKER : probe(io, geometry.logicalBlockSize(), true, memory);
            }
            LOG.log(System.Logger.Level.INFO, "LUN {0}: {1} on {2}, {3}: reads {4}, writes {5}; flush and FUA on I/O threads",
                    name, path, fileSystemName(fsType), options.directIo() ? "O_DIRECT" : "page cache",
                    reads.description(), options.readOnly() ? "refused (read-only)" : writes.description());
            return new FileBlockDevice(name, path, geometry, options, ioExecutor, io, reads, writes, alignment);
        } catch (IOException | RuntimeException e) {
            if (io != null) {
                io.close();
            }
            if (!exists) {
                Files.deleteIfExists(path);   // leave no half-made LUN file behind
            }
            throw e;
        }
    }

    private static void createSparse(Path path, long size) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(Files.createFile(path).toFile(), "rw")) {
            file.setLength(size);   // ftruncate: a hole of the whole size, no blocks allocated
        }
    }

    private static int directAlignment(Path where, BlockGeometry geometry) throws IOException {
        // O_DIRECT wants buffers, positions and lengths aligned to the file store's block size.
        long blockSize = Files.getFileStore(where).getBlockSize();
        if (geometry.logicalBlockSize() < blockSize) {
            throw new IOException(where + ": direct-io needs a logical block size of at least the file system block size "
                    + blockSize + " (have " + geometry.logicalBlockSize() + "); use direct-io: false or a larger block size");
        }
        return (int) blockSize;
    }

    private static LinuxFileIo openDescriptor(Path path, Options options) throws IOException {
        try {
            return LinuxFileIo.open(path, options.readOnly(), options.directIo());
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

    /**
     * Asks the file system once whether it honours RWF_NOWAIT: it answers EOPNOTSUPP (tmpfs; ext4 for buffered
     * writes) before it looks at the data. The read probe reads block 0; the write probe reads block 0 and writes the
     * same bytes back with RWF_NOWAIT, so whether it is refused, gets EAGAIN or is done, the content is unchanged (the
     * LUN is not exported yet, so nobody writes in between).
     */
    private static IoPath probe(FileIo io, int blockSize, boolean write, boolean memoryFileSystem) {
        ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(blockSize, blockSize);
        try {
            long n;
            if (write) {
                n = io.read(block, 0, blockSize, 0, 0);
                if (n != blockSize) {
                    return IoPath.WORKER;
                }
                n = io.write(block, 0, blockSize, 0, FileIo.RWF_NOWAIT);
            } else {
                n = io.read(block, 0, blockSize, 0, FileIo.RWF_NOWAIT);
            }
            if (!Errno.flagRefused(n)) {
                return IoPath.INLINE_NOWAIT;
            }
            return memoryFileSystem ? IoPath.INLINE_MEMORY : IoPath.WORKER;
        } finally {
            block.release();
        }
    }

    private static boolean memoryFileSystem(long fsType) {
        return fsType == LinuxFileIo.TMPFS_MAGIC || fsType == LinuxFileIo.RAMFS_MAGIC;
    }

    /** No swap area is on (/proc/swaps has only its header), so tmpfs pages cannot be paged out and read back. */
    private static boolean noSwap() {
        try {
            return Files.readAllLines(Path.of("/proc/swaps")).size() <= 1;
        } catch (IOException | RuntimeException e) {
            return false;   // cannot tell: assume swap, stay on the I/O threads
        }
    }

    private static String fileSystemName(long fsType) {
        if (fsType == LinuxFileIo.TMPFS_MAGIC) {
            return "tmpfs";
        }
        if (fsType == LinuxFileIo.RAMFS_MAGIC) {
            return "ramfs";
        }
        if (fsType == 0xEF53L) {
            return "ext4";
        }
        if (fsType == 0x58465342L) {
            return "xfs";
        }
        if (fsType == 0x9123683EL) {
            return "btrfs";
        }
        return fsType < 0 ? "an unknown file system" : "file system 0x" + Long.toHexString(fsType);
    }

    public Path path() {
        return path;
    }

    /** Where reads run (the start-up line says it too). */
    public IoPath readPath() {
        return readPath;
    }

    /** Where writes without FUA run. */
    public IoPath writePath() {
        return writePath;
    }

    /**
     * Completed writes sit in the page cache (or, with O_DIRECT, in the disk's write cache and
     * unwritten file metadata) until fsync.
     */
    @Override
    public boolean volatileWriteCache() {
        return true;
    }

    /** The physical block: overlapping I/O is ordered per physical block (class comment). */
    @Override
    public int atomicUnitBlocks() {
        return units.unitBlocks();
    }

    /** The order of overlapping I/O, which {@link UringFileBlockDevice} takes for its ring operations too. */
    UnitLocks units() {
        return units;
    }

    /** {@code callback}, releasing {@code lease} first. */
    static <T> IoCallback<T> releasing(UnitLocks.Lease lease, IoCallback<T> callback) {
        return (result, failure) -> {
            lease.release();
            callback.complete(result, failure);
        };
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        units.acquire(lba, blockCount, false, lease -> readOrdered(lba, blockCount, releasing(lease, callback)));
    }

    /** A read whose units are held (by the caller). */
    void readOrdered(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        if (readPath == IoPath.WORKER) {
            submit(callback, () -> startRead(lba, blockCount, callback, false), NOTHING);
        } else {
            startRead(lba, blockCount, callback, true);
        }
    }

    private void startRead(long lba, int blockCount, IoCallback<ByteBuf> callback, boolean inline) {
        BlockIoException failure = checkReadRequest(lba, blockCount);
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        int length = blockCount << geometry().logicalBlockShift();
        ByteBuf buffer = readBuffer(name(), length, directAlignment, callback);
        if (buffer == null) {
            return;
        }
        long position = lba << geometry().logicalBlockShift();
        if (!inline) {
            finishRead(buffer, position, 0, length, callback);
            return;
        }
        long n = io.read(buffer, 0, length, position, readPath.flags);
        if (n == length) {
            callback.complete(buffer.writerIndex(length), null);
            return;
        }
        if (n < 0 && !handOn(n)) {
            buffer.release();
            callback.complete(null, failure("read", (int) -n, BlockError.READ_ERROR));
            return;
        }
        int done = (int) Math.max(0, n);   // not (all) in the page cache: the rest may wait, on an I/O thread
        submit(callback, () -> finishRead(buffer, position, done, length, callback), buffer::release);
    }

    /**
     * True for what an inline call answers instead of waiting (EAGAIN), or where RWF_NOWAIT itself was refused after
     * all (EOPNOTSUPP, or EINVAL from kernels that check buffered NOWAIT writes that way): the I/O thread retries
     * without the flag, and a real error shows there.
     */
    private static boolean handOn(long n) {
        return n == -Errno.EAGAIN || Errno.flagRefused(n);
    }

    private void finishRead(ByteBuf buffer, long position, int done, int length, IoCallback<ByteBuf> callback) {
        while (done < length) {
            long n = io.read(buffer, done, length - done, position + done, 0);
            if (n <= 0) {
                buffer.release();
                callback.complete(null, n == 0
                        ? new BlockIoException(BlockError.READ_ERROR, path + ": end of file inside the LUN (file truncated?)")
                        : failure("read", (int) -n, BlockError.READ_ERROR));
                return;
            }
            done += (int) n;
        }
        callback.complete(buffer.writerIndex(length), null);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        long blocks = data.readableBytes() >>> geometry().logicalBlockShift();
        units.acquire(lba, blocks, true, lease -> writeOrdered(lba, data, fua, releasing(lease, callback)));
    }

    /** A write whose units are held (by the caller). */
    void writeOrdered(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        // A FUA write waits for the medium (RWF_DSYNC): never on the caller's thread.
        if (fua || writePath == IoPath.WORKER) {
            submit(callback, () -> {
                BlockIoException failure = checkWriteRequest(lba, data);
                callback.complete(null, failure != null ? failure : writeAt(lba << geometry().logicalBlockShift(), data, 0, fua));
            }, NOTHING);
            return;
        }
        BlockIoException failure = checkWriteRequest(lba, data);
        if (failure != null) {
            callback.complete(null, failure);
            return;
        }
        long position = lba << geometry().logicalBlockShift();
        int length = data.readableBytes();
        long n = io.write(data, data.readerIndex(), length, position, writePath.flags);
        if (n == length) {
            callback.complete(null, null);
            return;
        }
        if (n < 0 && !handOn(n)) {
            callback.complete(null, failure("write", (int) -n, BlockError.WRITE_ERROR));
            return;
        }
        int done = (int) Math.max(0, n);   // allocation, writeback or a lock would wait: the rest on an I/O thread
        submit(callback, () -> callback.complete(null, writeAt(position, data, done, false)), NOTHING);
    }

    /** Writes {@code data} from its byte {@code done} on, at {@code position + done}; with {@code fua} durably. */
    private BlockIoException writeAt(long position, ByteBuf data, int done, boolean fua) {
        int length = data.readableBytes();
        if (directAlignment == 0) {
            return writeFully(data, data.readerIndex(), done, length, position, fua);
        }
        NativeByteBuf bounce;
        try {
            bounce = NativeByteBuf.aligned(directAlignment, length);
        } catch (OutOfMemoryError e) {
            return new BlockIoException(BlockError.INSUFFICIENT_RESOURCES,
                    path + ": no memory for an O_DIRECT bounce buffer of " + length + " bytes", e);
        }
        try {
            bounce.copyFrom(0, data, data.readerIndex(), length);
            return writeFully(bounce, 0, done, length, position, fua);
        } finally {
            bounce.release();
        }
    }

    /** pwritev2 until {@code [from + done, from + length)} is written; FUA as RWF_DSYNC, or write + fdatasync. */
    private BlockIoException writeFully(ByteBuf data, int from, int done, int length, long position, boolean fua) {
        int flags = fua ? FileIo.RWF_DSYNC : 0;
        while (done < length) {
            long n = io.write(data, from + done, length - done, position + done, flags);
            if (flags != 0 && Errno.flagRefused(n)) {
                flags = 0;   // a kernel without RWF_DSYNC: write, then fdatasync below
                continue;
            }
            if (n <= 0) {
                return failure("write", n == 0 ? Errno.EIO : (int) -n, BlockError.WRITE_ERROR);
            }
            done += (int) n;
        }
        if (fua && flags == 0) {
            int r = io.fdatasync();
            if (r < 0) {
                return failure("fdatasync", -r, BlockError.WRITE_ERROR);
            }
        }
        return null;
    }

    /**
     * Group commit: the first flush starts an fdatasync on an I/O thread; flushes that arrive while it runs wait for
     * the next one, which starts once it is done — after they were asked for, so it covers every write completed
     * before any of them — and all of them complete with that one's outcome.
     */
    @Override
    public void flush(IoCallback<Void> callback) {
        Objects.requireNonNull(callback, "callback");
        List<IoCallback<Void>> batch;
        synchronized (syncLock) {
            if (syncing != null) {
                if (nextSync == null) {
                    nextSync = new ArrayList<>(4);
                }
                nextSync.add(callback);
                return;
            }
            batch = new ArrayList<>(4);
            batch.add(callback);
            syncing = batch;
        }
        startSync();
    }

    private void startSync() {
        try {
            ioExecutor.execute(this::runSync);
        } catch (RejectedExecutionException e) {
            failSyncs(BlockChecks.closed(name()));
        }
    }

    /**
     * Runs the fdatasync of the batch in {@code syncing}. Flushes that came meanwhile are the next batch, started as a
     * new task once this fdatasync is done: at the back of the executor's queue, so a stream of flushes takes an I/O
     * thread for one fdatasync at a time and the work queued meanwhile (this and other LUNs' worker-path I/O) runs in
     * between, rather than waiting until the flushes stop.
     */
    private void runSync() {
        List<IoCallback<Void>> batch;
        synchronized (syncLock) {
            batch = syncing;
        }
        BlockIoException failure = checkOpen();
        if (failure == null) {
            int r = io.fdatasync();
            failure = r == 0 ? null : failure("fdatasync", -r, BlockError.WRITE_ERROR);
        }
        boolean more;
        synchronized (syncLock) {
            syncing = nextSync;   // null: idle, the next flush starts a new fdatasync itself
            nextSync = null;
            more = syncing != null;
        }
        if (more) {
            startSync();
        }
        for (IoCallback<Void> callback : batch) {
            deliver(callback, null, failure);   // one that throws must not keep the others from completing
        }
    }

    private void failSyncs(BlockIoException failure) {
        List<IoCallback<Void>> failed = new ArrayList<>();
        synchronized (syncLock) {
            if (syncing != null) {
                failed.addAll(syncing);
            }
            if (nextSync != null) {
                failed.addAll(nextSync);
            }
            syncing = null;
            nextSync = null;
        }
        for (IoCallback<Void> callback : failed) {
            deliver(callback, null, failure);
        }
    }

    /**
     * Runs a callback of an operation this device completes in a batch (group commit here, a ring's completions in
     * {@link UringLoop}): one that throws — a bug upstream, or a hop to an event loop that refuses the task — is
     * logged and must not keep the rest of the batch, or the batch after it, from completing.
     */
    static <T> void deliver(IoCallback<T> callback, T result, BlockIoException failure) {
        try {
            callback.complete(result, failure);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "a block I/O completion failed", e);
        }
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        List<BlockRange> copy = List.copyOf(ranges);
        long first = Long.MAX_VALUE;
        long end = 0;
        for (BlockRange r : copy) {
            first = Math.min(first, r.lba());
            end = Math.max(end, UnitLocks.end(r.lba(), r.count()));
        }
        if (copy.isEmpty()) {
            unmapOrdered(copy, callback);
            return;
        }
        units.acquire(first, end - first, true, lease -> unmapOrdered(copy, releasing(lease, callback)));
    }

    private void unmapOrdered(List<BlockRange> copy, IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkUnmapRequest(copy);
            for (int i = 0; failure == null && i < copy.size(); i++) {
                failure = deallocate(copy.get(i).lba(), copy.get(i).count());
            }
            callback.complete(null, failure);
        }, NOTHING);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        units.acquire(lba, blockCount, true, lease -> writeZeroesOrdered(lba, blockCount, releasing(lease, callback)));
    }

    private void writeZeroesOrdered(long lba, long blockCount, IoCallback<Void> callback) {
        submit(callback, () -> {
            BlockIoException failure = checkWriteZeroesRequest(lba, blockCount);
            callback.complete(null, failure != null ? failure : deallocate(lba, blockCount));
        }, NOTHING);
    }

    /**
     * Punches a hole (fallocate PUNCH_HOLE | KEEP_SIZE); where the file system cannot, writes zeros instead. On a
     * regular file the hole reads back as zeros even where it does not cover whole file system blocks (the kernel
     * zeroes the partial blocks); on a block device the kernel discards or zeroes the range.
     */
    private BlockIoException deallocate(long lba, long blockCount) {
        long offset = lba << geometry().logicalBlockShift();
        long length = blockCount << geometry().logicalBlockShift();
        if (length == 0) {
            return null;
        }
        int r = io.fallocate(Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
        if (r == 0) {
            return null;
        }
        if (r != -Errno.EOPNOTSUPP) {   // ENOSPC / EDQUOT (punching may split an extent): OUT_OF_SPACE
            return failure("fallocate(PUNCH_HOLE)", -r, BlockError.WRITE_ERROR);
        }
        return writeZeros(offset, length);
    }

    /** The fallback where the file system cannot punch holes: zeros written from the shared (aligned) zero region. */
    BlockIoException writeZeros(long offset, long length) {
        for (long end = offset + length; offset < end; ) {
            int chunk = (int) Math.min(ZeroBuffers.REGION_SIZE, end - offset);
            BlockIoException failure = writeFully(ZeroBuffers.slice(chunk), 0, 0, chunk, offset, false);
            if (failure != null) {
                return failure;
            }
            offset += chunk;
        }
        return null;
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
        }, NOTHING);
    }

    private synchronized BlockIoException resizeMedium(long newSize) {
        try {
            long actual = io.size();
            if (actual < 0) {
                return failure("lseek", (int) -actual, BlockError.WRITE_ERROR);
            }
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
            return new BlockIoException(BlockError.WRITE_ERROR, path + ": " + e, e);
        }
    }

    /**
     * Flushes and closes; blocks the caller for the fsync. Operations still queued fail CLOSED; the descriptor is
     * released once the last call in progress has returned.
     */
    @Override
    public void close() {
        if (!transitionToClosed()) {
            return;
        }
        if (!options.readOnly()) {
            int r = io.fdatasync();
            if (r < 0) {
                LOG.log(System.Logger.Level.WARNING, "LUN {0}: fsync of {1} on close failed: {2}", name(), path,
                        Errno.describe(-r));
            }
        }
        io.close();
    }

    /**
     * The buffer (writer index 0) a read of {@code length} bytes fills: pooled direct memory, or with an
     * {@code alignment} (O_DIRECT; {@link UringFileBlockDevice}) a {@link NativeByteBuf} aligned to it. Null when
     * {@code callback} has been answered already: an empty read (with the empty buffer), or no memory for the buffer
     * (Netty's direct memory limit or malloc: INSUFFICIENT_RESOURCES for this read only).
     */
    static ByteBuf readBuffer(String device, int length, int alignment, IoCallback<ByteBuf> callback) {
        if (length == 0) {
            callback.complete(Unpooled.EMPTY_BUFFER, null);
            return null;
        }
        try {
            return alignment == 0
                    ? PooledByteBufAllocator.DEFAULT.directBuffer(length, length)
                    : NativeByteBuf.aligned(alignment, length).writerIndex(0);
        } catch (OutOfMemoryError e) {
            callback.complete(null, new BlockIoException(BlockError.INSUFFICIENT_RESOURCES,
                    device + ": no memory for a read buffer", e));
            return null;
        }
    }

    /**
     * Runs {@code operation} on the executor unless the device is closed by then; otherwise (or when the executor
     * refuses) runs {@code drop}, which releases what the operation would have, and fails CLOSED.
     */
    private void submit(IoCallback<?> callback, Runnable operation, Runnable drop) {
        try {
            ioExecutor.execute(() -> {
                BlockIoException closed = checkOpen();
                if (closed != null) {
                    drop.run();
                    callback.complete(null, closed);
                } else {
                    operation.run();
                }
            });
        } catch (RejectedExecutionException e) {
            drop.run();
            callback.complete(null, BlockChecks.closed(name()));
        }
    }

    /** What {@code errno} from {@code call} makes of the operation ({@link Errno}: EIO is {@code ioError}). */
    private BlockIoException failure(String call, int errno, BlockError ioError) {
        return Errno.failure(Errno.Origin.SYSTEM_CALL, path, call, errno, ioError);
    }
}
