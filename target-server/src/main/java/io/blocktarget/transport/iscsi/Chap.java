package io.blocktarget.transport.iscsi;

import java.util.Objects;
import java.util.Optional;

/**
 * CHAP credentials of one target (RFC 7143 §12.1.3, RFC 1994). {@code user}/{@code secret} authenticate the
 * initiator; the optional mutual pair is what the target answers with when the initiator challenges it.
 * Secrets are never logged: {@link #toString()} hides them.
 */
public record Chap(String user, String secret, Optional<String> mutualUser, Optional<String> mutualSecret) {
    public Chap {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(mutualUser, "mutualUser");
        Objects.requireNonNull(mutualSecret, "mutualSecret");
        if (user.isEmpty() || secret.isEmpty()) {
            throw new IllegalArgumentException("CHAP user and secret must not be empty");
        }
        if (mutualUser.isPresent() != mutualSecret.isPresent()) {
            throw new IllegalArgumentException("mutual CHAP needs both a user and a secret");
        }
    }

    /** One-way CHAP: the target authenticates the initiator only. */
    public static Chap oneWay(String user, String secret) {
        return new Chap(user, secret, Optional.empty(), Optional.empty());
    }

    public static Chap mutual(String user, String secret, String mutualUser, String mutualSecret) {
        return new Chap(user, secret, Optional.of(mutualUser), Optional.of(mutualSecret));
    }

    @Override
    public String toString() {
        return "Chap[user=" + user + ", secret=***, mutualUser=" + mutualUser.orElse("-") + "]";
    }
}
