package io.blocktarget.block.file;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The FFM binding itself: errors as -errno, heap buffers, and a close that waits for calls in progress. */
class LinuxFileIoTest {
    @TempDir
    Path dir;

    @Test
    void openReportsThePathAndTheError() {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> LinuxFileIo.open(missing, false, false))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(missing.toString()).hasMessageContaining("No such file or directory");
    }

    @Test
    void heapAndDirectBuffersRoundTripAndErrorsAreNegativeErrnos() throws Exception {
        Path file = Files.write(dir.resolve("f"), new byte[8192]);
        byte[] data = "blocktarget".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (LinuxFileIo io = LinuxFileIo.open(file, false, false)) {
            ByteBuf heap = Unpooled.wrappedBuffer(data);
            assertThat(io.write(heap, 0, data.length, 100, 0)).isEqualTo(data.length);
            ByteBuf into = Unpooled.directBuffer(data.length + 5);
            try {
                assertThat(io.read(into, 5, data.length, 100, 0)).isEqualTo(data.length);
                assertThat(ByteBufUtil.getBytes(into, 5, data.length)).isEqualTo(data);
            } finally {
                into.release();
            }
            assertThat(io.read(heap, 0, data.length, 8192, 0)).as("at end of file").isZero();
            assertThat(io.size()).isEqualTo(8192);
            assertThat(io.write(heap, 0, data.length, -2, 0)).as("-1 would mean the file position").isEqualTo(-FileIo.EINVAL);
            heap.release();
        }
        try (LinuxFileIo readOnly = LinuxFileIo.open(file, true, false)) {
            ByteBuf one = Unpooled.directBuffer(1).writeByte(1);
            assertThat(readOnly.write(one, 0, 1, 0, 0)).isEqualTo(-FileIo.EBADF);
            one.release();
        }
    }

    @Test
    void closeWaitsForTheLastCallInProgressSoTheNumberIsNeverReusedUnderIt() throws Exception {
        Path file = Files.write(dir.resolve("g"), new byte[4096]);
        LinuxFileIo io = LinuxFileIo.open(file, false, false);
        Path fdLink = Path.of("/proc/self/fd/" + io.fd());
        assertThat(io.acquire()).isTrue();                  // a call in progress
        io.close();
        ByteBuf buf = Unpooled.directBuffer(16);
        try {
            assertThat(io.read(buf, 0, 16, 0, 0)).as("no new calls once closed").isEqualTo(-FileIo.EBADF);
            assertThat(io.fdatasync()).isEqualTo(-FileIo.EBADF);
            assertThat(io.acquire()).isFalse();
            assertThat(Files.readSymbolicLink(fdLink)).as("still ours while the call runs").isEqualTo(file);
            io.release();                                   // the last call returns: now close(2)
            assertThat(Files.exists(fdLink, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && file.equals(Files.readSymbolicLink(fdLink))).isFalse();
            io.close();                                     // idempotent
        } finally {
            buf.release();
        }
    }
}
