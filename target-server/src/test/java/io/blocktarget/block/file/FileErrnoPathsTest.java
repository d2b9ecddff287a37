package io.blocktarget.block.file;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every errno of the table, injected where {@link FileBlockDevice} meets it — the inline RWF_NOWAIT call on the
 * caller's thread, the call on an I/O thread after the inline one handed on, a FUA write, a flush, an unmap — fails
 * the operation with the BlockError and the message the table gives (ErrnoTest pins the table against the mapping
 * before it), on the thread that path runs on.
 */
class FileErrnoPathsTest {
    private static final int LBS = 4096;
    private static final BlockGeometry GEOMETRY = new BlockGeometry(LBS, LBS, 64);

    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newFixedThreadPool(2, r -> new Thread(r, "file-io"));
    private FileBlockDevice device;

    @AfterEach
    void close() {
        if (device != null) {
            device.close();
        }
        io.shutdownNow();
    }

    /** A failed operation: its failure and the thread its callback ran on. */
    private record Failed(BlockIoException failure, String thread) {
    }

    /** Runs {@code operation}, which must fail, and waits for its one completion. */
    private static <T> Failed fail(Consumer<IoCallback<T>> operation) throws Exception {
        CompletableFuture<Failed> done = new CompletableFuture<>();
        operation.accept((result, failure) -> {
            if (result instanceof ByteBuf buf) {
                buf.release();
            }
            if (!done.complete(new Failed(failure, Thread.currentThread().getName()))) {
                throw new AssertionError("completed twice");
            }
        });
        Failed failed = done.get(30, TimeUnit.SECONDS);
        assertThat(failed.failure()).as("the operation failed").isNotNull();
        return failed;
    }

    private static String message(Path file, String call, Errno.Entry e) {
        return file + ": " + call + " failed: " + e.text() + " (" + e.name() + ", errno " + e.number() + ")";
    }

    /** Answers every read / write with RWF_NOWAIT by {@code nowait}, every other with {@code blocking}. */
    private static ScriptedFileIo.Hook answer(long nowait, long blocking) {
        return (real, buf, index, length, offset, flags) -> (flags & FileIo.RWF_NOWAIT) != 0 ? nowait : blocking;
    }

    @Test
    void everyErrnoFailsEveryPathWithTheTablesErrorAndMessage() throws Exception {
        AtomicReference<ScriptedFileIo> seam = new AtomicReference<>();
        Path file = dir.resolve("errno.img");
        device = FileBlockDevice.open("errno", file, GEOMETRY, new FileBlockDevice.Options(true, false, false), io,
                real -> {
                    ScriptedFileIo s = new ScriptedFileIo(real);
                    s.readHook = ScriptedFileIo.nowaitReadsSucceed();    // both directions inline, whatever the
                    s.writeHook = ScriptedFileIo.nowaitWritesSucceed();  // test directory's file system does
                    seam.set(s);
                    return s;
                });
        assertThat(device.readPath()).isEqualTo(FileBlockDevice.IoPath.INLINE_NOWAIT);
        assertThat(device.writePath()).isEqualTo(FileBlockDevice.IoPath.INLINE_NOWAIT);
        ScriptedFileIo s = seam.get();
        String caller = Thread.currentThread().getName();
        ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(LBS).writeBytes(Io.pattern(1, LBS));
        try {
            for (Errno.Entry e : ErrnoTest.EXPECTED) {
                long errno = -e.number();
                BlockError read = e.systemCall() != null ? e.systemCall() : BlockError.READ_ERROR;
                BlockError write = e.systemCall() != null ? e.systemCall() : BlockError.WRITE_ERROR;
                // EAGAIN, EOPNOTSUPP and EINVAL from an RWF_NOWAIT call hand the I/O on instead of failing it
                boolean handsOn = e.number() == Errno.EAGAIN || Errno.flagRefused(errno);

                s.readHook = answer(errno, errno);
                Failed f = fail((IoCallback<ByteBuf> cb) -> device.read(0, 1, cb));
                assertThat(f.failure().error()).as("read %s", e.name()).isEqualTo(read);
                assertThat(f.failure()).hasMessage(message(file, "read", e));
                assertThat(f.thread()).as("read %s", e.name()).isEqualTo(handsOn ? "file-io" : caller);

                s.readHook = answer(-Errno.EAGAIN, errno);
                f = fail((IoCallback<ByteBuf> cb) -> device.read(0, 1, cb));
                assertThat(f.failure().error()).as("read on the I/O thread %s", e.name()).isEqualTo(read);
                assertThat(f.failure()).hasMessage(message(file, "read", e));
                assertThat(f.thread()).isEqualTo("file-io");

                s.writeHook = answer(errno, errno);
                f = fail((IoCallback<Void> cb) -> device.write(0, block, false, cb));
                assertThat(f.failure().error()).as("write %s", e.name()).isEqualTo(write);
                assertThat(f.failure()).hasMessage(message(file, "write", e));
                assertThat(f.thread()).as("write %s", e.name()).isEqualTo(handsOn ? "file-io" : caller);

                s.writeHook = answer(-Errno.EAGAIN, errno);
                f = fail((IoCallback<Void> cb) -> device.write(0, block, false, cb));
                assertThat(f.failure().error()).as("write on the I/O thread %s", e.name()).isEqualTo(write);
                assertThat(f.failure()).hasMessage(message(file, "write", e));
                assertThat(f.thread()).isEqualTo("file-io");

                // FUA: RWF_DSYNC on the I/O thread (refused: the plain write, failing alike)
                f = fail((IoCallback<Void> cb) -> device.write(0, block, true, cb));
                assertThat(f.failure().error()).as("FUA write %s", e.name()).isEqualTo(write);
                assertThat(f.failure()).hasMessage(message(file, "write", e));
                assertThat(f.thread()).isEqualTo("file-io");
                s.writeHook = ScriptedFileIo.nowaitWritesSucceed();
                s.readHook = ScriptedFileIo.nowaitReadsSucceed();

                s.syncResult = (int) errno;
                f = fail((IoCallback<Void> cb) -> device.flush(cb));
                assertThat(f.failure().error()).as("flush %s", e.name()).isEqualTo(write);
                assertThat(f.failure()).hasMessage(message(file, "fdatasync", e));
                s.syncResult = 0;

                s.fallocateResult = (int) errno;
                if (e.number() == Errno.EOPNOTSUPP) {   // no holes on this file system: zeros are written instead
                    Io.unmap(device, 0, 1);
                    assertThat(Io.read(device, 0, 1)).isEqualTo(new byte[LBS]);
                } else {
                    f = fail((IoCallback<Void> cb) -> device.unmap(List.of(new BlockRange(0, 1)), cb));
                    assertThat(f.failure().error()).as("unmap %s", e.name()).isEqualTo(write);
                    assertThat(f.failure()).hasMessage(message(file, "fallocate(PUNCH_HOLE)", e));
                }
                s.fallocateResult = 0;
            }
        } finally {
            block.release();
        }
    }
}
