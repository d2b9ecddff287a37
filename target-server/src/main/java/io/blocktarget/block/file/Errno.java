package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The errnos the file backends meet, in one table: each one's name, its text, and the {@link BlockError} it makes of
 * a failed operation, for the places an errno comes from — the inline preadv2 / pwritev2 on the event loop and the
 * calls on the I/O threads ({@link FileBlockDevice}: {@link Origin#SYSTEM_CALL}) and the completions of
 * {@link UringFileBlockDevice}'s ring ({@link Origin#IO_URING}) — so that a full file system reads the same in a log
 * line and gives the same SCSI sense / NVMe status whichever path met it.
 *
 * <p>Numbers from asm-generic/errno-base.h and errno.h (x86-64 and arm64 alike); texts as glibc's strerror(3) has
 * them, so no native call builds a message. An errno not in the table is the operation's medium error, its text
 * from the C library.
 */
final class Errno {
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EFAULT = 14;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EOPNOTSUPP = 95;
    static final int EDQUOT = 122;
    static final int ECANCELED = 125;

    /** Where an errno came from: the table has a column of errors for each. */
    enum Origin {
        /** A system call of {@link FileIo}, inline on the event loop or on an I/O thread. */
        SYSTEM_CALL(""),
        /** The {@code res} of an io_uring completion. */
        IO_URING("io_uring ");

        private final String prefix;

        Origin(String prefix) {
            this.prefix = prefix;
        }
    }

    /**
     * One errno. {@code systemCall} and {@code ioUring} are what it makes of a failed operation from that origin;
     * null means the operation's own medium error (READ_ERROR for a read; WRITE_ERROR for a write, flush or unmap).
     * The two columns differ only where the ring has its own meaning: ECANCELED only comes from a ring (a loop shutting
     * down). ENOMEM is a resource shortage on both (the kernel could not allocate, the medium is fine): the host
     * retries a BUSY / retryable status, where a medium error would make it fail the I/O.
     */
    record Entry(int number, String name, String text, BlockError systemCall, BlockError ioUring) {
        BlockError error(Origin origin) {
            return origin == Origin.SYSTEM_CALL ? systemCall : ioUring;
        }
    }

    private static final BlockError CLOSED = BlockError.CLOSED;
    private static final BlockError FULL = BlockError.OUT_OF_SPACE;
    private static final BlockError BUSY = BlockError.INSUFFICIENT_RESOURCES;

    private static final List<Entry> ENTRIES = List.of(
            //        errno       name          text (glibc strerror)               system call   io_uring
            new Entry(EPERM,      "EPERM",      "Operation not permitted",          null,         null),
            new Entry(EINTR,      "EINTR",      "Interrupted system call",          null,         null),
            new Entry(EIO,        "EIO",        "Input/output error",               null,         null),
            new Entry(EBADF,      "EBADF",      "Bad file descriptor",              CLOSED,       CLOSED),
            new Entry(EAGAIN,     "EAGAIN",     "Resource temporarily unavailable", null,         null),
            new Entry(ENOMEM,     "ENOMEM",     "Cannot allocate memory",           BUSY,         BUSY),
            new Entry(EFAULT,     "EFAULT",     "Bad address",                      null,         null),
            new Entry(EINVAL,     "EINVAL",     "Invalid argument",                 null,         null),
            new Entry(ENOSPC,     "ENOSPC",     "No space left on device",          FULL,         FULL),
            new Entry(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported",          null,         null),
            new Entry(EDQUOT,     "EDQUOT",     "Disk quota exceeded",              FULL,         FULL),
            new Entry(ECANCELED,  "ECANCELED",  "Operation canceled",               null,         CLOSED));

    /** The entries by number: a lookup on a failure path is an array index. */
    private static final Entry[] BY_NUMBER = byNumber();

    private Errno() {
    }

    private static Entry[] byNumber() {
        Entry[] table = new Entry[ENTRIES.stream().mapToInt(Entry::number).max().orElseThrow() + 1];
        for (Entry e : ENTRIES) {
            if (table[e.number()] != null) {
                throw new ExceptionInInitializerError("errno " + e.number() + " twice");
            }
            table[e.number()] = e;
        }
        return table;
    }

    /** Every row, for tests. */
    static List<Entry> entries() {
        return ENTRIES;
    }

    private static Entry entry(int errno) {
        return errno > 0 && errno < BY_NUMBER.length ? BY_NUMBER[errno] : null;
    }

    /** The symbolic name (EIO), or null for an errno not in the table. */
    static String name(int errno) {
        Entry e = entry(errno);
        return e == null ? null : e.name();
    }

    /** For messages: "Input/output error (EIO, errno 5)"; outside the table the C library's text and the number. */
    static String describe(int errno) {
        Entry e = entry(errno);
        return e == null
                ? LinuxFileIo.strerror(errno) + " (errno " + errno + ")"
                : e.text() + " (" + e.name() + ", errno " + errno + ")";
    }

    /**
     * What {@code errno} from {@code origin} makes of a failed operation whose medium error is {@code ioError}: CLOSED
     * for a descriptor (or ring) that went away, OUT_OF_SPACE for a full file system or quota, INSUFFICIENT_RESOURCES
     * where the kernel had no memory for a ring operation, else {@code ioError} (EIO and the rest).
     */
    static BlockError classify(Origin origin, int errno, BlockError ioError) {
        Objects.requireNonNull(ioError, "ioError");
        Entry e = entry(errno);
        BlockError error = e == null ? null : e.error(origin);
        return error != null ? error : ioError;
    }

    /** The failure of {@code call} on {@code path}: "path: [io_uring ]call failed: text (NAME, errno N)". */
    static BlockIoException failure(Origin origin, Path path, String call, int errno, BlockError ioError) {
        return new BlockIoException(classify(origin, errno, ioError),
                path + ": " + origin.prefix + call + " failed: " + describe(errno));
    }

    /**
     * True when a preadv2 / pwritev2 result says the kernel refused a per-call flag (RWF_NOWAIT, RWF_DSYNC) rather
     * than failed the I/O: EOPNOTSUPP, or EINVAL from kernels that check the flags that way.
     */
    static boolean flagRefused(long result) {
        return result == -EOPNOTSUPP || result == -EINVAL;
    }
}
