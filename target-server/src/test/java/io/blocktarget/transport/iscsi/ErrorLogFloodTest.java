package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.time.ManualClock;
import io.blocktarget.transport.tcp.CapturedLog;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer sending malformed PDUs over and over gets {@link PeerLogLimiter#DEFAULT_BURST} error lines a minute, then
 * one "suppressed M more" line per minute; its session events (log in, close) are bounded the same way on a budget of
 * their own.
 */
class ErrorLogFloodTest {
    private final ManualClock clock = new ManualClock();
    private final RamTestTarget target = new RamTestTarget(Harness.TARGET, 512, 8);
    private final IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), clock, target);

    /** A connection that sends a NOP-Out instead of a Login Request: fatal, one WARNING unless suppressed. */
    private void badConnection() {
        try (Harness h = new Harness(transport)) {
            h.send(new NopOut(true, 0, 1, Bhs.RESERVED_TAG, 1, 0, Unpooled.EMPTY_BUFFER));
            assertThat(h.open()).isFalse();
        }
    }

    @Test
    void aFloodOfBadConnectionsFromOnePeerLogsTheBurstThenOneSummaryPerWindow() {
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            for (int i = 0; i < 500; i++) {
                badConnection();
            }
            assertThat(log.count("closing connection")).isEqualTo(PeerLogLimiter.DEFAULT_BURST);
            assertThat(log.lines).hasSize(PeerLogLimiter.DEFAULT_BURST);
            clock.advanceMillis(60_000);
            badConnection();
            assertThat(log.lines).hasSize(PeerLogLimiter.DEFAULT_BURST + 2);
            assertThat(log.lines.get(PeerLogLimiter.DEFAULT_BURST))
                    .isEqualTo("WARNING suppressed 490 more log lines from 127.0.0.1 in 60 s");
            assertThat(log.lines.getLast()).contains("closing connection: NOP_OUT during login");
        }
        assertThat(target.unreleased()).isEmpty();
    }

    /** One login: its "logged in" line and, as the harness goes without a Logout, its "session dropped" line. */
    private void goodSession() {
        try (Harness h = new Harness(transport)) {
            LoginResponse r = h.login();
            assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
            r.release();
        }
    }

    /**
     * Session events (log in, close) have their own budget per peer, {@link PeerLogLimiter#DEFAULT_EVENT_BURST} lines
     * a minute (a flood of short sessions wrote 72,178 lines), summarised at INFO; errors keep theirs.
     */
    @Test
    void sessionEventsAreBoundedPerPeerOnTheirOwnBudget() {
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            int sessions = PeerLogLimiter.DEFAULT_EVENT_BURST;   // two event lines each: twice the budget
            for (int i = 0; i < sessions; i++) {
                goodSession();
            }
            assertThat(log.count("logged in") + log.count("session dropped"))
                    .isEqualTo(log.lines.size()).isEqualTo(PeerLogLimiter.DEFAULT_EVENT_BURST);
            assertThat(log.count("suppressed")).as("said when the window is over, not before").isZero();
            badConnection();   // errors are not held back by the session events' budget
            assertThat(log.count("WARNING")).isEqualTo(1);
            clock.advanceMillis(60_000);
            goodSession();
            assertThat(log.lines).contains("INFO suppressed " + (2L * sessions - PeerLogLimiter.DEFAULT_EVENT_BURST)
                    + " similar session-event lines from 127.0.0.1 in 60 s");
            assertThat(log.lines.getLast()).contains("session dropped");
        }
        assertThat(target.unreleased()).isEmpty();
    }

    /** A peer that goes quiet after a flood has its count said a window later by whoever logs next, or at close. */
    @Test
    void aQuietPeersCountIsSaidAtTransportClose() {
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            for (int i = 0; i < PeerLogLimiter.DEFAULT_EVENT_BURST; i++) {
                goodSession();
            }
            assertThat(log.count("suppressed")).isZero();
            transport.close();
            assertThat(log.lines.getLast()).isEqualTo("INFO suppressed " + PeerLogLimiter.DEFAULT_EVENT_BURST
                    + " similar session-event lines from 127.0.0.1 in 60 s");
        }
    }
}
