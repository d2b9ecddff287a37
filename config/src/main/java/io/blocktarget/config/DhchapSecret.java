package io.blocktarget.config;

import java.util.Arrays;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * One DH-HMAC-CHAP secret in the representation of NVMe Base 2.x §8.3.4.5.2 (as {@code nvme gen-dhchap-key} and the
 * Linux host and nvmet write it): {@code DHHC-1:xx:base64(key || CRC-32(key) little-endian):}. {@code xx} is the hash
 * that transforms the key before use ({@code 00} none, {@code 01} SHA-256, {@code 02} SHA-384, {@code 03} SHA-512:
 * key' = HMAC-hash(key, NQN || "NVMe-over-Fabrics")); the key is 32, 48 or 64 bytes. Never printed.
 */
public final class DhchapSecret {
    public static final String PREFIX = "DHHC-1:";
    public static final String ALLOWED = "a file holding one DH-HMAC-CHAP secret as nvme gen-dhchap-key prints it,"
            + " DHHC-1:xx:BASE64: with xx 00 (no transformation), 01 (SHA-256), 02 (SHA-384) or 03 (SHA-512) and"
            + " BASE64 a 32, 48 or 64-byte key followed by its CRC-32 (NVMe Base 2.x §8.3.4.5.2); one trailing newline"
            + " ignored";

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
        if (!text.startsWith(PREFIX) || text.length() < PREFIX.length() + 4 || text.charAt(PREFIX.length() + 2) != ':') {
            throw new IllegalArgumentException("does not start with DHHC-1:xx:");
        }
        String hash = text.substring(PREFIX.length(), PREFIX.length() + 2);
        int transform = switch (hash) {
            case "00" -> 0;
            case "01" -> 1;
            case "02" -> 2;
            case "03" -> 3;
            default -> throw new IllegalArgumentException("has the hash indicator " + hash.replaceAll("[^0-9A-Za-z]",
                    "?") + ", not 00, 01, 02 or 03");
        };
        String body = text.substring(PREFIX.length() + 3);
        if (!body.endsWith(":")) {
            throw new IllegalArgumentException("does not end with ':'");
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(body.substring(0, body.length() - 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not base64 between the second and the last ':'");
        }
        int keyLength = decoded.length - 4;
        if (keyLength != 32 && keyLength != 48 && keyLength != 64) {
            throw new IllegalArgumentException("holds a " + Math.max(0, keyLength) + "-byte key, not 32, 48 or 64");
        }
        byte[] key = Arrays.copyOf(decoded, keyLength);
        long crc = crc32(key);
        long stored = (decoded[keyLength] & 0xFFL) | (decoded[keyLength + 1] & 0xFFL) << 8
                | (decoded[keyLength + 2] & 0xFFL) << 16 | (decoded[keyLength + 3] & 0xFFL) << 24;
        Arrays.fill(decoded, (byte) 0);
        if (crc != stored) {
            throw new IllegalArgumentException("fails its CRC-32 check (a typo or a truncated copy?)");
        }
        return new DhchapSecret(transform, key);
    }

    /** The representation {@code nvme gen-dhchap-key} prints. */
    public String representation() {
        byte[] withCrc = Arrays.copyOf(key, key.length + 4);
        long crc = crc32(key);
        for (int i = 0; i < 4; i++) {
            withCrc[key.length + i] = (byte) (crc >>> (8 * i));
        }
        return PREFIX + "0" + transform + ":" + Base64.getEncoder().encodeToString(withCrc) + ":";
    }

    private static long crc32(byte[] key) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return crc.getValue();
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
