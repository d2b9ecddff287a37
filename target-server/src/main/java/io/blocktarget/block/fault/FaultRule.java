package io.blocktarget.block.fault;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One fault rule of a LUN: which commands ({@link FaultMatch}), when ({@link FaultTrigger}) and what they get
 * ({@link FaultAction}). Immutable; its counters live in the LUN's {@link LunFaults}.
 *
 * @param id the rule's name within its LUN (lower-case letters, digits, {@code -}; at most 32)
 */
public record FaultRule(String id, FaultMatch match, FaultTrigger trigger, FaultAction action) {
    public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");

    public FaultRule {
        Objects.requireNonNull(id, "id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("fault rule id " + id);
        }
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(action, "action");
    }

    public FaultRule withId(String value) {
        return new FaultRule(value, match, trigger, action);
    }
}
