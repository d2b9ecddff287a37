package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TextResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.blocktarget.transport.iscsi.Harness.INITIATOR;
import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14 for iSCSI: per-target initiator lists (RFC 7143 §11.13.5 status 0202, and SendTargets shows only what the
 * initiator may log in to) and CHAP / mutual CHAP on discovery sessions (§12.1.3 with the server-wide
 * {@code discovery-chap}). Login vectors through the real connection on an embedded channel.
 */
class AccessControlTest {
    private static final String OTHER = "iqn.2026-11.io.blocktarget:other";
    private static final String STRANGER = "iqn.2026-11.org.example:stranger";
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 64);
    private final RamTestTarget other = new RamTestTarget(OTHER, 512, 8);
    private final List<Harness> harnesses = new ArrayList<>();

    @AfterEach
    void tearDown() {
        harnesses.forEach(Harness::close);
    }

    private Harness harness(IscsiTransport transport) {
        Harness h = new Harness(transport);
        harnesses.add(h);
        return h;
    }

    private static LoginResponse step(Harness h, boolean transit, LoginStage csg, LoginStage nsg, String... keys) {
        h.send(h.loginRequest(transit, csg, nsg, TextParameters.of(keys)));
        return h.expect(LoginResponse.class);
    }

    private static IscsiSettings onlyInitiatorOnTest() {
        return IscsiSettings.defaults().withInitiators(Map.of(TARGET, Set.of(INITIATOR)));
    }

    // ---- initiator lists --------------------------------------------------------------------------------------

    @Test
    void anInitiatorOnTheListLogsIn() {
        Harness h = harness(Harness.transport(onlyInitiatorOnTest(), target, other));
        LoginResponse r = h.login();
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
    }

    @Test
    void anInitiatorNotOnTheListIs0202AuthorizationFailureAndTheConnectionCloses() {
        Harness h = harness(Harness.transport(onlyInitiatorOnTest(), target, other));
        LoginResponse r = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", STRANGER, "TargetName", TARGET, "AuthMethod", "None");
        // §11.13.5: class 2 (initiator error), detail 2 "Authorization failure", not 0201 (authentication failure).
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHORIZATION_FAILURE);
        assertThat(r.status().statusClass()).isEqualTo(2);
        assertThat(r.status().statusDetail()).isEqualTo(2);
        assertThat(r.tsih()).isZero();
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void theListIsCheckedBeforeChapSoAStrangerIsNeverChallenged() {
        IscsiSettings settings = onlyInitiatorOnTest().withChap(Map.of(TARGET, Chap.oneWay("alice", "alice-secret-1")));
        Harness h = harness(Harness.transport(settings, target));
        LoginResponse r = step(h, false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "InitiatorName", STRANGER, "TargetName", TARGET, "AuthMethod", "CHAP");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHORIZATION_FAILURE);
        assertThat(Harness.keys(r).get("CHAP_A")).isEmpty();
        r.release();
    }

    @Test
    void aTargetWithoutAListAdmitsAStranger() {
        Harness h = harness(Harness.transport(onlyInitiatorOnTest(), target, other));
        LoginResponse r = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", STRANGER, "TargetName", OTHER, "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
    }

    @Test
    void aRefusedStrangerLeavesAnotherSessionRunning() {
        IscsiTransport transport = Harness.transport(onlyInitiatorOnTest(), target);
        Harness good = harness(transport);
        LoginResponse ok = good.login();
        assertThat(ok.status()).isEqualTo(LoginStatus.SUCCESS);
        ok.release();
        Harness bad = harness(transport);
        step(bad, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", STRANGER, "TargetName", TARGET, "AuthMethod", "None").release();
        assertThat(bad.open()).isFalse();
        assertThat(good.open()).isTrue();
        assertThat(good.connection.state()).isEqualTo(ConnectionState.LOGGED_IN);
    }

    private static String sendTargets(Harness h, String initiator) {
        LoginResponse login = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", initiator, "SessionType", "Discovery", "AuthMethod", "None");
        assertThat(login.status()).isEqualTo(LoginStatus.SUCCESS);
        login.release();
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
    void sendTargetsHidesTargetsTheInitiatorMayNotLogInTo() {
        IscsiTransport transport = Harness.transport(onlyInitiatorOnTest(), target, other);
        assertThat(sendTargets(harness(transport), STRANGER))
                .isEqualTo("TargetName=" + OTHER + "\0TargetAddress=127.0.0.1:3260,1\0");
        assertThat(sendTargets(harness(transport), INITIATOR)).isEqualTo(
                "TargetName=" + OTHER + "\0TargetAddress=127.0.0.1:3260,1\0"
                        + "TargetName=" + TARGET + "\0TargetAddress=127.0.0.1:3260,1\0");
    }

    @Test
    void sendTargetsNamingAHiddenTargetAnswersNothing() {
        Harness h = harness(Harness.transport(onlyInitiatorOnTest(), target, other));
        LoginResponse login = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", STRANGER, "SessionType", "Discovery", "AuthMethod", "None");
        login.release();
        h.send(new TextRequest(true, true, false, 0, 0x20, Bhs.RESERVED_TAG, h.cmdSN, 0,
                Harness.text(TextParameters.of("SendTargets", TARGET))));
        TextResponse text = h.expect(TextResponse.class);
        assertThat(Harness.ascii(text.data())).isEmpty();
        text.release();
    }

    @Test
    void aListChangedAtRuntimeAppliesToTheNextLogin() {
        IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), target);
        transport.targets(List.of(target), Map.of(), Map.of(TARGET, Set.of(INITIATOR)));
        Harness h = harness(transport);
        LoginResponse r = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", STRANGER, "TargetName", TARGET, "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHORIZATION_FAILURE);
        r.release();
    }

    // ---- discovery CHAP ---------------------------------------------------------------------------------------

    private static IscsiSettings discoveryChap(Chap chap) {
        return IscsiSettings.defaults().withDiscoveryChap(Optional.of(chap));
    }

    /** Discovery login through CHAP up to the answer to CHAP_N / CHAP_R. */
    private static LoginResponse discoveryChapLogin(Harness h, String user, String secret, String... extra)
            throws Exception {
        LoginResponse r1 = step(h, false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "InitiatorName", INITIATOR, "SessionType", "Discovery", "AuthMethod", "CHAP,None");
        assertThat(r1.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(Harness.keys(r1).get("AuthMethod")).contains("CHAP");
        r1.release();
        LoginResponse r2 = step(h, false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "CHAP_A", "5");
        TextParameters k = Harness.keys(r2);
        r2.release();
        int id = Integer.parseInt(k.get("CHAP_I").orElseThrow());
        byte[] challenge = HexFormat.of().parseHex(k.get("CHAP_C").orElseThrow().substring(2));
        List<String> keys = new ArrayList<>(List.of("CHAP_N", user, "CHAP_R",
                "0x" + HexFormat.of().formatHex(LoginTest.md5(id, secret, challenge))));
        keys.addAll(List.of(extra));
        return step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                keys.toArray(String[]::new));
    }

    @Test
    void discoveryWithTheRightChapSecretListsTargets() throws Exception {
        Harness h = harness(Harness.transport(discoveryChap(Chap.oneWay("disc", "discovery-secret-1")), target));
        LoginResponse r = discoveryChapLogin(h, "disc", "discovery-secret-1");
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(r.tsih()).isNotZero();
        r.release();
        h.send(new TextRequest(true, true, false, 0, 0x20, Bhs.RESERVED_TAG, h.cmdSN, 0,
                Harness.text(TextParameters.of("SendTargets", "All"))));
        TextResponse text = h.expect(TextResponse.class);
        assertThat(Harness.ascii(text.data())).startsWith("TargetName=" + TARGET + "\0");
        text.release();
    }

    @Test
    void discoveryWithAWrongChapSecretIs0201() throws Exception {
        Harness h = harness(Harness.transport(discoveryChap(Chap.oneWay("disc", "discovery-secret-1")), target));
        LoginResponse r = discoveryChapLogin(h, "disc", "not-the-secret");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void discoveryWithoutChapWhenItIsRequiredIs0201() {
        Harness h = harness(Harness.transport(discoveryChap(Chap.oneWay("disc", "discovery-secret-1")), target));
        LoginResponse r = step(h, true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", INITIATOR, "SessionType", "Discovery", "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void discoverySkippingTheSecurityStageWhenChapIsRequiredIs0201() {
        Harness h = harness(Harness.transport(discoveryChap(Chap.oneWay("disc", "discovery-secret-1")), target));
        LoginResponse r = step(h, true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", INITIATOR, "SessionType", "Discovery");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void discoveryMutualChapAnswersTheInitiatorsChallenge() throws Exception {
        Harness h = harness(Harness.transport(discoveryChap(Chap.mutual("disc", "discovery-secret-1", "portal",
                "portal-secret-22")), target));
        byte[] ours = HexFormat.of().parseHex("0f1e2d3c4b5a69788796a5b4c3d2e1f0");
        LoginResponse r = discoveryChapLogin(h, "disc", "discovery-secret-1", "CHAP_I", "77", "CHAP_C",
                "0x" + HexFormat.of().formatHex(ours));
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        TextParameters k = Harness.keys(r);
        assertThat(k.get("CHAP_N")).contains("portal");
        assertThat(k.get("CHAP_R")).contains("0x" + HexFormat.of().formatHex(LoginTest.md5(77, "portal-secret-22",
                ours)));
        r.release();
    }

    @Test
    void discoveryChapDoesNotApplyToNormalSessions() {
        Harness h = harness(Harness.transport(discoveryChap(Chap.oneWay("disc", "discovery-secret-1")), target));
        LoginResponse r = h.login();
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        r.release();
    }

    @Test
    void targetChapDoesNotApplyToDiscovery() {
        IscsiSettings settings = IscsiSettings.defaults().withChap(Map.of(TARGET, Chap.oneWay("alice",
                "alice-secret-1")));
        Harness h = harness(Harness.transport(settings, target));
        assertThat(sendTargets(h, INITIATOR)).startsWith("TargetName=" + TARGET + "\0");
    }
}
