package io.blocktarget.protocol.iscsi;

import java.util.List;
import java.util.Optional;

/**
 * Every login/text key of RFC 7143 §12-§13 as a table row: value type, default, where it may be used,
 * scope, result function and legal range or values. Keys not in this table — including vendor keys
 * "X-..." and registered extensions "X#..." (§13.5.4) we do not implement — are answered NotUnderstood.
 */
public enum IscsiKey {
    HEADER_DIGEST("HeaderDigest", ValueType.LIST, Result.LIST, Use.IO, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            "None", 0, 0, List.of("CRC32C", "None")),
    DATA_DIGEST("DataDigest", ValueType.LIST, Result.LIST, Use.IO, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            "None", 0, 0, List.of("CRC32C", "None")),
    MAX_CONNECTIONS("MaxConnections", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "1", 1, 65535, List.of()),
    SEND_TARGETS("SendTargets", ValueType.TEXT, Result.NONE, Use.FFPO, Scope.SESSION, Sender.INITIATOR,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    TARGET_NAME("TargetName", ValueType.TEXT, Result.DECLARATIVE, Use.IO, Scope.SESSION, Sender.BOTH,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    INITIATOR_NAME("InitiatorName", ValueType.TEXT, Result.DECLARATIVE, Use.IO, Scope.SESSION, Sender.INITIATOR,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    TARGET_ALIAS("TargetAlias", ValueType.TEXT, Result.DECLARATIVE, Use.ALL, Scope.SESSION, Sender.TARGET,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    INITIATOR_ALIAS("InitiatorAlias", ValueType.TEXT, Result.DECLARATIVE, Use.ALL, Scope.SESSION, Sender.INITIATOR,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    TARGET_ADDRESS("TargetAddress", ValueType.TEXT, Result.DECLARATIVE, Use.ALL, Scope.SESSION, Sender.TARGET,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    TARGET_PORTAL_GROUP_TAG("TargetPortalGroupTag", ValueType.NUMERIC, Result.DECLARATIVE, Use.IO, Scope.SESSION,
            Sender.TARGET, Relevance.ALWAYS, null, 0, 65535, List.of()),
    INITIAL_R2T("InitialR2T", ValueType.BOOLEAN, Result.OR, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "Yes", 0, 0, List.of()),
    IMMEDIATE_DATA("ImmediateData", ValueType.BOOLEAN, Result.AND, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "Yes", 0, 0, List.of()),
    MAX_RECV_DATA_SEGMENT_LENGTH("MaxRecvDataSegmentLength", ValueType.NUMERIC, Result.DECLARATIVE, Use.ALL,
            Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS, "8192", 512, 16_777_215, List.of()),
    MAX_BURST_LENGTH("MaxBurstLength", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "262144", 512, 16_777_215, List.of()),
    FIRST_BURST_LENGTH("FirstBurstLength", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "65536", 512, 16_777_215, List.of()),
    DEFAULT_TIME2WAIT("DefaultTime2Wait", ValueType.NUMERIC, Result.MAX, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.ALWAYS, "2", 0, 3600, List.of()),
    DEFAULT_TIME2RETAIN("DefaultTime2Retain", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.ALWAYS, "20", 0, 3600, List.of()),
    MAX_OUTSTANDING_R2T("MaxOutstandingR2T", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "1", 1, 65535, List.of()),
    DATA_PDU_IN_ORDER("DataPDUInOrder", ValueType.BOOLEAN, Result.OR, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "Yes", 0, 0, List.of()),
    DATA_SEQUENCE_IN_ORDER("DataSequenceInOrder", ValueType.BOOLEAN, Result.OR, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "Yes", 0, 0, List.of()),
    ERROR_RECOVERY_LEVEL("ErrorRecoveryLevel", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.ALWAYS, "0", 0, 2, List.of()),
    SESSION_TYPE("SessionType", ValueType.LIST, Result.DECLARATIVE, Use.LO, Scope.SESSION, Sender.INITIATOR,
            Relevance.ALWAYS, "Normal", 0, 0, List.of("Discovery", "Normal")),
    AUTH_METHOD("AuthMethod", ValueType.LIST, Result.LIST, Use.SECURITY, Scope.CONNECTION, Sender.BOTH,
            Relevance.ALWAYS, "None", 0, 0, List.of("KRB5", "SRP", "CHAP", "None")),
    CHAP_A("CHAP_A", ValueType.AUTH, Result.NONE, Use.SECURITY, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            null, 0, 0, List.of()),
    CHAP_I("CHAP_I", ValueType.AUTH, Result.NONE, Use.SECURITY, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            null, 0, 0, List.of()),
    CHAP_C("CHAP_C", ValueType.AUTH, Result.NONE, Use.SECURITY, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            null, 0, 0, List.of()),
    CHAP_N("CHAP_N", ValueType.AUTH, Result.NONE, Use.SECURITY, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            null, 0, 0, List.of()),
    CHAP_R("CHAP_R", ValueType.AUTH, Result.NONE, Use.SECURITY, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            null, 0, 0, List.of()),
    TASK_REPORTING("TaskReporting", ValueType.LIST, Result.LIST, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.NORMAL_SESSION, "RFC3720", 0, 0, List.of("RFC3720", "ResponseFence", "FastAbort")),
    ISCSI_PROTOCOL_LEVEL("iSCSIProtocolLevel", ValueType.NUMERIC, Result.MIN, Use.LO, Scope.SESSION, Sender.BOTH,
            Relevance.ALWAYS, "1", 0, 31, List.of()),
    /** Obsoleted by RFC 7143 §13.26; a responder answers "Reject" or (MAY) "No" — we answer "No". */
    IF_MARKER("IFMarker", ValueType.OBSOLETE, Result.NONE, Use.IO, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            "No", 0, 0, List.of()),
    OF_MARKER("OFMarker", ValueType.OBSOLETE, Result.NONE, Use.IO, Scope.CONNECTION, Sender.BOTH, Relevance.ALWAYS,
            "No", 0, 0, List.of()),
    /** Obsoleted by RFC 7143 §13.26; the responder MUST answer "Reject". */
    IF_MARK_INT("IFMarkInt", ValueType.OBSOLETE, Result.NONE, Use.IO, Scope.CONNECTION, Sender.BOTH,
            Relevance.ALWAYS, null, 0, 0, List.of()),
    OF_MARK_INT("OFMarkInt", ValueType.OBSOLETE, Result.NONE, Use.IO, Scope.CONNECTION, Sender.BOTH,
            Relevance.ALWAYS, null, 0, 0, List.of());

    /** The kind of value (§6.1, §13). */
    public enum ValueType {
        /** Decimal or 0x-hex number inside [min, max]. */
        NUMERIC,
        /** "Yes" or "No". */
        BOOLEAN,
        /** One or more comma-separated values from a known set. */
        LIST,
        /** Free text: names, aliases, addresses, SendTargets. */
        TEXT,
        /** The CHAP exchange (§12.1.3), owned by the authentication step. */
        AUTH,
        /** Obsoleted keys still sent by old initiators (§13.26). */
        OBSOLETE
    }

    /** How the responder computes its answer (§6.2.1, §6.2.2). */
    public enum Result {
        MIN,
        MAX,
        AND,
        OR,
        /** The first value of the offered list the responder supports. */
        LIST,
        /** Declared by the sender, not negotiated: no answer. */
        DECLARATIVE,
        /** Not a negotiation (SendTargets, CHAP, obsolete keys). */
        NONE
    }

    /** Where the key may appear (§13 "Use"). */
    public enum Use {
        /** Leading only: login of the session's first connection. */
        LO,
        /** Initialize only: during login. */
        IO,
        /** Login and full feature phase. */
        ALL,
        /** Full feature phase only. */
        FFPO,
        /** Security negotiation stage only. */
        SECURITY
    }

    public enum Scope {
        SESSION,
        CONNECTION
    }

    public enum Sender {
        INITIATOR,
        TARGET,
        BOTH
    }

    /** Whether the key means anything in a Discovery session (§13: "Irrelevant when: SessionType=Discovery"). */
    public enum Relevance {
        ALWAYS,
        NORMAL_SESSION
    }

    private final String keyName;
    private final ValueType type;
    private final Result result;
    private final Use use;
    private final Scope scope;
    private final Sender sender;
    private final Relevance relevance;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final List<String> legalValues;

    IscsiKey(String keyName, ValueType type, Result result, Use use, Scope scope, Sender sender, Relevance relevance,
             String defaultValue, long min, long max, List<String> legalValues) {
        this.keyName = keyName;
        this.type = type;
        this.result = result;
        this.use = use;
        this.scope = scope;
        this.sender = sender;
        this.relevance = relevance;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.legalValues = legalValues;
    }

    /** The key exactly as spelled on the wire. */
    public String keyName() {
        return keyName;
    }

    public ValueType type() {
        return type;
    }

    public Result result() {
        return result;
    }

    public Use use() {
        return use;
    }

    public Scope scope() {
        return scope;
    }

    public Sender sender() {
        return sender;
    }

    public Relevance relevance() {
        return relevance;
    }

    /** The value in force when nobody sends the key (§13), empty where the RFC gives none. */
    public Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** Lower bound for NUMERIC keys. */
    public long min() {
        return min;
    }

    /** Upper bound for NUMERIC keys. */
    public long max() {
        return max;
    }

    /** The legal values of LIST keys, empty for others. */
    public List<String> legalValues() {
        return legalValues;
    }

    public static Optional<IscsiKey> fromKeyName(String name) {
        for (IscsiKey k : values()) {
            if (k.keyName.equals(name)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
