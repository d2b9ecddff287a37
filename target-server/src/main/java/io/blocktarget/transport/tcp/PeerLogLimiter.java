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
 * A per-peer budget for a transport's log lines, so that a network fuzzer cannot turn them into a disk filler (one
 * WARN per malformed PDU: 90,000 lines in 6.5 min; one INFO line per connect and disconnect: 40,000 short
 * connections wrote 72,178): each peer address (not port — a fuzzer reconnects from new ports) may log {@code burst}
 * lines per {@code window}; what it would log beyond that is counted, and reported in one "suppressed M ..." line when
 * that peer's window is over — before its next line, or at the first line of any peer a window later, or when the
 * transport closes ({@link #flush}).
 *
 * <p>Two budgets per transport: this one for protocol errors ({@link #DEFAULT_BURST} a minute, summary at WARNING)
 * and {@link #events()} for session events — connect, login, logout, disconnect ({@link #DEFAULT_EVENT_BURST} a
 * minute, "suppressed M similar session-event lines", at INFO), so a flood of errors never hides a login and the
 * other way round.
 *
 * <p>Callers ask {@link #admit} before they build the message, so a suppressed line costs a map lookup and a
 * counter, no allocation. The table holds at most {@link #MAX_PEERS} peers; beyond that, peers whose window is over
 * are forgotten, and if all are current the newcomers share one budget (reported as "other peers"). Thread-safe:
 * connections of one peer live on different event loops.
 */
public final class PeerLogLimiter {
    public static final int DEFAULT_BURST = 10;
    /** Session-event lines a minute per peer: a host connecting a few dozen sessions at once logs them all. */
    public static final int DEFAULT_EVENT_BURST = 60;
    public static final long DEFAULT_WINDOW_NANOS = 60_000_000_000L;
    static final int MAX_PEERS = 1024;

    private final Logger log;
    private final int burst;
    private final long windowNanos;
    private final LongSupplier clock;
    private final Level reportLevel;
    /** "more log lines", "similar session-event lines": what the summary line says was suppressed. */
    private final String what;
    private final Map<InetAddress, Budget> peers = new ConcurrentHashMap<>();
    private final Budget others;
    /** The session-event budget of an error limiter; null for the session-event limiter itself. */
    private final PeerLogLimiter events;
    /** When peers whose window is over were last looked for (their counts reported). */
    private volatile long lastSweep;

    /**
     * An error-line limiter of {@code burst} lines per window, with a session-event limiter of
     * {@link #DEFAULT_EVENT_BURST} on the same clock.
     *
     * @param clock monotonic nanoseconds ({@code System::nanoTime} in production)
     */
    public PeerLogLimiter(Logger log, int burst, long windowNanos, LongSupplier clock) {
        this(log, burst, DEFAULT_EVENT_BURST, windowNanos, clock);
    }

    /** As above with the session-event limiter's burst given. */
    public PeerLogLimiter(Logger log, int burst, int eventBurst, long windowNanos, LongSupplier clock) {
        this(log, burst, windowNanos, clock, Level.WARNING, "more log lines",
                new PeerLogLimiter(log, eventBurst, windowNanos, clock, Level.INFO, "similar session-event lines",
                        null));
    }

    private PeerLogLimiter(Logger log, int burst, long windowNanos, LongSupplier clock, Level reportLevel,
                           String what, PeerLogLimiter events) {
        if (burst < 1 || windowNanos < 1) {
            throw new IllegalArgumentException("burst and window must be positive");
        }
        this.log = Objects.requireNonNull(log, "log");
        this.burst = burst;
        this.windowNanos = windowNanos;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reportLevel = reportLevel;
        this.what = what;
        this.events = events;
        this.lastSweep = clock.getAsLong();
        this.others = new Budget("other peers", lastSweep);
    }

    /** {@link #DEFAULT_BURST} error lines and {@link #DEFAULT_EVENT_BURST} session-event lines a minute per peer. */
    public static PeerLogLimiter standard(Logger log) {
        return new PeerLogLimiter(log, DEFAULT_BURST, DEFAULT_WINDOW_NANOS, System::nanoTime);
    }

    /** The budget for session-event lines (connect, login, logout, disconnect); itself for that budget. */
    public PeerLogLimiter events() {
        return events != null ? events : this;
    }

    /**
     * True when one line about {@code peer} may be logged now (then log it); false when it is to be suppressed (then
     * build nothing). Logs the previous window's suppressed count first when a new window opens.
     */
    public boolean admit(SocketAddress peer) {
        InetAddress address = peer instanceof InetSocketAddress i ? i.getAddress() : null;
        long now = clock.getAsLong();
        if (now - lastSweep >= windowNanos) {
            // a peer that went quiet after a flood has its count said a window later, by whoever logs next
            lastSweep = now;
            forgetIdle(now);
        }
        return budget(address).admit(now);
    }

    /** Reports every count not yet reported (the transport is closing), of both budgets. */
    public void flush() {
        for (Budget b : peers.values()) {
            b.reportNow();
        }
        others.reportNow();
        if (events != null) {
            events.flush();
        }
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

        synchronized void reportNow() {
            report();
        }

        private void report() {
            if (suppressed > 0) {
                log.log(reportLevel, "suppressed {0} {1} from {2} in {3} s", Long.toString(suppressed), what,
                        name, Long.toString(windowNanos / 1_000_000_000L));
                suppressed = 0;
            }
        }
    }
}
