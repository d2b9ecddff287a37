package io.blocktarget.config;

import java.nio.file.Path;
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
 * @param secretFile       the absolute file {@code secret} was read from (empty when not from a file), so a LUN
 *                         can be written back as its {@code luns.d} file names it
 * @param mutualSecretFile the same for {@code mutualSecret}
 */
public record ChapConfig(String user, String secret, Optional<String> mutualUser, Optional<String> mutualSecret,
                         Optional<Path> secretFile, Optional<Path> mutualSecretFile) {
    public ChapConfig {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(mutualUser, "mutualUser");
        Objects.requireNonNull(mutualSecret, "mutualSecret");
        Objects.requireNonNull(secretFile, "secretFile");
        Objects.requireNonNull(mutualSecretFile, "mutualSecretFile");
        if (mutualUser.isPresent() != mutualSecret.isPresent()) {
            throw new IllegalArgumentException("mutual CHAP needs both a user and a secret");
        }
    }

    /** Credentials not read from files. */
    public ChapConfig(String user, String secret, Optional<String> mutualUser, Optional<String> mutualSecret) {
        this(user, secret, mutualUser, mutualSecret, Optional.empty(), Optional.empty());
    }

    /** What the target checks: names and secrets, not where the secrets came from (two files may hold one). */
    ChapConfig credentials() {
        return new ChapConfig(user, secret, mutualUser, mutualSecret);
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
                .orElse("") + secretFile.map(f -> ", secretFile=" + f).orElse("")
                + mutualSecretFile.map(f -> ", mutualSecretFile=" + f).orElse("") + "]";
    }
}
