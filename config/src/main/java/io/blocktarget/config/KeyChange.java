package io.blocktarget.config;

/**
 * One configuration key whose value differs between two configurations.
 *
 * @param key    dotted key path as written in the file, e.g. {@code limits.max-transfer}
 * @param rule   how the change applies ({@link ChangeRule}), from the key's declaration
 * @param before the old value as the file would say it, "" when absent
 * @param after  the new value as the file would say it, "" when absent
 */
public record KeyChange(String key, ChangeRule rule, String before, String after) {
    public KeyChange {
        java.util.Objects.requireNonNull(key, "key");
        java.util.Objects.requireNonNull(rule, "rule");
        java.util.Objects.requireNonNull(before, "before");
        java.util.Objects.requireNonNull(after, "after");
    }
}
