package io.blocktarget.config;

import java.util.Arrays;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * The shape NVMe gives its configured keys as text: {@code PREFIX hh : base64(key || CRC-32(key) little-endian) :}
 * — the DH-HMAC-CHAP secret representation ({@code DHHC-1:}, NVMe Base 2.x §8.3.4.5.2) and the TLS PSK interchange
 * format ({@code NVMeTLSkey-1:}, NVMe/TCP Transport §3.6.1.5) are both this. Only the shape lives here; which hash
 * indicators and key lengths a format admits is its own rule. Failures never quote the key.
 */
final class InterchangeKey {
    /** What a parse yields: the hash indicator {@code hh} as a number and the key without its CRC. */
    record Decoded(int hash, byte[] key) {
    }

    /** The format's own key-length rule: throws IllegalArgumentException (message without the key) to refuse. */
    @FunctionalInterface
    interface LengthCheck {
        void check(int hash, int length);
    }

    private InterchangeKey() {
    }

    /**
     * Parses {@code text}: the prefix and a two-digit hash indicator {@code 00} up to {@code hashes - 1}, then the
     * base64 key and CRC-32 between the second and the last {@code ':'}. {@code shownPrefix} is how the prefix is
     * named in a failure (e.g. {@code DHHC-1:xx:}).
     *
     * @throws IllegalArgumentException when {@code text} is not of the shape, fails {@code lengths} or its CRC-32
     */
    static Decoded decode(String text, String prefix, String shownPrefix, int hashes, LengthCheck lengths) {
        int at = prefix.length();
        if (!text.startsWith(prefix) || text.length() < at + 4 || text.charAt(at + 2) != ':') {
            throw new IllegalArgumentException("does not start with " + shownPrefix);
        }
        String indicator = text.substring(prefix.length(), prefix.length() + 2);
        int hash = indicator.charAt(0) == '0' ? indicator.charAt(1) - '0' : -1;
        if (hash < 0 || hash >= hashes) {
            throw new IllegalArgumentException("has the hash indicator " + indicator.replaceAll("[^0-9A-Za-z]", "?")
                    + ", not " + indicators(hashes));
        }
        String body = text.substring(prefix.length() + 3);
        if (!body.endsWith(":")) {
            throw new IllegalArgumentException("does not end with ':'");
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(body.substring(0, body.length() - 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not base64 between the second and the last ':'");
        }
        try {
            int keyLength = decoded.length - 4;
            lengths.check(hash, keyLength);
            byte[] key = Arrays.copyOf(decoded, keyLength);
            long stored = (decoded[keyLength] & 0xFFL) | (decoded[keyLength + 1] & 0xFFL) << 8
                    | (decoded[keyLength + 2] & 0xFFL) << 16 | (decoded[keyLength + 3] & 0xFFL) << 24;
            if (crc32(key) != stored) {
                Arrays.fill(key, (byte) 0);
                throw new IllegalArgumentException("fails its CRC-32 check (a typo or a truncated copy?)");
            }
            return new Decoded(hash, key);
        } finally {
            Arrays.fill(decoded, (byte) 0);
        }
    }

    /** The text of {@code key} with hash indicator {@code hash}: the inverse of {@link #decode}. */
    static String encode(String prefix, int hash, byte[] key) {
        byte[] withCrc = Arrays.copyOf(key, key.length + 4);
        long crc = crc32(key);
        for (int i = 0; i < 4; i++) {
            withCrc[key.length + i] = (byte) (crc >>> (8 * i));
        }
        String text = prefix + "0" + hash + ":" + Base64.getEncoder().encodeToString(withCrc) + ":";
        Arrays.fill(withCrc, (byte) 0);
        return text;
    }

    /** "00, 01 or 02" for 3. */
    private static String indicators(int hashes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hashes; i++) {
            sb.append(i == 0 ? "" : i == hashes - 1 ? " or " : ", ").append('0').append(i);
        }
        return sb.toString();
    }

    private static long crc32(byte[] key) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return crc.getValue();
    }
}
