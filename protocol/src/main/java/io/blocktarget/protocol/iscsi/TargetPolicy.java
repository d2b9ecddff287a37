package io.blocktarget.protocol.iscsi;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the target wants and where the negotiation happens. A preference is the target's own value:
 * a number for MIN/MAX keys, "Yes"/"No" for booleans, a comma-separated list of acceptable values in any
 * order for LIST keys. A key without a preference accepts any legal offer.
 *
 * @param stage      the login stage, or {@link LoginStage#FULL_FEATURE_PHASE} for Text Requests
 * @param connection whether this is the session's leading connection (LO keys, §13)
 */
public record TargetPolicy(Map<IscsiKey, String> preferences, SessionType sessionType, LoginStage stage,
                           Connection connection) {
    /** The leading connection is the one that creates the session (§13: "LO"). */
    public enum Connection {
        LEADING,
        ADDITIONAL
    }

    public TargetPolicy {
        preferences = Map.copyOf(preferences);
        Objects.requireNonNull(sessionType, "sessionType");
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(connection, "connection");
    }

    public Optional<String> preference(IscsiKey key) {
        return Optional.ofNullable(preferences.get(key));
    }
}
