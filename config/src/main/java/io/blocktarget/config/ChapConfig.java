package io.blocktarget.config;

import java.util.Objects;
import java.util.Optional;

/**
 * iSCSI CHAP credentials of a LUN's target (RFC 7143 §12.1.3, CHAP_A=5 MD5 per RFC 1994), read from
 * {@code access.chap}. The secrets come from files and are never printed: {@link #toString()} hides them, and
 * no configuration problem or warning quotes them.
 *
 * @param user         CHAP_N the initiator must send
 * @param secret       the secret the initiator proves it knows (12..255 bytes of UTF-8 text)
 * @param mutualUser   mutual CHAP: the CHAP_N the target answers with; present exactly when {@code mutualSecret} is
 * @param mutualSecret mutual CHAP: the target's secret, different from {@code secret}
 */
public record ChapConfig(String user, String secret, Optional<String> mutualUser, Optional<String> mutualSecret) {
    public ChapConfig {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(mutualUser, "mutualUser");
        Objects.requireNonNull(mutualSecret, "mutualSecret");
        if (mutualUser.isPresent() != mutualSecret.isPresent()) {
            throw new IllegalArgumentException("mutual CHAP needs both a user and a secret");
        }
    }

    /** True when the target also authenticates itself to the initiator. */
    public boolean mutual() {
        return mutualUser.isPresent();
    }

    /** What may be shown to the operator: the user names, never a secret. */
    String describe() {
        return mutualUser.map(m -> "mutual CHAP user " + user + " / " + m).orElse("CHAP user " + user);
    }

    @Override
    public String toString() {
        return "ChapConfig[user=" + user + ", secret=***" + mutualUser.map(m -> ", mutualUser=" + m + ", mutualSecret=***")
                .orElse("") + "]";
    }
}
