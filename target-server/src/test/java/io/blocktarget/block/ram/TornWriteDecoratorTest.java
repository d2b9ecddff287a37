package io.blocktarget.block.ram;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a torn-write fault (the fault decorator of the instrument issue) must sit beside atomic writes: a decorator
 * that tears {@link BlockDevice#write} — applies the first half, then fails — and leaves
 * {@link BlockDevice#writeAtomic} to {@link ForwardingBlockDevice} tears plain writes and never atomic ones.
 */
class TornWriteDecoratorTest {
    /** A stand-in for the fault rule "torn write": half the blocks reach the medium, the command fails. */
    static final class TearingDevice extends ForwardingBlockDevice {
        TearingDevice(BlockDevice delegate) {
            super(delegate);
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            int half = data.readableBytes() / 2;
            delegate.write(lba, data.slice(data.readerIndex(), half), fua, (ok, failure) ->
                    callback.complete(null, new BlockIoException(BlockError.WRITE_ERROR, "torn write fault")));
        }
    }

    @Test
    void plainWritesTearAndAtomicWritesDoNot() throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 30);
        try (BlockDevice device = new TearingDevice(new RamBlockDevice("t", new BlockGeometry(4096, 4096, 64), false,
                budget))) {
            byte[] fresh = Io.pattern(7, 4 * 4096);
            ByteBuf buf = Unpooled.directBuffer(fresh.length).writeBytes(fresh);
            assertThat(Io.<Void>failureOf(cb -> device.write(14, buf, false, cb))).isEqualTo(BlockError.WRITE_ERROR);
            byte[] torn = Io.read(device, 14, 4);
            assertThat(java.util.Arrays.copyOf(torn, 2 * 4096)).isEqualTo(java.util.Arrays.copyOf(fresh, 2 * 4096));
            assertThat(java.util.Arrays.copyOfRange(torn, 2 * 4096, 4 * 4096)).isEqualTo(new byte[2 * 4096]);
            Io.<Void>await(cb -> device.writeAtomic(30, buf, false, cb));
            assertThat(Io.read(device, 30, 4)).isEqualTo(fresh);
            buf.release();
        }
        assertThat(budget.used()).isZero();
    }
}
