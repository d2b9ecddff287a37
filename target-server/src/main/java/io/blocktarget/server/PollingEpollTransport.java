package io.blocktarget.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.EpollIoHandler;
import io.vertx.core.impl.transports.EpollTransport;
import io.vertx.core.impl.transports.TransportInternal;
import io.vertx.core.transport.Transport;

import java.util.concurrent.ThreadFactory;

/**
 * Vert.x's epoll transport with I/O event loops that never sleep: each spins on {@code epoll_wait} with a zero
 * timeout (Netty's {@link SelectStrategy#BUSY_WAIT}) instead of blocking in it, as SPDK's reactors poll. A
 * request then finds its event loop running rather than waiting for the kernel to wake it — on this
 * project's 2-vCPU benchmark machine a wake-up of an idle vCPU costs ~40 µs, more than the rest of a 4 KiB
 * read round trip. The price is one busy core per event loop, whatever the load; the acceptor loop still sleeps.
 *
 * <p>{@link #windowed} is the bounded form ({@code poll-window}): each loop polls only for a window after its last
 * work, then sleeps ({@link WindowedPollStrategy}); {@link #adaptive} (the default, {@code poll-window: auto}) polls
 * only while commands arrive often ({@link AdaptivePollStrategy}).
 */
final class PollingEpollTransport extends EpollTransport {
    private final SelectStrategyFactory strategies;

    private PollingEpollTransport(SelectStrategyFactory strategies) {
        this.strategies = strategies;
    }

    /** Event loops that always spin ({@code poll: true}). */
    static Transport create() {
        return new TransportInternal("epoll (polling)", true, null,
                new PollingEpollTransport(() -> (selectSupplier, hasTasks) -> SelectStrategy.BUSY_WAIT));
    }

    /** Event loops that poll for {@code windowNanos} after their last work, then sleep ({@code poll-window}). */
    static Transport windowed(long windowNanos) {
        return new TransportInternal("epoll (poll window)", true, null,
                new PollingEpollTransport(() -> new WindowedPollStrategy(windowNanos)));
    }

    /** Event loops that poll only while commands arrive often ({@code poll-window: auto}, the default). */
    static Transport adaptive(java.util.function.LongSupplier nanoClock) {
        return new TransportInternal("epoll (adaptive polling)", true, null,
                new PollingEpollTransport(() -> new AdaptivePollStrategy(nanoClock)));
    }

    @Override
    public EventLoopGroup eventLoopGroup(int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
        if (type != IO_EVENT_LOOP_GROUP) {
            return super.eventLoopGroup(type, nThreads, threadFactory, ioRatio);
        }
        return new MultiThreadIoEventLoopGroup(nThreads, threadFactory,
                EpollIoHandler.newFactory(0, strategies));
    }
}
