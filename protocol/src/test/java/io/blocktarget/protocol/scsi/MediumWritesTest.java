package io.blocktarget.protocol.scsi;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link MediumWrites}: the SBC-4 / ZBC-2 / SPC-5 commands that write the medium, and none that do not. */
class MediumWritesTest {

    private static boolean writes(int... bytes) {
        byte[] b = new byte[Math.max(16, bytes.length)];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return MediumWrites.writesMedium(Unpooled.wrappedBuffer(b));
    }

    @Test
    void everyWriteTypeCommand() {
        for (int op : new int[] {0x04, 0x0A, 0x2A, 0xAA, 0x8A, 0x2E, 0xAE, 0x8E, 0x3F, 0x41, 0x93, 0x42, 0x48, 0x53,
                0x89, 0x8B, 0x94, 0x9A, 0x9C}) {
            assertThat(writes(op)).as("%02x", op).isTrue();
        }
        assertThat(writes(0x9F, 0x11)).as("WRITE LONG(16)").isTrue();
        assertThat(writes(0x9F, 0x12)).as("WRITE SCATTERED(16)").isTrue();
        assertThat(writes(0x83, 0x11)).as("WRITE USING TOKEN").isTrue();
        for (int sa = 0x0B; sa <= 0x11; sa++) {   // WRITE ... WRITE SCATTERED (32)
            assertThat(writes(0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0, sa)).as("7Fh/%04x", sa).isTrue();
        }
    }

    @Test
    void readsAndControlCommandsAreNot() {
        for (int op : new int[] {0x00, 0x03, 0x08, 0x12, 0x15, 0x1A, 0x1B, 0x25, 0x28, 0x2F, 0x34, 0x35, 0x55, 0x5A,
                0x5E, 0x5F, 0x88, 0x8F, 0x90, 0x91, 0x95, 0xA0, 0xA3, 0xA8, 0xAF, 0x1E}) {
            assertThat(writes(op)).as("%02x", op).isFalse();
        }
        assertThat(writes(0x83, 0x00)).as("EXTENDED COPY: writes other units, checked by the copy manager").isFalse();
        assertThat(writes(0x83, 0x10)).as("POPULATE TOKEN").isFalse();
        assertThat(writes(0x9F, 0x00)).isFalse();
        assertThat(writes(0x9E, 0x10)).as("READ CAPACITY(16)").isFalse();
        assertThat(writes(0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0, 0x09)).as("READ(32)").isFalse();
        assertThat(writes(0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0, 0x0A)).as("VERIFY(32)").isFalse();
        assertThat(MediumWrites.writesMedium(Unpooled.EMPTY_BUFFER)).isFalse();
        assertThat(MediumWrites.writesMedium(Unpooled.wrappedBuffer(new byte[] {0x7F}))).isFalse();
    }
}
