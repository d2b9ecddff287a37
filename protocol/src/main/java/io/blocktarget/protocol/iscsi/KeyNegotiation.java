package io.blocktarget.protocol.iscsi;

import java.util.List;
import java.util.Optional;

/**
 * Negotiation of one offered key by the target (RFC 7143 §6.2, §13), as a pure function. Cross-key rules
 * (FirstBurstLength ≤ MaxBurstLength, FirstBurstLength irrelevant when InitialR2T=Yes and
 * ImmediateData=No, the CHAP exchange, SendTargets) are the login layer's.
 */
public final class KeyNegotiation {
    private static final String YES = "Yes";
    private static final String NO = "No";
    /** Longest decimal or hex digit string we parse; every legal value is far shorter. */
    private static final int MAX_DIGITS = 12;

    private KeyNegotiation() {
    }

    /** Negotiates {@code keyName=offered}; unknown keys (including X- and X# extensions) are NotUnderstood. */
    public static KeyAnswer negotiate(String keyName, String offered, TargetPolicy policy) {
        return IscsiKey.fromKeyName(keyName)
                .map(key -> negotiate(key, offered, policy))
                .orElseGet(KeyAnswer.NotUnderstood::new);
    }

    public static KeyAnswer negotiate(IscsiKey key, String offered, TargetPolicy policy) {
        Optional<String> misplaced = misplaced(key, policy);
        if (misplaced.isPresent()) {
            return new KeyAnswer.Reject(misplaced.get());
        }
        if (key.relevance() == IscsiKey.Relevance.NORMAL_SESSION && policy.sessionType() == SessionType.DISCOVERY) {
            return new KeyAnswer.Irrelevant();
        }
        return switch (key.result()) {
            case MIN, MAX -> numeric(key, offered, policy);
            case AND, OR -> bool(key, offered, policy);
            case LIST -> list(key, offered, policy);
            case DECLARATIVE -> declarative(key, offered);
            case NONE -> key.type() == IscsiKey.ValueType.OBSOLETE ? obsolete(key) : new KeyAnswer.Declared(offered);
        };
    }

    /** Why the key may not be offered by an initiator here, if it may not (§13 "Use" and "Senders"). */
    private static Optional<String> misplaced(IscsiKey key, TargetPolicy policy) {
        if (key.sender() == IscsiKey.Sender.TARGET) {
            return Optional.of(key.keyName() + " is sent by targets only");
        }
        boolean login = policy.stage() != LoginStage.FULL_FEATURE_PHASE;
        return switch (key.use()) {
            case LO -> login && policy.connection() == TargetPolicy.Connection.LEADING ? Optional.empty()
                    : Optional.of(key.keyName() + " is negotiated only in the leading connection's login");
            case IO -> login ? Optional.empty() : Optional.of(key.keyName() + " is negotiated only during login");
            case FFPO -> login ? Optional.of(key.keyName() + " is used only in full feature phase") : Optional.empty();
            case SECURITY -> policy.stage() == LoginStage.SECURITY_NEGOTIATION ? Optional.empty()
                    : Optional.of(key.keyName() + " belongs to the security negotiation stage");
            case ALL -> Optional.empty();
        };
    }

    private static KeyAnswer numeric(IscsiKey key, String offered, TargetPolicy policy) {
        Optional<Long> value = parseNumber(offered).filter(v -> v >= key.min() && v <= key.max());
        if (value.isEmpty()) {
            return new KeyAnswer.Reject(key.keyName() + "=" + offered + " is not a number in " + key.min() + ".."
                    + key.max());
        }
        long offer = value.get();
        // Without a preference the target accepts the offer: the neutral element of min/max is the range end.
        long own = policy.preference(key).flatMap(KeyNegotiation::parseNumber)
                .orElse(key.result() == IscsiKey.Result.MIN ? key.max() : key.min());
        long answer = key.result() == IscsiKey.Result.MIN ? Math.min(offer, own) : Math.max(offer, own);
        return new KeyAnswer.Value(Long.toString(answer));
    }

    private static KeyAnswer bool(IscsiKey key, String offered, TargetPolicy policy) {
        if (!offered.equals(YES) && !offered.equals(NO)) {
            return new KeyAnswer.Reject(key.keyName() + "=" + offered + " is not Yes or No");
        }
        boolean offer = offered.equals(YES);
        boolean and = key.result() == IscsiKey.Result.AND;
        // Neutral element: Yes for AND, No for OR.
        boolean own = policy.preference(key).map(YES::equals).orElse(and);
        boolean answer = and ? offer && own : offer || own;
        return new KeyAnswer.Value(answer ? YES : NO);
    }

    private static KeyAnswer list(IscsiKey key, String offered, TargetPolicy policy) {
        List<String> acceptable = policy.preference(key).map(KeyNegotiation::splitList).orElse(key.legalValues());
        for (String candidate : splitList(offered)) {
            if (key.legalValues().contains(candidate) && acceptable.contains(candidate)) {
                return new KeyAnswer.Value(candidate);
            }
        }
        return new KeyAnswer.Reject("none of " + key.keyName() + "=" + offered + " is acceptable");
    }

    private static KeyAnswer declarative(IscsiKey key, String offered) {
        return switch (key.type()) {
            case NUMERIC -> parseNumber(offered).filter(v -> v >= key.min() && v <= key.max())
                    .<KeyAnswer>map(v -> new KeyAnswer.Declared(Long.toString(v)))
                    .orElseGet(() -> new KeyAnswer.Reject(key.keyName() + "=" + offered + " out of range"));
            case LIST -> key.legalValues().contains(offered) ? new KeyAnswer.Declared(offered)
                    : new KeyAnswer.Reject(key.keyName() + "=" + offered + " is not one of " + key.legalValues());
            default -> offered.isEmpty() && key != IscsiKey.INITIATOR_ALIAS
                    ? new KeyAnswer.Reject(key.keyName() + " must not be empty")
                    : new KeyAnswer.Declared(offered);
        };
    }

    /** §13.26: IFMarker/OFMarker may be answered "No"; IFMarkInt/OFMarkInt MUST be answered "Reject". */
    private static KeyAnswer obsolete(IscsiKey key) {
        return key.defaultValue().<KeyAnswer>map(KeyAnswer.Value::new)
                .orElseGet(() -> new KeyAnswer.Reject(key.keyName() + " is obsolete (RFC 7143 §13.26)"));
    }

    /** §6.1 numeric values: decimal-constant or hex-constant ("0x" prefix). */
    public static Optional<Long> parseNumber(String s) {
        boolean hex = s.length() > 2 && (s.startsWith("0x") || s.startsWith("0X"));
        String digits = hex ? s.substring(2) : s;
        if (digits.isEmpty() || digits.length() > MAX_DIGITS) {
            return Optional.empty();
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c > 0x7f || Character.digit(c, hex ? 16 : 10) < 0) {
                return Optional.empty();
            }
        }
        return Optional.of(Long.parseLong(digits, hex ? 16 : 10));
    }

    private static List<String> splitList(String s) {
        return List.of(s.split(",", -1));
    }
}
