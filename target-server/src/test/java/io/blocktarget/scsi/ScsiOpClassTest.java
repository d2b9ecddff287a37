package io.blocktarget.scsi;

import io.blocktarget.block.lun.CommandStats.OpClass;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The opcode class each SCSI command is counted in (SBC-4 §5), WRITE SAME by its UNMAP bit. */
class ScsiOpClassTest {

    private static OpClass of(int... cdb) {
        byte[] bytes = new byte[cdb.length];
        for (int i = 0; i < cdb.length; i++) {
            bytes[i] = (byte) cdb[i];
        }
        return ScsiTarget.opClass(Unpooled.wrappedBuffer(bytes));
    }

    @Test
    void readsWritesFlushesAndUnmaps() {
        for (int read : new int[] {0x08, 0x28, 0xA8, 0x88}) {
            assertThat(of(read, 0)).as("%02Xh", read).isEqualTo(OpClass.READ);
        }
        for (int write : new int[] {0x0A, 0x2A, 0xAA, 0x8A, 0x2E, 0xAE, 0x8E, 0x9C}) {
            assertThat(of(write, 0)).as("%02Xh", write).isEqualTo(OpClass.WRITE);
        }
        assertThat(of(0x35, 0)).isEqualTo(OpClass.FLUSH);
        assertThat(of(0x91, 0)).isEqualTo(OpClass.FLUSH);
        assertThat(of(0x42, 0)).isEqualTo(OpClass.UNMAP);
    }

    @Test
    void writeSameIsUnmapOnlyWithItsUnmapBit() {
        assertThat(of(0x41, 0x08)).isEqualTo(OpClass.UNMAP);
        assertThat(of(0x93, 0x08)).isEqualTo(OpClass.UNMAP);
        assertThat(of(0x93, 0x00)).isEqualTo(OpClass.OTHER);
        assertThat(of(0x41, 0xF7)).isEqualTo(OpClass.OTHER);   // every bit but UNMAP
        assertThat(of(0x93)).isEqualTo(OpClass.OTHER);          // no byte 1: no UNMAP bit
    }

    @Test
    void everythingElseIsOther() {
        for (int other : new int[] {0x00, 0x12, 0x25, 0x2F, 0x89, 0x8B, 0x9E, 0xA0, 0x83, 0x94, 0x95, 0x5E, 0x5F}) {
            assertThat(of(other, 0)).as("%02Xh", other).isEqualTo(OpClass.OTHER);
        }
        assertThat(ScsiTarget.opClass(Unpooled.EMPTY_BUFFER)).isEqualTo(OpClass.OTHER);
    }

    @Test
    void theCdbIsReadFromItsReaderIndexAndNotConsumed() {
        ByteBuf cdb = Unpooled.wrappedBuffer(new byte[] {0x00, 0x28, 0});
        cdb.readerIndex(1);
        assertThat(ScsiTarget.opClass(cdb)).isEqualTo(OpClass.READ);
        assertThat(cdb.readerIndex()).isEqualTo(1);
    }
}
