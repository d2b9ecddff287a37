package io.blocktarget.transport.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes whose Expected Data Transfer Length differs from the CDB's transfer length (RFC 7143 §11.4.5.1 residuals,
 * SAM-5 §5.4.3 Data-Out Buffer Size), through the transport and the real device server: GOOD, the whole blocks that
 * both allow are written, the rest of the range keeps its contents, and the residual says what was not transferred
 * — as reads do. The cases are the ones libiscsi's iSCSIResiduals tests send.
 */
class WriteResidualsTest {
    private static final int LBS = 512;

    private RamBlockDevice device;
    private Harness h;

    @AfterEach
    void tearDown() {
        h.close();
        device.close();
    }

    private void login(String... keys) {
        device = new RamBlockDevice("res", new BlockGeometry(LBS, 4096, 256), false, new MemoryBudget(1 << 20));
        ScsiTargetDevice target = ScsiTargetDevices.create(List.of(new LogicalUnitSpec(TARGET, 0, "res", device)))
                .get(TARGET);
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login(keys).release();
        // the new nexus's POWER ON unit attention, then clean
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        h.expect(ScsiResponse.class).release();
    }

    static byte[] cdb(int opcode, long lba, int blocks) {
        ByteBuffer b = ByteBuffer.allocate(opcode >= 0x80 && opcode < 0xA0 ? 16 : opcode >= 0xA0 ? 12 : 10);
        b.put((byte) opcode).put((byte) (opcode == 0x2E || opcode == 0x8E ? 0x02 : 0));
        switch (b.capacity()) {
            case 10 -> b.putInt((int) lba).put((byte) 0).putShort((short) blocks);
            case 12 -> b.putInt((int) lba).putInt(blocks);
            default -> b.putLong(lba).putInt(blocks);
        }
        return b.array();
    }

    private ScsiResponse write(int opcode, long lba, int blocks, byte[] data, boolean wBit) {
        h.send(h.command(cdb(opcode, lba, blocks), false, wBit, data.length, Unpooled.wrappedBuffer(data), true));
        return h.expect(ScsiResponse.class);
    }

    private byte[] read(long lba, int blocks) {
        h.send(h.command(Harness.read10(lba, blocks), true, false, (long) blocks * LBS, Unpooled.EMPTY_BUFFER, true));
        DataIn d = h.expect(DataIn.class);
        try {
            assertThat(d.status()).hasValue(0);
            byte[] out = new byte[d.data().readableBytes()];
            d.data().getBytes(d.data().readerIndex(), out);
            return out;
        } finally {
            d.release();
        }
    }

    private static void assertGood(ScsiResponse r, ResidualFlag flag, long residual) {
        try {
            assertThat(r.status()).as("status").isZero();
            assertThat(r.senseData().readableBytes()).as("sense").isZero();
            assertThat(r.residual()).isEqualTo(flag);
            assertThat(r.residualCount()).isEqualTo(residual);
        } finally {
            r.release();
        }
    }

    private static byte[] fill(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2A, 0xAA, 0x8A, 0x2E, 0x8E})
    void edtlZeroForAOneBlockWriteIsGoodWithOverflowAndWritesNothing(int opcode) {
        login();
        // libiscsi sends it without the W bit (no data direction) ...
        assertGood(write(opcode, 3, 1, new byte[0], false), ResidualFlag.OVERFLOW, LBS);
        // ... and with it; both move no data
        assertGood(write(opcode, 3, 1, new byte[0], true), ResidualFlag.OVERFLOW, LBS);
        assertThat(read(3, 1)).isEqualTo(new byte[LBS]);
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2A, 0xAA, 0x8A, 0x2E, 0x8E})
    void edtlLargerThanTheCdbIsGoodWithUnderflowAndWritesOnlyTheCdbsBlocks(int opcode) {
        login();
        assertGood(write(opcode, 10, 1, fill(10000, 0xA1), true), ResidualFlag.UNDERFLOW, 10000 - LBS);
        assertThat(read(10, 1)).isEqualTo(fill(LBS, 0xA1));
        assertGood(write(opcode, 20, 1, fill(2 * LBS, 0xA2), true), ResidualFlag.UNDERFLOW, LBS);
        assertThat(read(20, 2)).as("the block after the CDB's range").isEqualTo(
                concat(fill(LBS, 0xA2), new byte[LBS]));
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2A, 0xAA, 0x8A, 0x2E, 0x8E})
    void edtlShorterThanTheCdbIsGoodWithOverflowAndWritesTheWholeBlocksThatArrived(int opcode) {
        login();
        assertGood(write(opcode, 30, 2, fill(LBS, 0xB1), true), ResidualFlag.OVERFLOW, LBS);
        assertThat(read(30, 2)).as("first block written, second untouched")
                .isEqualTo(concat(fill(LBS, 0xB1), new byte[LBS]));
        // less than one block: transferred, but no whole block to write
        assertGood(write(opcode, 40, 1, fill(200, 0xB2), true), ResidualFlag.OVERFLOW, LBS - 200);
        assertThat(read(40, 1)).isEqualTo(new byte[LBS]);
        // a block and a half: the whole block only
        assertGood(write(opcode, 50, 4, fill(LBS + LBS / 2, 0xB3), true), ResidualFlag.OVERFLOW,
                4 * LBS - (LBS + LBS / 2));
        assertThat(read(50, 2)).isEqualTo(concat(fill(LBS, 0xB3), new byte[LBS]));
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2A, 0x8E})
    void residualsHoldForDataSolicitedByR2t(int opcode) {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(cdb(opcode, 60, 4), false, true, 2 * LBS, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        assertThat(r2t.desiredDataTransferLength()).as("the R2T asks for EDTL, not the CDB's length")
                .isEqualTo(2 * LBS);
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 0, 0, Unpooled.wrappedBuffer(fill(2 * LBS, 0xC1))));
        assertGood(h.expect(ScsiResponse.class), ResidualFlag.OVERFLOW, 2 * LBS);
        assertThat(read(60, 4)).isEqualTo(concat(fill(2 * LBS, 0xC1), new byte[2 * LBS]));
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2A})
    void exactLengthHasNoResidual(int opcode) {
        login();
        assertGood(write(opcode, 70, 2, fill(2 * LBS, 0xD1), true), ResidualFlag.NONE, 0);
        assertThat(read(70, 2)).isEqualTo(fill(2 * LBS, 0xD1));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
