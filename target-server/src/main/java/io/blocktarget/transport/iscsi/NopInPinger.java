package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.time.Clock;
import io.netty.buffer.Unpooled;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The target's NOP-In ping of one connection in full feature phase (RFC 7143 §11.19, §7.4): after NopInInterval
 * without a PDU from the initiator it sends a NOP-In with a TTT to answer (ITT FFFFFFFFh, StatSN not advanced), and
 * ends the connection when no NOP-Out answers it within NopInTimeout. One timer at a time, due exactly when something
 * can change — idle for the interval since the last received PDU (then ping), or the timeout after a ping (then
 * drop, unless answered) — no periodic tick, so virtual time in tests sees the same instants as production. Confined
 * to the connection's event loop.
 */
final class NopInPinger {
    private enum Ping { IDLE, OUTSTANDING }

    private final ConnectionIo io;
    private final Clock clock;
    /** The transport's settings, read at each check (NopInInterval / NopInTimeout may be retuned at runtime). */
    private final Supplier<IscsiSettings> settings;
    /** Whether the connection is still in full feature phase (a tick after it ended does nothing). */
    private final BooleanSupplier live;
    private Clock.Timer timer;
    private Ping ping = Ping.IDLE;
    private int ttt;
    private long sentNanos;
    private long lastActivityNanos;

    NopInPinger(ConnectionIo io, Clock clock, Supplier<IscsiSettings> settings, BooleanSupplier live) {
        this.io = io;
        this.clock = clock;
        this.settings = settings;
        this.live = live;
        this.lastActivityNanos = clock.nanoTime();
    }

    /** A PDU arrived from the initiator: the idle time starts again. */
    void activity() {
        lastActivityNanos = clock.nanoTime();
    }

    /** Full feature phase began: the first check is due after NopInInterval (none when it is 0). */
    void start() {
        long nanos = settings.get().nopInInterval().toNanos();
        if (nanos > 0) {
            timer = clock.schedule(io.executor(), nanos, this::tick);
        }
    }

    /** A NOP-Out with ITT FFFFFFFFh and {@code ttt} (§11.18): the answer to the outstanding ping, if it is that. */
    void answered(int answerTtt) {
        if (ping == Ping.OUTSTANDING && answerTtt == ttt) {
            ping = Ping.IDLE;
        }
    }

    void cancel() {
        if (timer != null) {
            timer.cancel();
        }
    }

    private void tick() {
        if (!live.getAsBoolean()) {
            return;
        }
        long now = clock.nanoTime();
        IscsiSettings current = settings.get();
        long intervalNanos = current.nopInInterval().toNanos();
        long timeoutNanos = current.nopInTimeout().toNanos();
        long next;
        if (ping == Ping.OUTSTANDING && timeoutNanos > 0) {
            long waited = now - sentNanos;
            if (waited >= timeoutNanos) {
                io.fatal("no answer to NOP-In within " + current.nopInTimeout());
                return;
            }
            // checked again at the deadline, or sooner so that an answered ping is followed by the next one on time
            next = Math.min(timeoutNanos - waited, intervalNanos);
        } else {
            long idle = now - lastActivityNanos;
            if (idle >= intervalNanos) {
                ttt = ttt == Bhs.RESERVED_TAG - 1 ? 0 : ttt + 1;
                ping = Ping.OUTSTANDING;
                sentNanos = now;
                // §11.19: a target ping has ITT 0xffffffff, a TTT for the answer, and does not advance StatSN.
                io.send(new NopIn(0, Bhs.RESERVED_TAG, ttt, io.statSN(), io.expCmdSN(), io.maxCmdSN(),
                        Unpooled.EMPTY_BUFFER));
                next = timeoutNanos > 0 ? timeoutNanos : intervalNanos;
            } else {
                next = intervalNanos - idle;
            }
        }
        timer = clock.schedule(io.executor(), next, this::tick);
    }
}
