package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TextResponse;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Targets that come and go while the transport runs (issue 9 item 3): a new target is in SendTargets and takes logins;
 * a removed target's sessions get an Async Message asking for a Logout within Parameter3 seconds (RFC 7143 §11.9.1)
 * and are dropped when they do not log out by then; the control plane lists and drops sessions.
 */
class RuntimeTargetsTest {
    private static final String OTHER = "iqn.2026-11.io.blocktarget:other";
    private final RamTestTarget target = new RamTestTarget(Harness.TARGET, 512, 64);
    private final ManualClock clock = new ManualClock();
    private final IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), clock, target);
    private final List<Harness> harnesses = new ArrayList<>();

    @AfterEach
    void close() {
        harnesses.forEach(Harness::close);
    }

    private Harness harness() {
        Harness h = new Harness(transport);
        harnesses.add(h);
        return h;
    }

    private Harness loggedIn() {
        Harness h = harness();
        LoginResponse r = h.login();
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
        return h;
    }

    private static String sendTargets(Harness h) {
        h.send(h.loginRequest(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                TextParameters.of("InitiatorName", Harness.INITIATOR, "SessionType", "Discovery", "AuthMethod", "None")));
        h.expect(LoginResponse.class).release();
        h.send(new TextRequest(true, true, false, 0, 0x20, Bhs.RESERVED_TAG, h.cmdSN, 0,
                Harness.text(TextParameters.of("SendTargets", "All"))));
        TextResponse text = h.expect(TextResponse.class);
        try {
            return Harness.ascii(text.data());
        } finally {
            text.release();
        }
    }

    @Test
    void aNewTargetIsInSendTargetsAndTakesLogins() {
        assertThat(sendTargets(harness())).doesNotContain(OTHER);
        transport.targets(List.of(target, new RamTestTarget(OTHER, 4096, 8)), Map.of());
        assertThat(sendTargets(harness())).contains("TargetName=" + OTHER + "\0");

        Harness h = harness();
        h.send(h.loginRequest(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                TextParameters.of("InitiatorName", Harness.INITIATOR, "TargetName", OTHER, "SessionType", "Normal")));
        LoginResponse r = h.expect(LoginResponse.class);
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();

        transport.targets(List.of(target), Map.of());   // gone again: not found at login (§11.13.5: 0203)
        Harness late = harness();
        late.send(late.loginRequest(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                TextParameters.of("InitiatorName", Harness.INITIATOR, "TargetName", OTHER, "SessionType", "Normal")));
        LoginResponse refused = late.expect(LoginResponse.class);
        assertThat(refused.status()).isEqualTo(LoginStatus.NOT_FOUND);
        refused.release();
    }

    @Test
    void aRemovedTargetsSessionIsAskedToLogOutAndMayDoSo() {
        Harness h = loggedIn();
        assertThat(transport.logoutTarget(Harness.TARGET, 2)).isEqualTo(1);
        AsyncMessage async = h.expect(AsyncMessage.class);
        assertThat(async.asyncEvent()).isEqualTo(AsyncEvent.LOGOUT_REQUEST);
        assertThat(async.parameter3()).isEqualTo(2);
        assertThat(async.lun()).isZero();
        async.release();
        h.send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x77, 0, h.cmdSN, async.statSN() + 1));
        LogoutResponse logout = h.expect(LogoutResponse.class);
        assertThat(logout.statSN()).isEqualTo(async.statSN() + 1);   // the Async Message took a StatSN
        logout.release();
        assertThat(transport.logoutTarget("iqn.2026-11.io.blocktarget:nobody", 2)).isZero();
    }

    @Test
    void aSessionThatDoesNotLogOutInTimeIsDropped() {
        Harness h = loggedIn();
        transport.logoutTarget(Harness.TARGET, 2);
        h.expect(AsyncMessage.class).release();
        clock.advanceMillis(1999); // virtual time: 1999 ms means 1999 ms however loaded the machine is
        assertThat(h.open()).isTrue();
        clock.advanceMillis(1);
        assertThat(h.open()).isFalse();
        assertThat(transport.sessions()).isEmpty();
    }

    @Test
    void sessionsAreListedAndDropped() {
        Harness h = loggedIn();
        List<IscsiTransport.SessionView> sessions = transport.sessions();
        assertThat(sessions).hasSize(1);
        IscsiTransport.SessionView s = sessions.getFirst();
        assertThat(s.tsih()).isEqualTo(h.tsih);
        assertThat(s.initiatorName()).isEqualTo(Harness.INITIATOR);
        assertThat(s.isid()).isEqualTo(Harness.ISID);
        assertThat(s.target()).isEqualTo(Harness.TARGET);
        assertThat(s.discovery()).isFalse();
        assertThat(s.parameters()).containsKeys("HeaderDigest", "MaxBurstLength", "ImmediateData");
        assertThat(transport.dropSession(h.tsih + 1, "test")).isFalse();
        assertThat(transport.dropSession(h.tsih, "test")).isTrue();
        assertThat(h.open()).isFalse();
        assertThat(transport.sessions()).isEmpty();
    }
}
