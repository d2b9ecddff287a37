package io.blocktarget.transport.tcp;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stalled socket in a pipeline like the transports' (a flush consolidation handler behind it, the stall begun
 * by the command the connection is reading — inside a read batch): the batch still ends for the handlers behind the
 * stall, and a stall the target abandons drops what it kept and lets a write-then-close (Vert.x's close, a
 * close after the C2HTermReq) through.
 */
class StallHandlerTest {
    private final LunFaults faults = new LunFaults(new ManualClock());
    private EmbeddedChannel channel;

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    /** A connection whose first read is the hit command: it stalls the channel, then writes its response. */
    private void connection(FaultAction.StallDirection direction) {
        FaultAction.StallConnection stall = new FaultAction.StallConnection(0, direction);
        ActiveRule rule = faults.add(new FaultRule("s", FaultMatch.ANY, new FaultTrigger.Always(), stall));
        channel = new EmbeddedChannel();
        channel.pipeline().addLast(new FlushConsolidationHandler(256, true), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                StallHandler.stall(ctx.channel(), stall, rule, () -> { });
                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
            }
        });
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {9})); // one batch: channelRead, channelReadComplete
        channel.runPendingTasks();
    }

    @Test
    void aStallBegunInsideAReadBatchStillEndsTheBatchBehindIt() {
        connection(FaultAction.StallDirection.RECEIVE);
        assertThat(StallHandler.stalled(channel)).isTrue();
        ByteBuf out = channel.readOutbound();
        try {
            // a receive stall sends what is due: the flush the consolidation handler deferred to the batch's end
            assertThat(out).as("the response, flushed when the read batch ended").isNotNull();
        } finally {
            ReferenceCountUtil.release(out);
        }
    }

    @Test
    void anAbandonedStallDropsWhatItKeptAndAWriteThenCloseCloses() {
        connection(FaultAction.StallDirection.BOTH);
        assertThat((Object) channel.readOutbound()).as("the response is held back").isNull();
        StallHandler.abandon(channel);
        assertThat(StallHandler.stalled(channel)).isFalse();
        // the transport's close: one more (empty) write, and close once it is written
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        channel.runPendingTasks();
        assertThat(channel.isOpen()).isFalse();
        ByteBuf out = channel.readOutbound();
        try {
            assertThat(out == null || out.readableBytes() == 0).as("the held response was dropped, not sent").isTrue();
        } finally {
            ReferenceCountUtil.release(out);
        }
        assertThat(faults.rules()).as("the rule stays; only this connection's stall ended").hasSize(1);
    }
}
