package io.blocktarget.transport.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A per-peer budget for a transport's protocol-error log lines, so that a network fuzzer cannot turn them into a
 * disk filler (one WARN per malformed PDU: 90,000 lines in 6.5 min): each peer address (not port — a fuzzer
 * reconnects from new ports) may log {@code burst} lines per {@code window}; what it would log beyond that is
 * counted, and the first line it logs in a later window is preceded by one "suppressed M more from ADDR" line.
 *
 * <p>Callers ask {@link #admit} before they build the message, so a suppressed line costs a map lookup and a
 * counter, no allocation. Connections without errors never call it. The table holds at most {@link #MAX_PEERS}
 * peers; beyond that, peers whose window is over are forgotten, and if all are current the newcomers share one
 * budget (reported as "other peers"). Thread-safe: connections of one peer live on different event loops.
 */
public final class PeerLogLimiter {
    public static final int DEFAULT_BURST = 10;
    public static final long DEFAULT_WINDOW_NANOS = 60_000_000_000L;
    static final int MAX_PEERS = 1024;

    private final Logger log;
    private final int burst;
    private final long windowNanos;
    private final LongSupplier clock;
    private final Map<InetAddress, Budget> peers = new ConcurrentHashMap<>();
    private final Budget others;

    /** @param clock monotonic nanoseconds ({@code System::nanoTime} in production) */
    public PeerLogLimiter(Logger log, int burst, long windowNanos, LongSupplier clock) {
        if (burst < 1 || windowNanos < 1) {
            throw new IllegalArgumentException("burst and window must be positive");
        }
        this.log = Objects.requireNonNull(log, "log");
        this.burst = burst;
        this.windowNanos = windowNanos;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.others = new Budget("other peers", clock.getAsLong());
    }

    /** {@link #DEFAULT_BURST} lines a minute per peer on the system clock. */
    public static PeerLogLimiter standard(Logger log) {
        return new PeerLogLimiter(log, DEFAULT_BURST, DEFAULT_WINDOW_NANOS, System::nanoTime);
    }

    /**
     * True when one line about {@code peer} may be logged now (then log it); false when it is to be suppressed (then
     * build nothing). Logs the previous window's suppressed count first when a new window opens.
     */
    public boolean admit(SocketAddress peer) {
        InetAddress address = peer instanceof InetSocketAddress i ? i.getAddress() : null;
        return budget(address).admit(clock.getAsLong());
    }

    private Budget budget(InetAddress address) {
        if (address == null) {
            return others;
        }
        Budget b = peers.get(address);
        if (b != null) {
            return b;
        }
        if (peers.size() >= MAX_PEERS) {
            forgetIdle(clock.getAsLong());
            if (peers.size() >= MAX_PEERS) {
                return others;
            }
        }
        return peers.computeIfAbsent(address, a -> new Budget(a.getHostAddress(), clock.getAsLong()));
    }

    /** Drops peers whose window has ended; their suppressed count, if any, is logged now so nothing goes unsaid. */
    private void forgetIdle(long now) {
        for (Iterator<Budget> it = peers.values().iterator(); it.hasNext(); ) {
            Budget b = it.next();
            if (b.endIfOver(now)) {
                it.remove();
            }
        }
    }

    /** Peers currently tracked (tests). */
    int trackedPeers() {
        return peers.size();
    }

    private final class Budget {
        private final String name;
        private long windowStart;
        private int used;
        private long suppressed;

        Budget(String name, long now) {
            this.name = name;
            this.windowStart = now;
        }

        synchronized boolean admit(long now) {
            if (now - windowStart >= windowNanos) {
                report();
                windowStart = now;
                used = 0;
            }
            if (used < burst) {
                used++;
                return true;
            }
            suppressed++;
            return false;
        }

        /** True (and the count reported) when this budget's window is over. */
        synchronized boolean endIfOver(long now) {
            if (now - windowStart < windowNanos) {
                return false;
            }
            report();
            return true;
        }

        private void report() {
            if (suppressed > 0) {
                log.log(Level.WARNING, "suppressed {0} more log lines from {1} in {2} s", Long.toString(suppressed),
                        name, Long.toString(windowNanos / 1_000_000_000L));
                suppressed = 0;
            }
        }
    }
}
