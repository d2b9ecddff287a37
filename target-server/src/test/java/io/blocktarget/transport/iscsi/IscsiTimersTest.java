package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.blocktarget.transport.iscsi.Harness.INITIATOR;
import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The iSCSI connection timers on virtual time (no sleeps): the login timeout, the NOP-In ping of an idle initiator
 * and the deadline of its NOP-Out answer (RFC 7143 §11.18-11.19). Each deadline is checked one nanosecond before
 * (nothing happens) and at the instant (it happens).
 */
class IscsiTimersTest {
    private static final long INTERVAL_MS = 10_000;
    private static final long TIMEOUT_MS = 30_000;
    private final ManualClock clock = new ManualClock();
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 64);
    private Harness h;

    @AfterEach
    void tearDown() {
        if (h != null) {
            h.close();
        }
        assertThat(target.unreleased()).as("buffers the transport did not release").isEmpty();
    }

    private static IscsiSettings settings(Duration interval, Duration timeout, Duration login) {
        IscsiSettings d = IscsiSettings.defaults();
        return new IscsiSettings(d.portalGroupTag(), d.portals(), d.queueDepth(), d.maxRecvDataSegmentLength(),
                d.maxBurstLength(), d.firstBurstLength(), d.maxOutstandingR2T(), d.maxTransferLength(), interval,
                timeout, login, Map.of());
    }

    private void connect(IscsiSettings settings) {
        h = new Harness(Harness.transport(settings, clock, target));
    }

    private void loggedIn(long intervalMs, long timeoutMs) {
        connect(settings(Duration.ofMillis(intervalMs), Duration.ofMillis(timeoutMs), Duration.ofSeconds(15)));
        LoginResponse r = h.login();
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
    }

    private void advance(long millis) {
        clock.advanceMillis(millis);
        h.channel.runPendingTasks();
    }

    private void advanceNanos(long nanos) {
        clock.advanceNanos(nanos);
        h.channel.runPendingTasks();
    }

    private NopIn expectPing() {
        NopIn ping = h.expect(NopIn.class);
        // §11.19: a target-initiated NOP-In has ITT 0xffffffff and a TTT other than 0xffffffff for the answer
        assertThat(ping.itt()).isEqualTo(Bhs.RESERVED_TAG);
        assertThat(ping.ttt()).isNotEqualTo(Bhs.RESERVED_TAG);
        assertThat(ping.lun()).isZero();
        return ping;
    }

    private void answer(NopIn ping, int ttt) {
        // §11.18: the answer to a ping echoes its TTT with ITT 0xffffffff, immediate, no CmdSN consumed
        h.send(new NopOut(true, 0, Bhs.RESERVED_TAG, ttt, h.cmdSN, ping.statSN(), Unpooled.EMPTY_BUFFER));
    }

    private void tur() {
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        ScsiResponse r = h.expect(ScsiResponse.class);
        assertThat(r.status()).isZero();
        r.release();
    }

    @Test
    void loginThatNeverFinishesIsDroppedExactlyAtTheLoginTimeout() {
        connect(settings(Duration.ZERO, Duration.ZERO, Duration.ofMillis(15_000)));
        advanceNanos(Duration.ofMillis(15_000).toNanos() - 1);
        assertThat(h.open()).isTrue();
        advanceNanos(1);
        assertThat(h.open()).isFalse();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aLoginHalfwayThroughIsStillBoundByTheTimeoutFromConnect() {
        connect(settings(Duration.ZERO, Duration.ZERO, Duration.ofMillis(15_000)));
        advance(10_000);
        // security stage done, operational stage never finished
        h.send(h.loginRequest(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET, "AuthMethod", "None")));
        LoginResponse r = h.expect(LoginResponse.class);
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
        advance(4_999);
        assertThat(h.open()).isTrue();
        advance(1);
        assertThat(h.open()).isFalse();
    }

    @Test
    void aCompletedLoginCancelsTheLoginTimer() {
        loggedIn(0, 0);
        assertThat(clock.pending()).as("no pinger (interval 0), login timer cancelled").isZero();
        advance(3_600_000);
        assertThat(h.open()).isTrue();
        assertThat(h.receive()).isNull();
    }

    @Test
    void anIdleInitiatorIsPingedAfterTheIntervalAndDroppedWhenItDoesNotAnswer() {
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        advanceNanos(Duration.ofMillis(INTERVAL_MS).toNanos() - 1);
        assertThat(h.receive()).isNull();
        advanceNanos(1);
        NopIn ping = expectPing();
        ping.release();
        advanceNanos(Duration.ofMillis(TIMEOUT_MS).toNanos() - 1);
        assertThat(h.receive()).as("one ping outstanding at a time").isNull();
        assertThat(h.open()).isTrue();
        advanceNanos(1);
        assertThat(h.open()).isFalse();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aPingDoesNotTakeAStatSnAndItsAnswerKeepsTheConnection() {
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        tur();
        advance(INTERVAL_MS);
        NopIn ping = expectPing();
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        ScsiResponse r = h.expect(ScsiResponse.class);
        assertThat(r.statSN()).as("§11.19: the ping did not advance StatSN").isEqualTo(ping.statSN());
        r.release();
        answer(ping, ping.ttt());
        ping.release();
        // answered: not dropped at the timeout, and pinged again once idle for the interval after the answer
        advance(TIMEOUT_MS);
        assertThat(h.open()).isTrue();
        List<TargetPdu> later = h.receiveAll();
        assertThat(later).hasSize(1).allMatch(p -> p instanceof NopIn);
        NopIn second = (NopIn) later.getFirst();
        assertThat(second.ttt()).as("a new TTT per ping").isNotEqualTo(ping.ttt());
        answer(second, second.ttt());
        second.release();
        advance(TIMEOUT_MS);
        assertThat(h.open()).isTrue();
        h.receiveAll().forEach(TargetPdu::release);
    }

    @Test
    void anAnswerWithAnotherTttDoesNotCount() {
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        advance(INTERVAL_MS);
        NopIn ping = expectPing();
        answer(ping, ping.ttt() + 1);
        ping.release();
        advance(TIMEOUT_MS);
        assertThat(h.open()).isFalse();
    }

    @Test
    void trafficPostponesThePing() {
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        for (int i = 0; i < 10; i++) {
            advance(INTERVAL_MS - 1);
            tur();
        }
        assertThat(h.receive()).as("never idle for the interval: no ping").isNull();
        advance(INTERVAL_MS - 1);
        assertThat(h.receive()).isNull();
        advance(1);
        expectPing().release();
    }

    @Test
    void trafficDoesNotAnswerAPing() {
        // only a NOP-Out with the ping's TTT answers it (§11.18); commands meanwhile do not
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        advance(INTERVAL_MS);
        expectPing().release();
        for (int i = 0; i < 5; i++) {
            advance(TIMEOUT_MS / 6);
            tur();
        }
        advance(TIMEOUT_MS - 5 * (TIMEOUT_MS / 6));
        assertThat(h.open()).isFalse();
    }

    @Test
    void zeroTimeoutPingsButNeverDrops() {
        loggedIn(INTERVAL_MS, 0);
        for (int i = 0; i < 5; i++) {
            advance(INTERVAL_MS);
            expectPing().release();
        }
        assertThat(h.open()).isTrue();
    }

    @Test
    void closingTheConnectionCancelsItsTimers() {
        loggedIn(INTERVAL_MS, TIMEOUT_MS);
        assertThat(clock.pending()).isEqualTo(1);
        h.channel.close();
        h.channel.runPendingTasks();
        assertThat(clock.pending()).isZero();
    }
}
