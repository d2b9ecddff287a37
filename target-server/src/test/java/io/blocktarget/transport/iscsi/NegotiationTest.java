package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.TextParameters;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.blocktarget.transport.iscsi.Harness.INITIATOR;
import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/** Operational negotiation (RFC 7143 §6.2, §13) through {@link LoginExchange}, with the cross-key rules. */
class NegotiationTest {
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 8);

    private LoginStep.Complete negotiate(IscsiSettings settings, String... keys) {
        LoginExchange login = new LoginExchange(settings, Map.of(TARGET, target), tsih -> false, "test");
        TextParameters offered = TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET);
        for (int i = 0; i < keys.length; i += 2) {
            offered = offered.with(keys[i], keys[i + 1]);
        }
        LoginRequest request = new LoginRequest(new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, Harness.ISID, 0, 1, 0, 1, 0, Harness.text(offered));
        try {
            LoginStep step = login.handle(request);
            assertThat(step).isInstanceOf(LoginStep.Complete.class);
            assertThat(login.state()).isEqualTo(LoginState.COMPLETE);
            return (LoginStep.Complete) step;
        } finally {
            request.release();
        }
    }

    @Test
    void numericKeysTakeTheMinimumOfOfferAndPreference() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults().withBursts(131072, 65536, 2),
                "MaxBurstLength", "16776192", "FirstBurstLength", "262144", "MaxOutstandingR2T", "8");
        assertThat(c.keys().get("MaxBurstLength")).contains("131072");
        assertThat(c.keys().get("FirstBurstLength")).contains("65536");
        assertThat(c.keys().get("MaxOutstandingR2T")).contains("2");
        OperationalParameters p = c.result().parameters();
        assertThat(p.maxBurstLength()).isEqualTo(131072);
        assertThat(p.firstBurstLength()).isEqualTo(65536);
        assertThat(p.maxOutstandingR2T()).isEqualTo(2);
    }

    @Test
    void firstBurstLengthIsCappedAtTheNegotiatedMaxBurstLength() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "MaxBurstLength", "16384",
                "FirstBurstLength", "65536");
        assertThat(c.keys().get("MaxBurstLength")).contains("16384");
        assertThat(c.keys().get("FirstBurstLength")).contains("16384");
        assertThat(c.result().parameters().firstBurstLength()).isEqualTo(16384);
    }

    @Test
    void firstBurstLengthIsIrrelevantWithInitialR2tYesAndImmediateDataNo() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "InitialR2T", "Yes", "ImmediateData", "No",
                "FirstBurstLength", "65536");
        assertThat(c.keys().get("FirstBurstLength")).contains("Irrelevant");
        assertThat(c.keys().get("InitialR2T")).contains("Yes");
        assertThat(c.keys().get("ImmediateData")).contains("No");
        assertThat(c.result().parameters().initialR2T()).isTrue();
        assertThat(c.result().parameters().immediateData()).isFalse();
    }

    @Test
    void booleansFollowOrAndAnd() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "InitialR2T", "No", "ImmediateData", "Yes",
                "DataPDUInOrder", "No", "DataSequenceInOrder", "No");
        assertThat(c.keys().get("InitialR2T")).contains("No");
        assertThat(c.keys().get("ImmediateData")).contains("Yes");
        // OR with our "Yes": we keep data in order whatever the initiator offers.
        assertThat(c.keys().get("DataPDUInOrder")).contains("Yes");
        assertThat(c.keys().get("DataSequenceInOrder")).contains("Yes");
    }

    @Test
    void digestsFollowTheInitiatorsOrder() {
        LoginStep.Complete crc = negotiate(IscsiSettings.defaults(), "HeaderDigest", "CRC32C,None",
                "DataDigest", "None,CRC32C");
        assertThat(crc.result().parameters().headerDigest()).isEqualTo(Digest.CRC32C);
        assertThat(crc.result().parameters().dataDigest()).isEqualTo(Digest.NONE);
        LoginStep.Complete bad = negotiate(IscsiSettings.defaults(), "HeaderDigest", "MD5");
        assertThat(bad.keys().get("HeaderDigest")).contains("Reject");
        assertThat(bad.result().parameters().headerDigest()).isEqualTo(Digest.NONE);
    }

    @Test
    void errorRecoveryLevelAndMaxConnectionsAreCappedAndTime2RetainIsZero() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "ErrorRecoveryLevel", "2", "MaxConnections", "8",
                "DefaultTime2Retain", "20", "DefaultTime2Wait", "2");
        assertThat(c.keys().get("ErrorRecoveryLevel")).contains("0");
        assertThat(c.keys().get("MaxConnections")).contains("1");
        assertThat(c.keys().get("DefaultTime2Retain")).contains("0");
        assertThat(c.keys().get("DefaultTime2Wait")).contains("2");
    }

    @Test
    void unknownIllegalAndTargetOnlyKeys() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "X-org.example.Thing", "1",
                "MaxBurstLength", "banana", "TargetAlias", "mine", "IFMarkInt", "2048~8192", "OFMarker", "No");
        assertThat(c.keys().get("X-org.example.Thing")).contains("NotUnderstood");
        assertThat(c.keys().get("MaxBurstLength")).contains("Reject");
        // TargetAlias offered by an initiator is rejected; ours is still declared.
        assertThat(c.keys().get("IFMarkInt")).contains("Reject");
        assertThat(c.keys().get("OFMarker")).contains("No");
        assertThat(c.result().parameters().maxBurstLength()).isEqualTo(262144);
    }

    @Test
    void initiatorsMaxRecvDataSegmentLengthBoundsWhatWeSendAndOursIsDeclared() {
        LoginStep.Complete c = negotiate(IscsiSettings.defaults(), "MaxRecvDataSegmentLength", "32768");
        assertThat(c.result().parameters().initiatorMaxRecvDataSegmentLength()).isEqualTo(32768);
        assertThat(c.keys().get("MaxRecvDataSegmentLength")).contains("262144");
        assertThat(c.keys().get("TargetPortalGroupTag")).contains("1");
    }

    @Test
    void aChangedIsidDuringLoginIsAnInitiatorError() {
        LoginExchange login = new LoginExchange(IscsiSettings.defaults(), Map.of(TARGET, target), tsih -> false, "t");
        LoginRequest first = new LoginRequest(new LoginFlags(false, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, 1, 0, 1, 0, 1, 0,
                Harness.text(TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET)));
        LoginRequest second = new LoginRequest(new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, 2, 0, 1, 0, 1, 0, Harness.text(TextParameters.EMPTY));
        assertThat(login.handle(first)).isInstanceOf(LoginStep.Respond.class);
        LoginStep step = login.handle(second);
        assertThat(step).isInstanceOfSatisfying(LoginStep.Fail.class,
                f -> assertThat(f.status()).isEqualTo(LoginStatus.INITIATOR_ERROR));
        assertThat(login.state()).isEqualTo(LoginState.FAILED);
        first.release();
        second.release();
    }

    @Test
    void malformedTextIsAnInitiatorError() {
        LoginExchange login = new LoginExchange(IscsiSettings.defaults(), Map.of(TARGET, target), tsih -> false, "t");
        LoginRequest request = new LoginRequest(new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE), 0, 0, 1, 0, 1, 0, 1, 0,
                io.netty.buffer.Unpooled.copiedBuffer("InitiatorName\0", java.nio.charset.StandardCharsets.UTF_8));
        LoginStep step = login.handle(request);
        assertThat(step).isInstanceOfSatisfying(LoginStep.Fail.class,
                f -> assertThat(f.status()).isEqualTo(LoginStatus.INITIATOR_ERROR));
        request.release();
    }
}
