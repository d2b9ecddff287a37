package io.blocktarget.transport.tcp;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A fault rule's stalled socket (stall-connection): while this handler sits at the head of a connection's pipeline
 * it keeps what the socket reads and / or what the connection writes, and stops the socket from reading, so the
 * initiator sees a peer that stopped answering (its command and keep-alive / NOP timeouts fire). Removing it
 * delivers what it kept, in order, and reading resumes; a connection the target ends meanwhile drops it
 * ({@link #abandon}). It is in the pipeline only while a connection is stalled:
 * no cost otherwise. Knows no protocol; only the connection's own event loop touches it.
 */
public final class StallHandler extends ChannelDuplexHandler {
    public static final String NAME = "fault-stall";

    private record PendingWrite(Object message, ChannelPromise promise) {
    }

    /** What removing the handler does with what it kept. */
    private enum Ending {
        /** The stall is over (its time is up, its rule was removed): everything goes on, in order. */
        DELIVER,
        /** The target ends the connection: what the stall kept is dropped, as a peer that stopped answering would. */
        DISCARD
    }

    private final FaultAction.StallDirection direction;
    private Ending ending = Ending.DELIVER;
    private final ArrayDeque<Object> reads = new ArrayDeque<>();
    private final ArrayDeque<PendingWrite> writes = new ArrayDeque<>();

    private StallHandler(FaultAction.StallDirection direction) {
        this.direction = direction;
    }

    /**
     * Stalls {@code channel} for {@code stall} (its {@code nanos}; 0 = until {@code rule} is removed or the channel
     * closes). A channel already stalled stays as it is. Callable from any thread.
     *
     * @param onEnd runs on the event loop when the stall ends (for the connection's log line)
     */
    public static void stall(Channel channel, FaultAction.StallConnection stall, ActiveRule rule, Runnable onEnd) {
        // at once on the loop: the hit command's own response (written right after, inline) is held back too
        onLoop(channel, () -> {
            if (!channel.isActive() || channel.pipeline().get(NAME) != null) {
                return;
            }
            StallHandler handler = new StallHandler(stall.direction());
            channel.pipeline().addFirst(NAME, handler);
            Runnable end = () -> channel.eventLoop().execute(() -> {
                if (channel.pipeline().get(NAME) == handler) {
                    channel.pipeline().remove(handler);
                    onEnd.run();
                }
            });
            if (stall.nanos() > 0) {
                channel.eventLoop().schedule(end, stall.nanos(), TimeUnit.NANOSECONDS);
            }
            rule.whenRemoved(end);
        });
    }

    private static void onLoop(Channel channel, Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
        } else {
            channel.eventLoop().execute(task);
        }
    }

    /**
     * The target is ending {@code channel} (a drop, a session reinstatement, a fatal error, its own timeouts): a stall
     * in effect ends at once and drops what it kept, so that the transport's close — which may wait for a write it
     * flushes first (Vert.x's close, close-after-TermReq) — is not held back behind the stall (a flush already held
     * fails, which closes as well). At once on the event loop, else on it soon; no-op when the channel is not stalled.
     */
    public static void abandon(Channel channel) {
        onLoop(channel, () -> {
            if (channel.pipeline().get(NAME) instanceof StallHandler handler) {
                handler.ending = Ending.DISCARD;
                channel.pipeline().remove(handler);
            }
        });
    }

    /** Whether {@code channel} is stalled now (tests). */
    public static boolean stalled(Channel channel) {
        return channel.pipeline().get(NAME) != null;
    }

    private boolean receiving() {
        return direction != FaultAction.StallDirection.SEND;
    }

    private boolean sending() {
        return direction != FaultAction.StallDirection.RECEIVE;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (receiving()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (ending == Ending.DISCARD || !ctx.channel().isActive()) {
            discard();
            return;
        }
        if (!writes.isEmpty()) {
            PendingWrite w;
            while ((w = writes.poll()) != null) {
                ctx.write(w.message(), w.promise());
            }
            ctx.flush();
        }
        if (!reads.isEmpty()) {
            Object m;
            while ((m = reads.poll()) != null) {
                ctx.fireChannelRead(m);
            }
            ctx.fireChannelReadComplete();
        }
        if (receiving()) {
            // the transport's own backpressure decides from here on (it pauses reading while unwritable)
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (receiving()) {
            reads.add(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // always passed on: the stall usually begins inside a read batch (at the hit command), and a handler behind
        // it that waits for the batch's end (FlushConsolidationHandler defers flushes while a read is in progress)
        // would otherwise wait for ever — also for the flush the transport's close waits for
        ctx.fireChannelReadComplete();
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (!receiving()) {
            ctx.read(); // a stalled receiver asks the socket for nothing (autoRead off; explicit reads held too)
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (sending()) {
            writes.add(new PendingWrite(msg, promise));
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (!sending()) {
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        discard();
        ctx.fireChannelInactive();
    }

    private void discard() {
        Object m;
        while ((m = reads.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
        PendingWrite w;
        while ((w = writes.poll()) != null) {
            ReferenceCountUtil.release(w.message());
            if (!w.promise().isVoid()) {
                w.promise().tryFailure(new java.nio.channels.ClosedChannelException());
            }
        }
    }
}
