package io.blocktarget.bench;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * RAM disk read and write against the floor they cannot beat: one off-heap memcpy of the same size.
 *
 * <ul>
 *   <li>{@code memcpy}: MemorySegment.copy between two native segments.</li>
 *   <li>{@code write}: RamBlockDevice.write of a direct buffer into an allocated chunk (one copy plus
 *       checks, chunk lookup and reference counting).</li>
 *   <li>{@code read}: RamBlockDevice.read returning a slice (no copy: the transport hands it to the
 *       socket), released at once. Not comparable in bytes moved; it shows the per-read overhead.</li>
 *   <li>{@code readCopy}: read, then copy the slice into a native buffer, as a socket write would.</li>
 * </ul>
 * Every variant touches the same addresses each time (LBA 0, segment offset 0), so all run in cache alike.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "-Dio.netty.leakDetection.level=disabled"})
public class RamBlockBench {
    @Param({"4096", "131072"})
    int size;

    private RamBlockDevice device;
    private ByteBuf data;
    private Arena arena;
    private MemorySegment source;
    private MemorySegment destination;
    private ByteBuffer destinationView;
    private int blocks;
    private long bytesSeen;

    private final IoCallback<Void> written = (v, failure) -> {
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    };
    private final IoCallback<ByteBuf> released = (buf, failure) -> {
        bytesSeen += buf.readableBytes();
        buf.release();
    };
    private final IoCallback<ByteBuf> copied = (buf, failure) -> {
        destinationView.clear();
        buf.getBytes(buf.readerIndex(), destinationView);
        bytesSeen += buf.readableBytes();
        buf.release();
    };

    @Setup(Level.Trial)
    public void setUp() {
        device = new RamBlockDevice("bench", new BlockGeometry(4096, 4096, 1 << 18), false, new MemoryBudget(1L << 30));
        blocks = size / 4096;
        data = Unpooled.directBuffer(size, size);
        for (int i = 0; i < size; i++) {
            data.writeByte(i * 31);
        }
        device.write(0, data, false, written);   // allocate the chunks: measure steady state, not first touch
        arena = Arena.ofConfined();
        source = arena.allocate(size, 4096);
        destination = arena.allocate(size, 4096);
        source.fill((byte) 7);
        destinationView = destination.asByteBuffer();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        device.close();
        data.release();
        arena.close();
    }

    @Benchmark
    public MemorySegment memcpy() {
        MemorySegment.copy(source, 0, destination, 0, size);
        return destination;
    }

    @Benchmark
    public ByteBuf write() {
        device.write(0, data, false, written);
        return data;
    }

    @Benchmark
    public long read() {
        device.read(0, blocks, released);
        return bytesSeen;
    }

    @Benchmark
    public long readCopy() {
        device.read(0, blocks, copied);
        return bytesSeen;
    }
}
