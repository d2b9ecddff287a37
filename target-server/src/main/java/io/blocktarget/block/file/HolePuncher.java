package io.blocktarget.block.file;

import io.blocktarget.block.Libc;

import java.io.IOException;
import java.nio.file.Path;

/**
 * fallocate(PUNCH_HOLE | KEEP_SIZE) on the device file. FileChannel has no such call and does not
 * expose its descriptor, so this keeps a second write descriptor opened through libc. On a regular
 * file the hole reads back as zeros even where it does not cover whole file system blocks (the
 * kernel zeroes the partial blocks); on a block device the kernel discards or zeroes the range.
 */
final class HolePuncher implements AutoCloseable {
    private final int fd;

    private HolePuncher(int fd) {
        this.fd = fd;
    }

    static HolePuncher open(Path path) throws IOException {
        int fd = Libc.openForWrite(path.toString());
        if (fd < 0) {
            throw new IOException(path + ": cannot open a second descriptor for hole punching (errno " + -fd + ")");
        }
        return new HolePuncher(fd);
    }

    /** Returns 0, or the errno (EOPNOTSUPP when the file system cannot punch holes). */
    int punch(long offset, long length) {
        return Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
