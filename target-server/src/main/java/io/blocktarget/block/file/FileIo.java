package io.blocktarget.block.file;

import io.netty.buffer.ByteBuf;

/**
 * The system calls a file backend makes on one open descriptor. Every method returns its result or {@code -errno}
 * (the numbers, and what each means for a block operation: {@link Errno}) and never throws for an I/O outcome, so
 * callers on an event loop branch on values, not exceptions. Once {@link #close()} has run, calls return
 * {@code -EBADF}; the descriptor number itself is released only after the last call in progress has returned, so a
 * descriptor the kernel hands out again can never receive our I/O.
 *
 * <p>{@link LinuxFileIo} is the real binding; tests wrap it to count calls or to inject EAGAIN, short transfers and
 * errors (the seam that lets the fallback paths be tested without a cold disk).
 */
public interface FileIo extends AutoCloseable {
    /** preadv2(2) flags, linux/fs.h. */
    int RWF_DSYNC = 0x02;
    int RWF_NOWAIT = 0x08;

    /**
     * preadv2 of {@code length} bytes at file {@code offset} into {@code into}'s memory at {@code index} (indices
     * unchanged): the bytes read (fewer at end of file or, with RWF_NOWAIT, where the page cache ran out), or -errno.
     */
    long read(ByteBuf into, int index, int length, long offset, int flags);

    /** pwritev2 of {@code from}'s bytes {@code [index, index + length)} at {@code offset}: bytes written or -errno. */
    long write(ByteBuf from, int index, int length, long offset, int flags);

    /** fdatasync(2): 0 or -errno. */
    int fdatasync();

    /** fallocate(2): 0 or -errno. */
    int fallocate(int mode, long offset, long length);

    /** posix_fadvise(2): 0 or -errno. */
    int fadvise(long offset, long length, int advice);

    /** The size in bytes (lseek to the end: also right for block devices), or -errno. */
    long size();

    /** statfs f_type of the file system holding the file (TMPFS_MAGIC ...), or -errno. */
    long fileSystemType();

    /** Marks the descriptor closed; the close(2) happens when no call is in progress any more. Idempotent. */
    @Override
    void close();
}
