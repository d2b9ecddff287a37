package io.blocktarget.config;

import java.util.Arrays;

/**
 * One DH-HMAC-CHAP secret in the representation of NVMe Base 2.x §8.3.4.5.2 (as {@code nvme gen-dhchap-key} and the
 * Linux host and nvmet write it): {@code DHHC-1:xx:base64(key || CRC-32(key) little-endian):}. {@code xx} is the hash
 * that transforms the key before use ({@code 00} none, {@code 01} SHA-256, {@code 02} SHA-384, {@code 03} SHA-512:
 * key' = HMAC-hash(key, NQN || "NVMe-over-Fabrics")); the key is 32, 48 or 64 bytes. Never printed.
 */
public final class DhchapSecret {
    public static final String PREFIX = "DHHC-1:";
    /** One key's text, as {@code nvme gen-dhchap-key} prints it. */
    public static final String FORMAT = "DHHC-1:xx:BASE64: with xx 00 (no transformation), 01 (SHA-256), 02 (SHA-384)"
            + " or 03 (SHA-512) and BASE64 a 32, 48 or 64-byte key followed by its CRC-32 (NVMe Base 2.x §8.3.4.5.2)";
    public static final String ALLOWED = "a file holding one DH-HMAC-CHAP secret as nvme gen-dhchap-key prints it, "
            + FORMAT + "; one trailing newline ignored";

    private final int transform;
    private final byte[] key;

    private DhchapSecret(int transform, byte[] key) {
        this.transform = transform;
        this.key = key;
    }

    /** A secret from its key bytes (tests and tools); {@code transform} 0..3. */
    public static DhchapSecret of(int transform, byte[] key) {
        if (transform < 0 || transform > 3 || (key.length != 32 && key.length != 48 && key.length != 64)) {
            throw new IllegalArgumentException("transform 0..3 and a 32, 48 or 64-byte key");
        }
        return new DhchapSecret(transform, key.clone());
    }

    /**
     * Parses the representation; the message of a failure says what is wrong without quoting the secret.
     *
     * @throws IllegalArgumentException when {@code text} is not such a secret
     */
    public static DhchapSecret parse(String text) {
        InterchangeKey.Decoded d = InterchangeKey.decode(text, PREFIX, "DHHC-1:xx:", 4, (hash, length) -> {
            if (length != 32 && length != 48 && length != 64) {
                throw new IllegalArgumentException("holds a " + Math.max(0, length) + "-byte key, not 32, 48 or 64");
            }
        });
        return new DhchapSecret(d.hash(), d.key());
    }

    /** The representation {@code nvme gen-dhchap-key} prints. */
    public String representation() {
        return InterchangeKey.encode(PREFIX, transform, key);
    }

    /** 0 = the key is used as it is, 1/2/3 = transformed with HMAC-SHA-256/384/512 keyed by it. */
    public int transform() {
        return transform;
    }

    public byte[] key() {
        return key.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DhchapSecret other && other.transform == transform
                && java.security.MessageDigest.isEqual(other.key, key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + transform;
    }

    @Override
    public String toString() {
        return "DhchapSecret[***]";
    }
}
