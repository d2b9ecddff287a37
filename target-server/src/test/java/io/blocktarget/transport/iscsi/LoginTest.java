package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

import static io.blocktarget.transport.iscsi.Harness.INITIATOR;
import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/** Login (RFC 7143 §6.3, §11.12-13): stages, status class/detail on failure, CHAP (§12.1.3). */
class LoginTest {
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 64);
    private Harness h;

    @AfterEach
    void tearDown() {
        if (h != null) {
            h.close();
        }
    }

    private Harness harness(IscsiSettings settings) {
        h = new Harness(Harness.transport(settings, target));
        return h;
    }

    private LoginResponse loginStep(boolean transit, LoginStage csg, LoginStage nsg, String... keys) {
        h.send(h.loginRequest(transit, csg, nsg, TextParameters.of(keys)));
        return h.expect(LoginResponse.class);
    }

    /** issue 29: a connection answers the tag of the portal group it arrived on, not the settings' default. */
    @Test
    void theTagIsThePortalGroupOfTheConnection() {
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target), 2);
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", TARGET, "SessionType", "Normal", "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(Harness.keys(r).get("TargetPortalGroupTag")).contains("2");
        r.release();
    }

    /** RFC 7143 §4.4.3: SSID = ISID + TPGT: the same ISID through two portal groups is two sessions (two paths). */
    @Test
    void theSameIsidThroughAnotherPortalGroupIsAnotherSession() {
        IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), target);
        try (Harness one = new Harness(transport, 1); Harness two = new Harness(transport, 2)) {
            LoginResponse r1 = one.login();
            LoginResponse r2 = two.login();
            assertThat(r1.status()).isEqualTo(LoginStatus.SUCCESS);
            assertThat(r2.status()).isEqualTo(LoginStatus.SUCCESS);
            r1.release();
            r2.release();
            assertThat(one.open()).as("not reinstated by the second login").isTrue();
            assertThat(transport.sessions()).hasSize(2);
        }
    }

    @Test
    void securityThenOperationalWithoutAuthentication() {
        harness(IscsiSettings.defaults());
        LoginResponse r1 = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", TARGET, "SessionType", "Normal", "AuthMethod", "CHAP,None");
        assertThat(r1.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(r1.flags()).isEqualTo(new LoginFlags(true, false, LoginStage.SECURITY_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION));
        TextParameters k1 = Harness.keys(r1);
        assertThat(k1.get("AuthMethod")).contains("None");
        assertThat(k1.get("TargetPortalGroupTag")).contains("1");
        assertThat(r1.tsih()).isZero();
        int firstStatSN = r1.statSN();
        r1.release();

        LoginResponse r2 = loginStep(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "HeaderDigest", "None", "DataDigest", "None", "MaxRecvDataSegmentLength", "262144",
                "ErrorRecoveryLevel", "0", "X-com.example.Key", "1");
        assertThat(r2.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(r2.flags().transit()).isTrue();
        assertThat(r2.flags().nsg()).isEqualTo(LoginStage.FULL_FEATURE_PHASE);
        assertThat(r2.tsih()).isNotZero();
        assertThat(r2.statSN()).isEqualTo(firstStatSN + 1);
        TextParameters k2 = Harness.keys(r2);
        assertThat(k2.get("HeaderDigest")).contains("None");
        assertThat(k2.get("ErrorRecoveryLevel")).contains("0");
        assertThat(k2.get("X-com.example.Key")).contains("NotUnderstood");
        assertThat(k2.get("MaxRecvDataSegmentLength")).contains("262144");
        assertThat(k2.get("TargetAlias")).contains("test");
        r2.release();
        assertThat(h.connection.state()).isEqualTo(ConnectionState.LOGGED_IN);
        assertThat(h.transport.registry().exists(h.connection.session().orElseThrow().tsih())).isTrue();
    }

    @Test
    void unknownTargetIs0203AndCloses() {
        harness(IscsiSettings.defaults());
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", "iqn.2026-11.io.blocktarget:nope", "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.NOT_FOUND);
        assertThat(r.status().statusClass()).isEqualTo(2);
        assertThat(r.status().statusDetail()).isEqualTo(3);
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void missingInitiatorNameIs0207() {
        harness(IscsiSettings.defaults());
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "TargetName", TARGET, "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.MISSING_PARAMETER);
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void missingTargetNameInNormalSessionIs0207() {
        harness(IscsiSettings.defaults());
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.MISSING_PARAMETER);
        r.release();
    }

    @Test
    void unsupportedVersionIs0205() {
        harness(IscsiSettings.defaults());
        h.send(new LoginRequest(new LoginFlags(true, false, LoginStage.SECURITY_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 2, 1, Harness.ISID, 0, 1, 0, 1, 0,
                Harness.text(TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET))));
        LoginResponse r = h.expect(LoginResponse.class);
        assertThat(r.status()).isEqualTo(LoginStatus.UNSUPPORTED_VERSION);
        r.release();
    }

    @Test
    void unknownTsihIs020aAndExistingTsihIsTooManyConnections() {
        harness(IscsiSettings.defaults());
        h.send(new LoginRequest(new LoginFlags(true, false, LoginStage.SECURITY_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, Harness.ISID, 77, 1, 0, 1, 0,
                Harness.text(TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET))));
        LoginResponse r = h.expect(LoginResponse.class);
        assertThat(r.status()).isEqualTo(LoginStatus.SESSION_DOES_NOT_EXIST);
        r.release();
    }

    @Test
    void bogusSessionTypeIsRefused() {
        harness(IscsiSettings.defaults());
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "SessionType", "Bogus");
        assertThat(r.status()).isEqualTo(LoginStatus.SESSION_TYPE_NOT_SUPPORTED);
        r.release();
    }

    @Test
    void continuedTextIsJoinedAcrossPdus() {
        harness(IscsiSettings.defaults());
        byte[] all = "InitiatorName=iqn.2026-11.org.example:initiator\0TargetName=iqn.2026-11.io.blocktarget:test\0"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int cut = 20; // inside the InitiatorName value
        h.send(new LoginRequest(new LoginFlags(false, true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, Harness.ISID, 0, 1, 0, 1, 0,
                Unpooled.wrappedBuffer(all, 0, cut)));
        LoginResponse empty = h.expect(LoginResponse.class);
        assertThat(empty.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(empty.data().readableBytes()).isZero();
        empty.release();
        h.send(new LoginRequest(new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, Harness.ISID, 0, 1, 0, 1, 0,
                Unpooled.wrappedBuffer(all, cut, all.length - cut)));
        LoginResponse done = h.expect(LoginResponse.class);
        assertThat(done.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(done.tsih()).isNotZero();
        done.release();
    }

    @Test
    void aTargetSideFailureDuringLoginIs0300() {
        RamTestTarget broken = new RamTestTarget(TARGET, 512, 8) {
            private int calls;

            @Override
            public String targetName() {
                if (++calls > 1) {
                    throw new IllegalStateException("device gone");
                }
                return super.targetName();
            }
        };
        h = new Harness(Harness.transport(IscsiSettings.defaults(), broken));
        LoginResponse r = loginStep(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", INITIATOR, "TargetName", TARGET);
        assertThat(r.status()).isEqualTo(LoginStatus.TARGET_ERROR);
        assertThat(r.status().statusClass()).isEqualTo(3);
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void nonLoginPduDuringLoginCloses() {
        harness(IscsiSettings.defaults());
        h.send(h.command(Harness.read10(0, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
        assertThat(h.receive()).isNull();
        assertThat(h.open()).isFalse();
    }

    // ---- CHAP ------------------------------------------------------------------------------------------

    private IscsiSettings chapSettings(Chap chap) {
        return IscsiSettings.defaults().withChap(Map.of(TARGET, chap));
    }

    /** Runs the CHAP exchange up to the response; returns the answer to CHAP_N/CHAP_R. */
    private LoginResponse chapLogin(String user, String secret, String... extra) throws Exception {
        LoginResponse r1 = loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", TARGET, "AuthMethod", "None,CHAP");
        assertThat(Harness.keys(r1).get("AuthMethod")).contains("CHAP");
        r1.release();
        LoginResponse r2 = loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "CHAP_A", "7,5");
        TextParameters k = Harness.keys(r2);
        r2.release();
        assertThat(k.get("CHAP_A")).contains("5");
        int id = Integer.parseInt(k.get("CHAP_I").orElseThrow());
        String c = k.get("CHAP_C").orElseThrow();
        assertThat(c).startsWith("0x");
        byte[] challenge = HexFormat.of().parseHex(c.substring(2));
        assertThat(challenge.length).isGreaterThanOrEqualTo(16);
        String[] keys = new String[4 + extra.length];
        keys[0] = "CHAP_N";
        keys[1] = user;
        keys[2] = "CHAP_R";
        keys[3] = "0x" + HexFormat.of().formatHex(md5(id, secret, challenge));
        System.arraycopy(extra, 0, keys, 4, extra.length);
        return loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, keys);
    }

    static byte[] md5(int id, String secret, byte[] challenge) throws Exception {
        MessageDigest md = MessageDigest.getInstance("MD5");
        md.update((byte) id);
        md.update(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        md.update(challenge);
        return md.digest();
    }

    @Test
    void chapWithTheRightSecretAuthenticates() throws Exception {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = chapLogin("alice", "alice-secret-1");
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(r.flags().nsg()).isEqualTo(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION);
        r.release();
        LoginResponse done = loginStep(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE);
        assertThat(done.status()).isEqualTo(LoginStatus.SUCCESS);
        assertThat(done.tsih()).isNotZero();
        done.release();
    }

    @Test
    void chapWithAWrongSecretIs0201() throws Exception {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = chapLogin("alice", "wrong-secret");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
        assertThat(h.open()).isFalse();
    }

    @Test
    void chapWithAWrongUserIs0201() throws Exception {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = chapLogin("mallory", "alice-secret-1");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void mutualChapAnswersTheInitiatorsChallenge() throws Exception {
        harness(chapSettings(Chap.mutual("alice", "alice-secret-1", "target-user", "target-secret-1")));
        byte[] ours = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
        LoginResponse r = chapLogin("alice", "alice-secret-1", "CHAP_I", "9", "CHAP_C",
                "0x" + HexFormat.of().formatHex(ours));
        assertThat(r.status()).isEqualTo(LoginStatus.SUCCESS);
        TextParameters k = Harness.keys(r);
        assertThat(k.get("CHAP_N")).contains("target-user");
        assertThat(k.get("CHAP_R")).contains("0x" + HexFormat.of().formatHex(md5(9, "target-secret-1", ours)));
        r.release();
    }

    @Test
    void mutualChapRequestedButNotConfiguredIs0201() throws Exception {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = chapLogin("alice", "alice-secret-1", "CHAP_I", "9", "CHAP_C", "0x0011223344556677");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void chapRequiredButOnlyNoneOfferedIs0201() {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", TARGET, "AuthMethod", "None");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void skippingSecurityWhenChapIsRequiredIs0201() {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        LoginResponse r = loginStep(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                "InitiatorName", INITIATOR, "TargetName", TARGET);
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void chapWithoutMd5IsRefused() {
        harness(chapSettings(Chap.oneWay("alice", "alice-secret-1")));
        loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "InitiatorName", INITIATOR, "TargetName", TARGET, "AuthMethod", "CHAP").release();
        LoginResponse r = loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                "CHAP_A", "6,7");
        assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        r.release();
    }

    @Test
    void sessionReinstatementClosesTheOldSession() {
        IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), target);
        try (Harness first = new Harness(transport); Harness second = new Harness(transport)) {
            first.login().release();
            int oldTsih = first.tsih;
            second.login().release();
            assertThat(second.tsih).isNotEqualTo(oldTsih);
            assertThat(first.open()).isFalse();
            assertThat(second.open()).isTrue();
            assertThat(transport.registry().exists(oldTsih)).isFalse();
            assertThat(transport.registry().exists(second.tsih)).isTrue();
        }
    }
}
