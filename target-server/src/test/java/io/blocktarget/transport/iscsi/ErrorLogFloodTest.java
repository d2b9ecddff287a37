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
 * one "suppressed M more" line per minute; its session events (log in, session dropped) stay one line each.
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

    @Test
    void sessionEventsAreNotLimited() {
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            for (int i = 0; i < 3 * PeerLogLimiter.DEFAULT_BURST; i++) {
                try (Harness h = new Harness(transport)) {
                    LoginResponse r = h.login();
                    assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
                    r.release();
                }
            }
            assertThat(log.count("logged in")).isEqualTo(3L * PeerLogLimiter.DEFAULT_BURST);
        }
    }
}
