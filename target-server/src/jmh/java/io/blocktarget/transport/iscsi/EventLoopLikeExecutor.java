package io.blocktarget.transport.iscsi;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * JMH's worker threads as Netty's FastThreadLocalThreads, as the server's event loops are: with JMH's plain threads,
 * every FastThreadLocal lookup (the allocator's thread cache, the Recycler's pools, the per-LUN counters' shards) took
 * its slow path through a ThreadLocal, and JFR put those lookups among the top methods of a command. Chosen by
 * {@code -Djmh.executor=CUSTOM -Djmh.executor.class=} this class (JMH calls the {@code (int, String)} constructor).
 */
public final class EventLoopLikeExecutor extends ThreadPoolExecutor {
    public EventLoopLikeExecutor(int maxThreads, String prefix) {
        super(maxThreads, maxThreads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                new DefaultThreadFactory(prefix, true));
    }
}
