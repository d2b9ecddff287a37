package io.blocktarget.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.ByteToMessageDecoder.Cumulator;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Netty settings both TCP transports (iSCSI, NVMe/TCP) apply to an accepted socket (allocator, socket read size,
 * write-buffer water marks, cumulation, flush consolidation), chosen from profiles of
 * 128 KiB writes (bench/README.md, "Profile"): before them, half of the event loop's Java time went to copying
 * received data into the decoder's cumulation buffer, growing it, and zeroing fresh direct memory for it.
 */
public final class StreamTuning {
    /** Pending bytes above which received buffers are chained instead of copied together. */
    static final int COMPOSE_ABOVE = 16 * 1024;

    /**
     * Small frames (commands, responses, 4 KiB data) are merged into one contiguous buffer as Netty's
     * {@code MERGE_CUMULATOR} does, so header fields never straddle buffers; once more than
     * {@link #COMPOSE_ABOVE} bytes wait — a large data segment arriving in several socket reads — the reads are
     * chained in a composite and the data segment reaches the block layer as slices of the very buffers the
     * socket filled: one copy (into the backend) instead of two.
     */
    public static final Cumulator CUMULATOR = StreamTuning::cumulate;

    /**
     * Outbound bytes at which a channel turns unwritable (high) and writable again (low): a few large reads in flight.
     * NVMe/TCP pauses reading while unwritable (its backpressure). Netty's default, 32 / 64 KiB, is less than 32
     * queued 4 KiB reads: iSCSI's channels flipped writability every few flushes, and each flip ran an event through
     * the pipeline and Vert.x's socket (perf, 4 KiB randread QD32: fireChannelWritabilityChanged 1.4 % of the core).
     */
    public static final WriteBufferWaterMark WRITE_BUFFER = new WriteBufferWaterMark(1 << 20, 4 << 20);

    /**
     * Socket reads of up to 256 KiB (Netty's adaptive default stops at 64 KiB): a host's burst of 32 in-capsule
     * 4 KiB writes (133 KB) or a 128 KiB write's data then takes one recvfrom instead of three (strace, issue 17:
     * 0.094 recvfrom per 4 KiB write at QD32, 2.1 per 128 KiB write); small PDUs still get small buffers.
     */
    public static final AdaptiveRecvByteBufAllocator RECEIVE_BUFFER = new AdaptiveRecvByteBufAllocator(64, 2048,
            256 * 1024);

    /**
     * iSCSI's socket receive buffer (SO_RCVBUF; the kernel doubles it, capped by {@code net.core.rmem_max}), the size
     * SPDK sets on its sockets (DEFAULT_SO_RCVBUF_SIZE): fixed from the start instead of autotuned up from tcp_rmem's
     * default (128 KiB). The large reads gained most, although for a read the target only receives commands; why is
     * not proven (the kernel's window updates and ACKs are a likely part). {@code bench/spdk-ab}, iSCSI, blocktarget
     * / SPDK over three rounds, session 17 (docs/performance.md): 64 KiB-block randread QD32 0.69 and 0.89
     * autotuned, 1.21 with this buffer (0.84 and 1.03 with the send buffer fixed too); 128 KiB read QD8 0.59 and
     * 0.64 autotuned, 0.80 (0.90, 0.81). The send buffer is left to the kernel: on loopback it starts at tcp_wmem's
     * maximum. Not applied to NVMe/TCP, where both buffers fixed took {@code spdk_nvme_perf}'s 128 KiB reads from
     * 36–40k to 16–40k IOPS (the receive buffer alone was not tried there).
     */
    public static final int ISCSI_RECEIVE_BUFFER = 2 << 20;

    private StreamTuning() {
    }

    /** Fixes the socket's receive buffer at {@code bytes} (before the kernel doubles it): no autotuning. */
    public static void fixReceiveBuffer(Channel channel, int bytes) {
        channel.config().setOption(ChannelOption.SO_RCVBUF, bytes);
    }

    /**
     * The pooled allocator with thread caches (Netty 4.2's default adaptive allocator allocated (and zeroed) a
     * fresh direct chunk for most frames of 128 KiB and more; pooled arenas reuse them), {@link #RECEIVE_BUFFER} and
     * {@link #WRITE_BUFFER}.
     */
    public static void apply(Channel channel) {
        channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
        channel.config().setRecvByteBufAllocator(RECEIVE_BUFFER);
        channel.config().setWriteBufferWaterMark(WRITE_BUFFER);
    }

    /**
     * Coalesces the flushes of responses produced while one burst of received commands is handled into a single
     * {@code writev} (flushed at read-complete, or on the next loop turn for completions outside a read; at the
     * latest every 256 flushes). On loopback each send also runs the receiver's TCP input and wake-up, so eight
     * 128 KiB Data-In per syscall instead of eight syscalls took a third off iSCSI's target CPU per read.
     */
    public static FlushConsolidationHandler flushConsolidation() {
        return new FlushConsolidationHandler(256, true);
    }

    /** Applies {@link #CUMULATOR} to a frame decoder. */
    public static void apply(ByteToMessageDecoder decoder) {
        decoder.setCumulator(CUMULATOR);
    }

    static ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation instanceof CompositeByteBuf
                || (long) cumulation.readableBytes() + in.readableBytes() > COMPOSE_ABOVE) {
            return ByteToMessageDecoder.COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
}
