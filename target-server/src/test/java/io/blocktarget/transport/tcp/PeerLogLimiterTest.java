package io.blocktarget.transport.tcp;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The per-peer budgets for protocol-error and session-event lines on a manual clock: burst, limit + 1, the summary,
 * memory bounds.
 */
class PeerLogLimiterTest {
    private static final long WINDOW = 60_000_000_000L;
    private final AtomicLong now = new AtomicLong(123_456_789L);
    private final RecordingLogger log = new RecordingLogger();
    private final PeerLogLimiter limiter = new PeerLogLimiter(log, 3, WINDOW, now::get);

    private static InetSocketAddress peer(String ip, int port) {
        return new InetSocketAddress(ip, port);
    }

    private int admitted(InetSocketAddress p, int times) {
        int n = 0;
        for (int i = 0; i < times; i++) {
            if (limiter.admit(p)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void theBurstIsAdmittedAndTheLineAfterItIsNot() {
        InetSocketAddress a = peer("192.0.2.1", 40000);
        assertThat(limiter.admit(a)).isTrue();
        assertThat(limiter.admit(a)).isTrue();
        assertThat(limiter.admit(a)).isTrue();   // burst = 3: the limit
        assertThat(limiter.admit(a)).isFalse();  // limit + 1
        assertThat(log.lines).as("suppression itself logs nothing yet").isEmpty();
    }

    @Test
    void thePortDoesNotMatterTheAddressDoes() {
        // a fuzzer reconnects from a new source port each time
        for (int port = 40000; port < 40010; port++) {
            limiter.admit(peer("192.0.2.1", port));
        }
        assertThat(admitted(peer("192.0.2.1", 50000), 1)).isZero();
        assertThat(admitted(peer("192.0.2.2", 40000), 3)).as("another peer has its own budget").isEqualTo(3);
        assertThat(admitted(peer("2001:db8::1", 40000), 5)).isEqualTo(3);
    }

    @Test
    void aNewWindowReportsWhatWasSuppressedOnceThenAdmitsAgain() {
        InetSocketAddress a = peer("192.0.2.1", 40000);
        assertThat(admitted(a, 1003)).isEqualTo(3);
        now.addAndGet(WINDOW - 1);
        assertThat(limiter.admit(a)).as("window not over one nanosecond before").isFalse();
        assertThat(log.lines).isEmpty();
        now.addAndGet(1);
        assertThat(limiter.admit(a)).isTrue();
        assertThat(log.lines).containsExactly("WARNING suppressed 1001 more log lines from 192.0.2.1 in 60 s");
        assertThat(admitted(a, 10)).isEqualTo(2);
        now.addAndGet(WINDOW);
        assertThat(limiter.admit(a)).isTrue();
        assertThat(log.lines).hasSize(2).last().isEqualTo("WARNING suppressed 8 more log lines from 192.0.2.1 in 60 s");
        // a window without suppression reports nothing
        now.addAndGet(WINDOW);
        assertThat(limiter.admit(a)).isTrue();
        assertThat(log.lines).hasSize(2);
    }

    @Test
    void underASustainedFloodOneLinePerWindowSaysHowMuchWasSuppressed() {
        InetSocketAddress a = peer("198.51.100.7", 1);
        int logged = 0;
        // 40,000 bad PDUs over 6.5 minutes, as the fuzz run that wrote 90,000 lines
        for (int i = 0; i < 40_000; i++) {
            now.addAndGet(390_000_000_000L / 40_000);
            if (limiter.admit(a)) {
                logged++;
            }
        }
        assertThat(logged).isEqualTo(3 * 7);          // 7 windows of 60 s, 3 lines each
        assertThat(log.lines).hasSize(6);             // and one summary at the start of each later window
    }

    @Test
    void theTableIsBoundedAndForgetsPeersWhoseWindowIsOver() {
        for (int i = 0; i < PeerLogLimiter.MAX_PEERS; i++) {
            limiter.admit(peer("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255), 1));
        }
        assertThat(limiter.trackedPeers()).isEqualTo(PeerLogLimiter.MAX_PEERS);
        // full and all current: newcomers share one budget
        assertThat(admitted(peer("192.0.2.200", 1), 2)).isEqualTo(2);
        assertThat(admitted(peer("192.0.2.201", 1), 2)).isEqualTo(1);
        assertThat(limiter.trackedPeers()).isEqualTo(PeerLogLimiter.MAX_PEERS);
        now.addAndGet(WINDOW);
        assertThat(limiter.admit(peer("192.0.2.202", 1))).isTrue();
        assertThat(limiter.trackedPeers()).as("the idle ones were forgotten").isEqualTo(1);
    }

    @Test
    void aForgottenPeerStillHasItsSuppressedCountReported() {
        InetSocketAddress a = peer("192.0.2.9", 1);
        admitted(a, 5);
        for (int i = 1; i < PeerLogLimiter.MAX_PEERS; i++) {
            limiter.admit(peer("10.0." + (i >> 8 & 255) + "." + (i & 255), 1));
        }
        now.addAndGet(WINDOW);
        limiter.admit(peer("192.0.2.10", 1));
        assertThat(log.lines).containsExactly("WARNING suppressed 2 more log lines from 192.0.2.9 in 60 s");
    }

    @Test
    void anAddresslessPeerUsesTheSharedBudget() {
        assertThat(admitted(null, 4)).isEqualTo(3);
        assertThat(admitted(InetSocketAddress.createUnresolved("nowhere.invalid", 1), 1)).isZero();
    }

    @Test
    void sessionEventsHaveTheirOwnBudgetAndSayItAtInfo() {
        PeerLogLimiter both = new PeerLogLimiter(log, 3, 5, WINDOW, now::get);
        InetSocketAddress a = peer("192.0.2.1", 40000);
        int events = 0;
        for (int i = 0; i < 12; i++) {
            events += both.events().admit(a) ? 1 : 0;
        }
        assertThat(events).as("burst 5: the limit, then limit + 1 is refused").isEqualTo(5);
        assertThat(both.admit(a)).as("errors are not held back by events").isTrue();
        assertThat(both.events().events()).isSameAs(both.events());
        now.addAndGet(WINDOW);
        assertThat(both.events().admit(a)).isTrue();
        assertThat(log.lines).containsExactly("INFO suppressed 7 similar session-event lines from 192.0.2.1 in 60 s");
    }

    @Test
    void aQuietPeersCountIsSaidWhenAnyPeerLogsAWindowLater() {
        InetSocketAddress flood = peer("192.0.2.1", 1);
        admitted(flood, 10);   // then silence from it
        now.addAndGet(WINDOW - 1);
        limiter.admit(peer("192.0.2.2", 1));
        assertThat(log.lines).isEmpty();
        now.addAndGet(1);
        limiter.admit(peer("192.0.2.3", 1));
        assertThat(log.lines).containsExactly("WARNING suppressed 7 more log lines from 192.0.2.1 in 60 s");
    }

    @Test
    void flushSaysEveryCountNotYetSaidOfBothBudgetsOnce() {
        admitted(peer("192.0.2.1", 1), 4);
        for (int i = 0; i < PeerLogLimiter.DEFAULT_EVENT_BURST + 2; i++) {
            limiter.events().admit(peer("192.0.2.1", 1));
        }
        admitted(null, 5);
        limiter.flush();
        assertThat(log.lines).containsExactlyInAnyOrder(
                "WARNING suppressed 1 more log lines from 192.0.2.1 in 60 s",
                "WARNING suppressed 2 more log lines from other peers in 60 s",
                "INFO suppressed 2 similar session-event lines from 192.0.2.1 in 60 s");
        limiter.flush();
        assertThat(log.lines).hasSize(3);
    }

    @Test
    void nonsenseParametersAreRefused() {
        assertThatThrownBy(() -> new PeerLogLimiter(log, 0, WINDOW, now::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PeerLogLimiter(log, 1, 0, now::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PeerLogLimiter(log, 1, 0, WINDOW, now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
