package io.blocktarget.block.file;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The whole block device contract with O_DIRECT through {@link UringFileBlockDevice}'s ring path: every call is
 * made on an io_uring event loop (two loops, alternating, as two connections would), as the transports make them.
 */
class UringContractTest extends FileDirectContractTest {
    private static MultiThreadIoEventLoopGroup group;

    @BeforeAll
    static void loops() {
        assumeTrue(UringFileBlockDevice.unavailability().isEmpty(), "io_uring unavailable here");
        group = new MultiThreadIoEventLoopGroup(2, IoUringIoHandler.newFactory());
    }

    @AfterAll
    static void stop() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Override
    protected BlockDevice create(BlockGeometry geometry, boolean readOnly) throws Exception {
        FileBlockDevice file = (FileBlockDevice) super.create(geometry, readOnly);
        return new OnLoop(UringFileBlockDevice.over(file, true));
    }

    /** Makes each operation on the next event loop of the group. */
    private static final class OnLoop extends ForwardingBlockDevice {
        OnLoop(BlockDevice delegate) {
            super(delegate);
        }

        private static EventLoop loop() {
            return group.next();
        }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            loop().execute(() -> delegate.read(lba, blockCount, callback));
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            loop().execute(() -> delegate.write(lba, data, fua, callback));
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            loop().execute(() -> delegate.flush(callback));
        }

        @Override
        public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
            loop().execute(() -> delegate.unmap(ranges, callback));
        }

        @Override
        public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
            loop().execute(() -> delegate.writeZeroes(lba, blockCount, callback));
        }
    }
}
