package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.KeyNegotiation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * CHAP with MD5 (RFC 7143 §12.1.3, RFC 1994 §4.1): the response is MD5(identifier || secret || challenge).
 * Binary values travel as "0x" hex or "0b" base64 (§6.1). One instance per login; the challenge is
 * random, {@value #CHALLENGE_LENGTH} bytes.
 */
final class ChapAuthenticator {
    /** CHAP_A value for MD5 (RFC 1994 / IANA PPP authentication algorithms). */
    static final String MD5 = "5";
    static final int CHALLENGE_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What the target sends after CHAP_A. */
    record Challenge(int identifier, byte[] challenge) {
        Challenge {
            challenge = challenge.clone();
        }

        @Override
        public byte[] challenge() {
            return challenge.clone();
        }

        String identifierValue() {
            return Integer.toString(identifier);
        }

        String challengeValue() {
            return "0x" + HexFormat.of().formatHex(challenge);
        }
    }

    private final Chap credentials;
    private final Challenge challenge;

    ChapAuthenticator(Chap credentials) {
        this(credentials, newChallenge());
    }

    ChapAuthenticator(Chap credentials, Challenge challenge) {
        this.credentials = credentials;
        this.challenge = challenge;
    }

    static Challenge newChallenge() {
        byte[] bytes = new byte[CHALLENGE_LENGTH];
        RANDOM.nextBytes(bytes);
        return new Challenge(RANDOM.nextInt(256), bytes);
    }

    Challenge challenge() {
        return challenge;
    }

    /** True when the offered CHAP_A list contains MD5. */
    static boolean acceptsMd5(String chapA) {
        return List.of(chapA.split(",", -1)).contains(MD5);
    }

    /** Checks CHAP_N / CHAP_R against the configured user and secret, in constant time for the response. */
    boolean verify(String name, String response) {
        Optional<byte[]> received = decodeBinary(response);
        byte[] expected = md5(challenge.identifier(), credentials.secret(), challenge.challenge());
        boolean responseOk = received.isPresent() && MessageDigest.isEqual(expected, received.get());
        return responseOk && credentials.user().equals(name);
    }

    /**
     * The target's answer to the initiator's challenge (mutual CHAP): CHAP_N and CHAP_R, or empty when no
     * mutual credentials are configured, the values are malformed, or the initiator reflects our own challenge.
     */
    Optional<List<String>> answer(String identifier, String initiatorChallenge) {
        if (credentials.mutualUser().isEmpty() || credentials.mutualSecret().isEmpty()) {
            return Optional.empty();
        }
        Optional<Long> id = KeyNegotiation.parseNumber(identifier);
        Optional<byte[]> c = decodeBinary(initiatorChallenge);
        if (id.isEmpty() || id.get() > 255 || c.isEmpty() || c.get().length == 0
                || Arrays.equals(c.get(), challenge.challenge())) {
            return Optional.empty();
        }
        byte[] r = md5(id.get().intValue(), credentials.mutualSecret().get(), c.get());
        return Optional.of(List.of(credentials.mutualUser().get(), "0x" + HexFormat.of().formatHex(r)));
    }

    static byte[] md5(int identifier, String secret, byte[] challenge) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update((byte) identifier);
            md.update(secret.getBytes(StandardCharsets.UTF_8));
            md.update(challenge);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is a required JDK algorithm", e);
        }
    }

    /** §6.1 binary-value: "0x"/"0X" hex digits or "0b"/"0B" base64. */
    static Optional<byte[]> decodeBinary(String value) {
        if (value.length() < 3 || value.charAt(0) != '0') {
            return Optional.empty();
        }
        String body = value.substring(2);
        try {
            return switch (value.charAt(1)) {
                case 'x', 'X' -> Optional.of(HexFormat.of().parseHex(body.length() % 2 == 0 ? body : "0" + body));
                case 'b', 'B' -> Optional.of(Base64.getDecoder().decode(body));
                default -> Optional.empty();
            };
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
