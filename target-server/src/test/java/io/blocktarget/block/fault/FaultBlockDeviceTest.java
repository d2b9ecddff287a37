package io.blocktarget.block.fault;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The device-level fault actions: one flipped bit in a copy (the medium keeps its data), a torn write's prefix. */
class FaultBlockDeviceTest {
    private static final int LBS = 4096;
    private final LunFaults faults = new LunFaults(new ManualClock());
    private final BlockDevice ram = new RamBlockDevice("f", new BlockGeometry(LBS, LBS, 64), false,
            new MemoryBudget(1 << 24));
    private final BlockDevice device = FaultBlockDevice.wrap(ram, faults);

    @AfterEach
    void close() {
        device.close();
    }

    private byte[] read(BlockDevice d, long lba, int blocks) {
        AtomicReference<byte[]> out = new AtomicReference<>();
        d.read(lba, blocks, (buf, failure) -> {
            assertThat(failure).isNull();
            out.set(ByteBufUtil.getBytes(buf));
            buf.release();
        });
        return out.get();
    }

    private BlockIoException write(long lba, byte[] data) {
        AtomicReference<BlockIoException> out = new AtomicReference<>();
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        boolean[] called = {false};
        device.write(lba, buf, false, (ok, failure) -> {
            called[0] = true;
            out.set(failure);
        });
        assertThat(called[0]).isTrue();
        buf.release();
        return out.get();
    }

    private static byte[] pattern(int seed, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void wrapsOncePerRuleSet() {
        assertThat(FaultBlockDevice.wrap(device, faults)).isSameAs(device);
        assertThat(FaultBlockDevice.wrap(device, new LunFaults(new ManualClock()))).isNotSameAs(device);
    }

    @Test
    void corruptReadFlipsOneBitInTheFirstBlockOfTheRangeAndLeavesTheMediumAlone() {
        byte[] data = pattern(1, 8 * LBS);
        assertThat(write(0, data)).isNull();
        faults.add(new FaultRule("c", FaultMatch.ANY.withLbas(3, 5), new FaultTrigger.Always(),
                new FaultAction.CorruptRead()));
        byte[] got = read(device, 0, 8);
        int differing = 0;
        int at = -1;
        for (int i = 0; i < got.length; i++) {
            int x = (got[i] ^ data[i]) & 0xFF;
            if (x != 0) {
                differing += Integer.bitCount(x);
                at = i;
            }
        }
        assertThat(differing).as("bits flipped").isEqualTo(1);
        assertThat(at).isEqualTo(3 * LBS + LBS / 2);
        assertThat(read(ram, 0, 8)).as("the medium").isEqualTo(data);
        assertThat(read(device, 6, 2)).as("outside the range").isEqualTo(Arrays.copyOfRange(data, 6 * LBS, 8 * LBS));
    }

    @Test
    void tornWritePersistsHalfByDefaultThenFails() {
        byte[] old = pattern(2, 4 * LBS);
        assertThat(write(10, old)).isNull();
        faults.add(new FaultRule("t", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.WRITE)), new FaultTrigger.FirstN(1),
                new FaultAction.TornWrite(0)));
        byte[] neu = pattern(3, 4 * LBS);
        BlockIoException failure = write(10, neu);
        assertThat(failure).isNotNull();
        assertThat(failure.error()).isEqualTo(BlockError.WRITE_ERROR);
        byte[] now = read(ram, 10, 4);
        assertThat(Arrays.copyOfRange(now, 0, 2 * LBS)).isEqualTo(Arrays.copyOfRange(neu, 0, 2 * LBS));
        assertThat(Arrays.copyOfRange(now, 2 * LBS, 4 * LBS)).isEqualTo(Arrays.copyOfRange(old, 2 * LBS, 4 * LBS));
        assertThat(write(10, neu)).as("first 1 only").isNull();
        assertThat(read(ram, 10, 4)).isEqualTo(neu);
    }

    @Test
    void tornWriteKeepsAtLeastTheLastBlockOutAndASingleBlockWriteWritesNothing() {
        byte[] old = pattern(4, 3 * LBS);
        assertThat(write(0, old)).isNull();
        faults.add(new FaultRule("t", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.TornWrite(99)));
        byte[] neu = pattern(5, 3 * LBS);
        assertThat(write(0, neu)).isNotNull();
        byte[] now = read(ram, 0, 3);
        assertThat(Arrays.copyOfRange(now, 0, 2 * LBS)).isEqualTo(Arrays.copyOfRange(neu, 0, 2 * LBS));
        assertThat(Arrays.copyOfRange(now, 2 * LBS, 3 * LBS)).isEqualTo(Arrays.copyOfRange(old, 2 * LBS, 3 * LBS));
        assertThat(write(0, Arrays.copyOf(neu, LBS))).isNotNull();
        assertThat(read(ram, 0, 1)).isEqualTo(Arrays.copyOf(now, LBS));
    }
}
