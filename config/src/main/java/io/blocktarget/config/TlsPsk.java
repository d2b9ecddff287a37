package io.blocktarget.config;

import java.security.MessageDigest;
import java.util.Arrays;

/**
 * A configured PSK for NVMe/TCP TLS in the PSK interchange format (NVMe/TCP Transport §3.6.1.5, TP 8011/8018; as
 * {@code nvme gen-tls-key} prints it and libnvme's nvme_import_tls_key_versioned() reads it):
 * {@code NVMeTLSkey-1:hh:base64(key || CRC-32(key) little-endian):}. {@code hh} is the hash that turns the configured
 * PSK into the retained PSK: {@code 00} none (the configured PSK is the retained PSK), {@code 01} SHA-256 (key of
 * 32 bytes), {@code 02} SHA-384 (key of 48 bytes). Never printed.
 */
public final class TlsPsk {
    public static final String PREFIX = "NVMeTLSkey-1:";
    public static final String ALLOWED = "a file holding one PSK as nvme gen-tls-key prints it, NVMeTLSkey-1:hh:BASE64:"
            + " with hh 01 (SHA-256, a 32-byte key), 02 (SHA-384, a 48-byte key) or 00 (no transformation, 32 or 48"
            + " bytes) and BASE64 the key followed by its CRC-32 (NVMe/TCP Transport §3.6.1.5); one trailing newline"
            + " ignored";

    /** The retained-PSK transformation: 0 none, 1 SHA-256, 2 SHA-384 (the interchange format's {@code hh}). */
    private final int hmac;
    private final byte[] key;

    private TlsPsk(int hmac, byte[] key) {
        this.hmac = hmac;
        this.key = key;
    }

    /** A PSK from its key bytes (tests and tools). */
    public static TlsPsk of(int hmac, byte[] key) {
        check(hmac, key.length);
        return new TlsPsk(hmac, key.clone());
    }

    private static void check(int hmac, int length) {
        boolean ok = switch (hmac) {
            case 0 -> length == 32 || length == 48;
            case 1 -> length == 32;
            case 2 -> length == 48;
            default -> false;
        };
        if (!ok) {
            throw new IllegalArgumentException("holds a " + Math.max(0, length) + "-byte key with hash " + "0" + hmac
                    + "; 01 needs 32 bytes, 02 48 bytes, 00 32 or 48");
        }
    }

    /**
     * Parses the interchange format; a failure's message says what is wrong without quoting the key.
     *
     * @throws IllegalArgumentException when {@code text} is not such a PSK
     */
    public static TlsPsk parse(String text) {
        InterchangeKey.Decoded d = InterchangeKey.decode(text, PREFIX, "NVMeTLSkey-1:hh:", 3, TlsPsk::check);
        return new TlsPsk(d.hash(), d.key());
    }

    /** The interchange format {@code nvme gen-tls-key} prints. */
    public String interchange() {
        return InterchangeKey.encode(PREFIX, hmac, key);
    }

    /** 0: the configured PSK is the retained PSK; 1 / 2: derived with HKDF-SHA-256 / -384. */
    public int hmac() {
        return hmac;
    }

    /**
     * The hash of the PSK identity and of the TLS cipher suite this PSK serves (libnvme derive_nvme_keys): the
     * transformation's hash, or by key length when there is none — 1 (SHA-256, TLS_AES_128_GCM_SHA256) for 32 bytes,
     * 2 (SHA-384, TLS_AES_256_GCM_SHA384) for 48.
     */
    public int cipherHash() {
        return hmac != 0 ? hmac : key.length == 32 ? 1 : 2;
    }

    public byte[] key() {
        return key.clone();
    }

    public int length() {
        return key.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsPsk other && other.hmac == hmac && MessageDigest.isEqual(other.key, key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + hmac;
    }

    @Override
    public String toString() {
        return "TlsPsk[***]";
    }
}
