package io.blocktarget.transport.nvmetcp;

import io.blocktarget.transport.tcp.CapturedLog;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fatal-error and session-event lines of one peer are limited per window, each on its own budget; the limiter is the
 * transport's, shared by its connections.
 */
class ErrorLogFloodTest {
    private static final long WINDOW = PeerLogLimiter.DEFAULT_WINDOW_NANOS;

    @Test
    void aFloodOfBadPdusLogsTheBurstThenOneSummaryPerWindow() {
        AtomicLong now = new AtomicLong(5);
        FakeTarget shared = new FakeTarget();
        NvmeTcpTransport transport = new NvmeTcpTransport(shared, LIMITS, CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST,
                new PeerLogLimiter(System.getLogger("blocktarget.nvmetcp"), PeerLogLimiter.DEFAULT_BURST, WINDOW,
                        now::get));
        try (CapturedLog log = new CapturedLog("blocktarget.nvmetcp")) {
            for (int i = 0; i < 300; i++) {
                try (HostEnd bad = new HostEnd(transport)) {
                    bad.sendBytes(new byte[]{(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0});
                    bad.assertTerminated(1, 0);
                }
            }
            assertThat(log.count("fatal:")).isEqualTo(PeerLogLimiter.DEFAULT_BURST);
            now.addAndGet(WINDOW);
            try (HostEnd bad = new HostEnd(transport)) {
                bad.sendBytes(new byte[]{(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0});
                bad.assertTerminated(1, 0);
            }
            // EmbeddedChannel has no IP address: its connections share the budget of "other peers"
            assertThat(log.lines).contains("WARNING suppressed 290 more log lines from other peers in 60 s");
            assertThat(log.count("fatal:")).isEqualTo(PeerLogLimiter.DEFAULT_BURST + 1);
        } finally {
            shared.release();
        }
    }

    /** 1000 connections that connect and go (a port scan, a fuzzer): one window logs the event budget, then one sum. */
    @Test
    void shortConnectionsLogTheEventBudgetThenOneSummaryPerWindow() {
        AtomicLong now = new AtomicLong(5);
        FakeTarget shared = new FakeTarget();
        NvmeTcpTransport transport = new NvmeTcpTransport(shared, LIMITS, CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST,
                new PeerLogLimiter(System.getLogger("blocktarget.nvmetcp"), PeerLogLimiter.DEFAULT_BURST, WINDOW,
                        now::get));
        try (CapturedLog log = new CapturedLog("blocktarget.nvmetcp")) {
            for (int i = 0; i < 1000; i++) {
                new HostEnd(transport).close();
            }
            assertThat(log.count("disconnected")).isEqualTo(PeerLogLimiter.DEFAULT_EVENT_BURST);
            assertThat(log.lines).hasSize(PeerLogLimiter.DEFAULT_EVENT_BURST);
            now.addAndGet(WINDOW);
            new HostEnd(transport).close();
            assertThat(log.lines).contains("INFO suppressed " + (1000 - PeerLogLimiter.DEFAULT_EVENT_BURST)
                    + " similar session-event lines from other peers in 60 s");
            assertThat(log.count("disconnected")).isEqualTo(PeerLogLimiter.DEFAULT_EVENT_BURST + 1);
        } finally {
            shared.release();
        }
    }
}
