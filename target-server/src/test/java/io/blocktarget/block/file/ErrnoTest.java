package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The one errno table of the file backends ({@link Errno}), pinned row by row, and held against the two mappings it
 * replaced (FileBlockDevice.classify and UringFileBlockDevice.classify as they were before the table), so that no
 * errno means something else now on either path.
 */
class ErrnoTest {
    private static final BlockError MEDIUM = null;   // the operation's own READ_ERROR / WRITE_ERROR

    /** errno, name, text, BlockError from a system call, from an io_uring completion: what the table must say. */
    static final List<Errno.Entry> EXPECTED = List.of(
            new Errno.Entry(1, "EPERM", "Operation not permitted", MEDIUM, MEDIUM),
            new Errno.Entry(4, "EINTR", "Interrupted system call", MEDIUM, MEDIUM),
            new Errno.Entry(5, "EIO", "Input/output error", MEDIUM, MEDIUM),
            new Errno.Entry(9, "EBADF", "Bad file descriptor", BlockError.CLOSED, BlockError.CLOSED),
            new Errno.Entry(11, "EAGAIN", "Resource temporarily unavailable", MEDIUM, MEDIUM),
            new Errno.Entry(12, "ENOMEM", "Cannot allocate memory", BlockError.INSUFFICIENT_RESOURCES,
                    BlockError.INSUFFICIENT_RESOURCES),
            new Errno.Entry(14, "EFAULT", "Bad address", MEDIUM, MEDIUM),
            new Errno.Entry(22, "EINVAL", "Invalid argument", MEDIUM, MEDIUM),
            new Errno.Entry(28, "ENOSPC", "No space left on device", BlockError.OUT_OF_SPACE, BlockError.OUT_OF_SPACE),
            new Errno.Entry(95, "EOPNOTSUPP", "Operation not supported", MEDIUM, MEDIUM),
            new Errno.Entry(122, "EDQUOT", "Disk quota exceeded", BlockError.OUT_OF_SPACE, BlockError.OUT_OF_SPACE),
            new Errno.Entry(125, "ECANCELED", "Operation canceled", MEDIUM, BlockError.CLOSED));

    /**
     * FileBlockDevice.classify before the table (commit 47b499c), verbatim but for the constants' class — and one
     * change made on purpose since: ENOMEM from a system call is a resource shortage as on the ring, no medium error.
     */
    private static BlockError fileBefore(int errno, BlockError ioError) {
        return switch (errno) {
            case 9 -> BlockError.CLOSED;
            case 12 -> BlockError.INSUFFICIENT_RESOURCES;
            case 28, 122 -> BlockError.OUT_OF_SPACE;
            default -> ioError;
        };
    }

    /** UringFileBlockDevice.classify before the table (commit 47b499c). */
    private static BlockError ringBefore(int errno, BlockError ioError) {
        return switch (errno) {
            case 28, 122 -> BlockError.OUT_OF_SPACE;
            case 12 -> BlockError.INSUFFICIENT_RESOURCES;
            case 9, 125 -> BlockError.CLOSED;
            default -> ioError;
        };
    }

    @Test
    void theTableIsExactlyThis() {
        assertThat(Errno.entries()).containsExactlyElementsOf(EXPECTED);
        assertThat(List.of(Errno.EPERM, Errno.EINTR, Errno.EIO, Errno.EBADF, Errno.EAGAIN, Errno.ENOMEM, Errno.EFAULT,
                Errno.EINVAL, Errno.ENOSPC, Errno.EOPNOTSUPP, Errno.EDQUOT, Errno.ECANCELED))
                .as("the constants are the table's numbers")
                .containsExactlyElementsOf(EXPECTED.stream().map(Errno.Entry::number).toList());
    }

    @Test
    void everyRowClassifiesAndDescribesAsItSays() {
        Path file = Path.of("/srv/lun.img");
        for (Errno.Entry e : EXPECTED) {
            for (BlockError io : new BlockError[] {BlockError.READ_ERROR, BlockError.WRITE_ERROR}) {
                BlockError call = e.systemCall() == null ? io : e.systemCall();
                BlockError ring = e.ioUring() == null ? io : e.ioUring();
                assertThat(Errno.classify(Errno.Origin.SYSTEM_CALL, e.number(), io)).as("%s %s", e.name(), io)
                        .isEqualTo(call);
                assertThat(Errno.classify(Errno.Origin.IO_URING, e.number(), io)).as("%s %s ring", e.name(), io)
                        .isEqualTo(ring);
                BlockIoException f = Errno.failure(Errno.Origin.SYSTEM_CALL, file, "read", e.number(), io);
                assertThat(f.error()).isEqualTo(call);
                assertThat(f).hasMessage("/srv/lun.img: read failed: " + e.text() + " (" + e.name() + ", errno "
                        + e.number() + ")");
                BlockIoException r = Errno.failure(Errno.Origin.IO_URING, file, "fdatasync", e.number(), io);
                assertThat(r.error()).isEqualTo(ring);
                assertThat(r).hasMessage("/srv/lun.img: io_uring fdatasync failed: " + e.text() + " (" + e.name()
                        + ", errno " + e.number() + ")");
            }
            assertThat(Errno.name(e.number())).isEqualTo(e.name());
        }
    }

    @Test
    void noErrnoMapsOtherwiseThanBeforeTheTableOnEitherPath() {
        for (int errno = -1; errno <= 200; errno++) {
            for (BlockError io : new BlockError[] {BlockError.READ_ERROR, BlockError.WRITE_ERROR}) {
                assertThat(Errno.classify(Errno.Origin.SYSTEM_CALL, errno, io)).as("errno %d, %s", errno, io)
                        .isEqualTo(fileBefore(errno, io));
                assertThat(Errno.classify(Errno.Origin.IO_URING, errno, io)).as("errno %d, %s, ring", errno, io)
                        .isEqualTo(ringBefore(errno, io));
            }
        }
    }

    @Test
    void anErrnoOutsideTheTableIsAMediumErrorNamedByTheCLibrary() {
        int enodata = 61;
        assertThat(Errno.name(enodata)).isNull();
        assertThat(Errno.classify(Errno.Origin.IO_URING, enodata, BlockError.READ_ERROR)).isEqualTo(BlockError.READ_ERROR);
        assertThat(Errno.describe(enodata)).isEqualTo(LinuxFileIo.strerror(enodata) + " (errno 61)");
        assertThat(Errno.describe(0)).endsWith(" (errno 0)");
        assertThat(Errno.describe(100_000)).endsWith(" (errno 100000)");
    }

    @Test
    void theTextsAreTheCLibrarys() {
        assumeTrue(LinuxFileIo.strerror(Errno.ENOSPC).equals("No space left on device"), "not glibc's texts");
        for (Errno.Entry e : EXPECTED) {
            assertThat(LinuxFileIo.strerror(e.number())).as(e.name()).isEqualTo(e.text());
        }
    }

    @Test
    void onlyEopnotsuppAndEinvalSayAFlagWasRefused() {
        for (int errno = 0; errno <= 200; errno++) {
            assertThat(Errno.flagRefused(-errno)).as("errno %d", errno)
                    .isEqualTo(errno == Errno.EOPNOTSUPP || errno == Errno.EINVAL);
        }
        assertThat(Errno.flagRefused(4096)).isFalse();
    }
}
