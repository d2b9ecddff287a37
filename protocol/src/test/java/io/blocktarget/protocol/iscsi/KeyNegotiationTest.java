package io.blocktarget.protocol.iscsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** One-key negotiation (RFC 7143 §6.2, §13): one parameterized test per result function. */
class KeyNegotiationTest {
    private static final String NONE = "-";

    private static TargetPolicy policy(String key, String preference, SessionType type, LoginStage stage,
                                       TargetPolicy.Connection connection) {
        Map<IscsiKey, String> prefs = new HashMap<>();
        if (!preference.equals(NONE)) {
            prefs.put(IscsiKey.fromKeyName(key).orElseThrow(), preference);
        }
        return new TargetPolicy(prefs, type, stage, connection);
    }

    private static TargetPolicy operational(String key, String preference) {
        return policy(key, preference, SessionType.NORMAL, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                TargetPolicy.Connection.LEADING);
    }

    /** The text the target sends back, or "(none)". */
    private static String answer(String key, String offered, TargetPolicy policy) {
        return KeyNegotiation.negotiate(key, offered, policy).responseValue().orElse("(none)");
    }

    @ParameterizedTest(name = "{0}={1} vs target {2} -> {3}")
    @CsvSource({
            "MaxBurstLength, 262144, 1048576, 262144",
            "MaxBurstLength, 16776192, 1048576, 1048576",
            "MaxBurstLength, 16776192, -, 16776192",          // no preference: accept the offer
            "MaxBurstLength, 0x40000, 1048576, 262144",       // hex-constant
            "MaxBurstLength, 511, 1048576, Reject",           // below 512
            "MaxBurstLength, 16777216, -, Reject",            // above 2^24-1
            "MaxBurstLength, 12ab, -, Reject",
            "MaxBurstLength, '', -, Reject",
            "FirstBurstLength, 65536, 262144, 65536",
            "MaxConnections, 8, 1, 1",
            "MaxOutstandingR2T, 0, -, Reject",
            "ErrorRecoveryLevel, 2, 0, 0",
            "ErrorRecoveryLevel, 3, 0, Reject",
            "DefaultTime2Retain, 20, 0, 0",
            "iSCSIProtocolLevel, 2, 1, 1"})
    void minimum(String key, String offered, String preference, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.MIN);
        assertThat(answer(key, offered, operational(key, preference))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}={1} vs target {2} -> {3}")
    @CsvSource({
            "DefaultTime2Wait, 2, 5, 5",
            "DefaultTime2Wait, 10, 5, 10",
            "DefaultTime2Wait, 0, -, 0",
            "DefaultTime2Wait, 3601, -, Reject"})
    void maximum(String key, String offered, String preference, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.MAX);
        assertThat(answer(key, offered, operational(key, preference))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}={1} vs target {2} -> {3}")
    @CsvSource({
            "InitialR2T, Yes, No, Yes",
            "InitialR2T, No, No, No",
            "InitialR2T, No, Yes, Yes",
            "InitialR2T, No, -, No",
            "DataPDUInOrder, No, Yes, Yes",
            "DataSequenceInOrder, Yes, No, Yes",
            "InitialR2T, yes, -, Reject"})
    void or(String key, String offered, String preference, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.OR);
        assertThat(answer(key, offered, operational(key, preference))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}={1} vs target {2} -> {3}")
    @CsvSource({
            "ImmediateData, Yes, Yes, Yes",
            "ImmediateData, Yes, No, No",
            "ImmediateData, No, Yes, No",
            "ImmediateData, Yes, -, Yes",
            "ImmediateData, Maybe, Yes, Reject"})
    void and(String key, String offered, String preference, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.AND);
        assertThat(answer(key, offered, operational(key, preference))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}={1} vs target {2} -> {3}")
    @CsvSource({
            "HeaderDigest, 'CRC32C,None', None, None",
            "HeaderDigest, 'CRC32C,None', 'None,CRC32C', CRC32C",  // the initiator's order wins
            "HeaderDigest, 'None,CRC32C', 'CRC32C,None', None",
            "HeaderDigest, None, CRC32C, Reject",
            "DataDigest, 'MD5,CRC32C', -, CRC32C",                 // unknown values are skipped
            "DataDigest, 'MD5', -, Reject",
            "TaskReporting, 'FastAbort,RFC3720', RFC3720, RFC3720"})
    void firstAcceptableFromList(String key, String offered, String preference, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.LIST);
        assertThat(answer(key, offered, operational(key, preference))).isEqualTo(expected);
    }

    @Test
    void authMethodIsAListNegotiatedInTheSecurityStage() {
        TargetPolicy security = policy("AuthMethod", "None", SessionType.NORMAL, LoginStage.SECURITY_NEGOTIATION,
                TargetPolicy.Connection.LEADING);
        assertThat(answer("AuthMethod", "CHAP,None", security)).isEqualTo("None");
        assertThat(answer("AuthMethod", "CHAP", security)).isEqualTo("Reject");
        assertThat(answer("AuthMethod", "None", operational("AuthMethod", "None"))).isEqualTo("Reject");
        assertThat(KeyNegotiation.negotiate("CHAP_A", "5", security)).isEqualTo(new KeyAnswer.Declared("5"));
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource({
            "MaxRecvDataSegmentLength, 262144, (none)",
            "MaxRecvDataSegmentLength, 511, Reject",
            "MaxRecvDataSegmentLength, 16777216, Reject",
            "SessionType, Discovery, (none)",
            "SessionType, Normal, (none)",
            "SessionType, Weird, Reject",
            "InitiatorName, iqn.1994-05.com.redhat:abc, (none)",
            "TargetName, '', Reject",
            "InitiatorAlias, '', (none)"})
    void declarative(String key, String offered, String expected) {
        assertThat(IscsiKey.fromKeyName(key).orElseThrow().result()).isEqualTo(IscsiKey.Result.DECLARATIVE);
        assertThat(answer(key, offered, operational(key, NONE))).isEqualTo(expected);
    }

    @Test
    void declaredValuesAreReportedForTheLoginLayer() {
        assertThat(KeyNegotiation.negotiate("MaxRecvDataSegmentLength", "0x2000", operational("SessionType", NONE)))
                .isEqualTo(new KeyAnswer.Declared("8192"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"X-com.example.Foo", "X#ImaginaryExtension", "Bogus", "headerdigest"})
    void unknownKeysAreNotUnderstood(String key) {
        KeyAnswer a = KeyNegotiation.negotiate(key, "1", operational("SessionType", NONE));
        assertThat(a).isInstanceOf(KeyAnswer.NotUnderstood.class);
        assertThat(a.responseValue()).contains("NotUnderstood");
    }

    @Test
    void sessionKeysAreIrrelevantInDiscoverySessions() {
        TargetPolicy discovery = policy("MaxBurstLength", NONE, SessionType.DISCOVERY,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, TargetPolicy.Connection.LEADING);
        for (String key : new String[] {"MaxBurstLength", "FirstBurstLength", "InitialR2T", "ImmediateData",
                "MaxOutstandingR2T", "DataPDUInOrder", "DataSequenceInOrder", "MaxConnections"}) {
            assertThat(answer(key, "1", discovery)).as(key).isEqualTo("Irrelevant");
        }
        assertThat(answer("HeaderDigest", "None", discovery)).isEqualTo("None");
        assertThat(answer("ErrorRecoveryLevel", "0", discovery)).isEqualTo("0");
    }

    @Test
    void keysOutOfPlaceAreRejected() {
        TargetPolicy additional = policy("MaxBurstLength", NONE, SessionType.NORMAL,
                LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, TargetPolicy.Connection.ADDITIONAL);
        TargetPolicy fullFeature = policy("MaxBurstLength", NONE, SessionType.NORMAL, LoginStage.FULL_FEATURE_PHASE,
                TargetPolicy.Connection.LEADING);
        assertThat(answer("MaxBurstLength", "65536", additional)).isEqualTo("Reject");        // LO
        assertThat(answer("MaxBurstLength", "65536", fullFeature)).isEqualTo("Reject");       // LO
        assertThat(answer("HeaderDigest", "None", fullFeature)).isEqualTo("Reject");          // IO
        assertThat(answer("HeaderDigest", "None", additional)).isEqualTo("None");             // IO, any connection
        assertThat(answer("SendTargets", "All", operational("SendTargets", NONE))).isEqualTo("Reject"); // FFPO
        assertThat(KeyNegotiation.negotiate("SendTargets", "All", fullFeature)).isEqualTo(new KeyAnswer.Declared("All"));
        assertThat(answer("MaxRecvDataSegmentLength", "65536", fullFeature)).isEqualTo("(none)"); // ALL
        assertThat(answer("TargetAlias", "x", operational("TargetAlias", NONE))).isEqualTo("Reject"); // target only
        assertThat(answer("TargetPortalGroupTag", "1", operational("TargetAlias", NONE))).isEqualTo("Reject");
        assertThat(answer("CHAP_N", "user", operational("TargetAlias", NONE))).isEqualTo("Reject"); // security only
    }

    @Test
    void obsoleteMarkerKeys() {
        TargetPolicy p = operational("SessionType", NONE);
        assertThat(answer("IFMarker", "No", p)).isEqualTo("No");
        assertThat(answer("OFMarker", "Yes", p)).isEqualTo("No");
        assertThat(answer("IFMarkInt", "2048~8192", p)).isEqualTo("Reject");
        assertThat(answer("OFMarkInt", "2048", p)).isEqualTo("Reject");
    }

    @Test
    void keyTableIsConsistent() {
        for (IscsiKey key : IscsiKey.values()) {
            assertThat(IscsiKey.fromKeyName(key.keyName())).contains(key);
            if (key.type() == IscsiKey.ValueType.NUMERIC) {
                assertThat(key.min()).as(key.keyName()).isLessThanOrEqualTo(key.max());
                key.defaultValue().ifPresent(d -> assertThat(KeyNegotiation.parseNumber(d).orElseThrow())
                        .as(key.keyName()).isBetween(key.min(), key.max()));
            }
            if (key.type() == IscsiKey.ValueType.LIST) {
                assertThat(key.legalValues()).as(key.keyName()).isNotEmpty();
                key.defaultValue().ifPresent(d -> assertThat(key.legalValues()).contains(d));
            }
        }
        assertThat(Arrays.stream(IscsiKey.values()).map(IscsiKey::keyName)).contains("HeaderDigest", "DataDigest",
                "MaxConnections", "SendTargets", "TargetName", "InitiatorName", "TargetAlias", "InitiatorAlias",
                "TargetAddress", "TargetPortalGroupTag", "InitialR2T", "ImmediateData", "MaxRecvDataSegmentLength",
                "MaxBurstLength", "FirstBurstLength", "DefaultTime2Wait", "DefaultTime2Retain", "MaxOutstandingR2T",
                "DataPDUInOrder", "DataSequenceInOrder", "ErrorRecoveryLevel", "SessionType", "AuthMethod", "CHAP_A",
                "CHAP_I", "CHAP_C", "CHAP_N", "CHAP_R", "TaskReporting", "iSCSIProtocolLevel");
        assertThat(IscsiKey.MAX_BURST_LENGTH.scope()).isEqualTo(IscsiKey.Scope.SESSION);
        assertThat(IscsiKey.MAX_RECV_DATA_SEGMENT_LENGTH.scope()).isEqualTo(IscsiKey.Scope.CONNECTION);
        assertThat(IscsiKey.MAX_RECV_DATA_SEGMENT_LENGTH.defaultValue()).contains("8192");
        assertThat(KeyNegotiation.parseNumber("0x")).isEmpty();
        assertThat(KeyNegotiation.parseNumber("1234567890123")).isEmpty();
        assertThat(KeyNegotiation.parseNumber("\u0661")).as("non-ASCII digit").isEmpty();
    }
}
