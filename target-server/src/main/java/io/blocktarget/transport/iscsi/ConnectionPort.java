package io.blocktarget.transport.iscsi;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;

/**
 * What a connection needs from its socket: write frames, whole or in parts (the port takes ownership), close, the
 * event loop it lives on (completions hop back to it, timers run on it), an allocator and the addresses.
 * {@link IscsiTransport} adapts a Vert.x {@code NetSocketInternal}; tests adapt an {@code EmbeddedChannel}.
 */
interface ConnectionPort extends PduWriter.Sink {
    /** Writes a whole frame, or a frame's last part, and flushes. */
    void write(Object frame);

    /**
     * Queues a frame's leading part (its header, its data) without flushing: the frame's last part goes through
     * {@link #write}. A frame in parts needs no composite buffer, which the socket could not hand to writev without
     * copies of NIO views.
     */
    void writePart(io.netty.buffer.ByteBuf part);

    /**
     * Flushes what was written so far although a socket read burst is being handled (the channel's flush
     * consolidation otherwise holds flushes until the burst ends).
     */
    void flushHeld();

    /** {@link PduWriter}'s parts: flushed with the frame's last. */
    @Override
    default void part(io.netty.buffer.ByteBuf part, boolean last) {
        if (last) {
            write(part);
        } else {
            writePart(part);
        }
    }

    /** Closes at once; unsent frames are dropped. */
    void close();

    /** Closes once every frame written so far is on the wire (after a Logout or failed Login Response). */
    void closeAfterWrites();

    EventExecutor executor();

    ByteBufAllocator alloc();

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** The socket's channel (a fault rule's stall puts a handler into its pipeline). */
    io.netty.channel.Channel channel();
}
