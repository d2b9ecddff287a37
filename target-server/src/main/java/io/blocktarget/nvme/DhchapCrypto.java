package io.blocktarget.nvme;

import org.bouncycastle.crypto.agreement.DHStandardGroups;
import org.bouncycastle.crypto.params.DHParameters;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.interfaces.DHPublicKey;
import javax.crypto.spec.DHParameterSpec;
import javax.crypto.spec.DHPublicKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The arithmetic of DH-HMAC-CHAP (NVMe Base 2.2 §8.3.4.5), byte for byte as the Linux host and nvmet compute it
 * (drivers/nvme/common/auth.c, target/auth.c). HMAC, hashes and Diffie-Hellman are the JDK's; only the RFC 7919
 * group parameters come from Bouncy Castle, because the JDK keeps its copy of them internal to its TLS code.
 */
public final class DhchapCrypto {
    /** HashID (Base Figure "DH-HMAC-CHAP Hash Function Identifiers"). */
    public static final int SHA256 = 1;
    public static final int SHA384 = 2;
    public static final int SHA512 = 3;
    /** DH group IDs: 0 null (no DH exponentials), 1..5 ffdhe2048, 3072, 4096, 6144, 8192 (RFC 7919). */
    public static final int DH_NULL = 0;
    private static final byte[] FABRICS = "NVMe-over-Fabrics".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private DhchapCrypto() {
    }

    /** Digest length of a HashID; 0 for an unknown one. */
    public static int hashLength(int hashId) {
        return switch (hashId) {
            case SHA256 -> 32;
            case SHA384 -> 48;
            case SHA512 -> 64;
            default -> 0;
        };
    }

    private static String jdkName(int hashId) {
        return switch (hashId) {
            case SHA256 -> "SHA-256";
            case SHA384 -> "SHA-384";
            case SHA512 -> "SHA-512";
            default -> throw new IllegalArgumentException("hash " + hashId);
        };
    }

    /** HMAC-hash(key, parts[0] || parts[1] || ...). */
    public static byte[] hmac(int hashId, byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("Hmac" + jdkName(hashId).replace("-", ""));
            mac.init(new SecretKeySpec(key, "HMAC"));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC is a required JDK algorithm", e);
        }
    }

    public static byte[] hash(int hashId, byte[] data) {
        try {
            return MessageDigest.getInstance(jdkName(hashId)).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The key a party uses (Base §8.3.4.5.2, Linux nvme_auth_transform_key): as stored when the representation's hash
     * indicator is 00, else HMAC(key, NQN || "NVMe-over-Fabrics") with that hash — NQN is the host NQN for the host
     * key and the subsystem NQN for the controller key.
     */
    public static byte[] transformKey(DhchapKeys.Key key, String nqn) {
        if (key.transform() == 0) {
            return key.secret();
        }
        return hmac(key.transform(), key.secret(), nqn.getBytes(StandardCharsets.UTF_8), FABRICS);
    }

    /** Ca = HMAC(H(g^xy mod p), C): the challenge augmented with the session key (Base §8.3.4.5.3). */
    public static byte[] augmentedChallenge(int hashId, byte[] sessionKey, byte[] challenge) {
        return hmac(hashId, hash(hashId, sessionKey), challenge);
    }

    /**
     * R1 = HMAC(Kh', C1 || S1 || T_ID || 00h || "HostHost" || NQNh || 00h || NQNc), Ca in place of C1 with a DH
     * group; S1 little-endian 32 bits, T_ID 16 bits.
     */
    public static byte[] hostResponse(int hashId, byte[] transformedHostKey, byte[] challenge, int s1, int tid,
                                      String hostNqn, String subsystemNqn) {
        return response(hashId, transformedHostKey, challenge, s1, tid, "HostHost", hostNqn, subsystemNqn);
    }

    /** R2 = HMAC(Kc', C2 || S2 || T_ID || 00h || "Controller" || NQNc || 00h || NQNh). */
    public static byte[] controllerResponse(int hashId, byte[] transformedCtrlKey, byte[] challenge, int s2, int tid,
                                            String subsystemNqn, String hostNqn) {
        return response(hashId, transformedCtrlKey, challenge, s2, tid, "Controller", subsystemNqn, hostNqn);
    }

    private static byte[] response(int hashId, byte[] key, byte[] challenge, int seq, int tid, String role,
                                   String first, String second) {
        byte[] seqTid = {(byte) seq, (byte) (seq >>> 8), (byte) (seq >>> 16), (byte) (seq >>> 24), (byte) tid,
            (byte) (tid >>> 8), 0};
        return hmac(hashId, key, challenge, seqTid, role.getBytes(StandardCharsets.US_ASCII),
                first.getBytes(StandardCharsets.UTF_8), new byte[1], second.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] random(int length) {
        byte[] b = new byte[length];
        RANDOM.nextBytes(b);
        return b;
    }

    /** The RFC 7919 group of a DH group ID, empty for null and unknown IDs. */
    public static Optional<DhGroup> group(int id) {
        DHParameters p = switch (id) {
            case 1 -> DHStandardGroups.rfc7919_ffdhe2048;
            case 2 -> DHStandardGroups.rfc7919_ffdhe3072;
            case 3 -> DHStandardGroups.rfc7919_ffdhe4096;
            case 4 -> DHStandardGroups.rfc7919_ffdhe6144;
            case 5 -> DHStandardGroups.rfc7919_ffdhe8192;
            default -> null;
        };
        return p == null ? Optional.empty() : Optional.of(new DhGroup(id, p.getP(), p.getG()));
    }

    /** One finite-field group; values travel as big-endian numbers of the prime's length (Base §8.3.4.5.3). */
    public record DhGroup(int id, BigInteger p, BigInteger g) {
        public int valueLength() {
            return (p.bitLength() + 7) / 8;
        }

        /** An ephemeral key pair (x, g^x mod p). CPU-heavy: not for an event loop. */
        public KeyPair generate() {
            try {
                KeyPairGenerator generator = KeyPairGenerator.getInstance("DH");
                generator.initialize(new DHParameterSpec(p, g), RANDOM);
                return generator.generateKeyPair();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        /** g^x mod p of {@code pair} in the wire's fixed length. */
        public byte[] publicValue(KeyPair pair) {
            return fixed(((DHPublicKey) pair.getPublic()).getY(), valueLength());
        }

        /**
         * The session key g^xy mod p from the peer's value, fixed length; empty when the value is not in 2..p-2
         * (a value 0, 1 or p-1 would force a known key, RFC 7919 §5.1).
         */
        public Optional<byte[]> sessionKey(KeyPair ours, byte[] peerValue) {
            BigInteger y = new BigInteger(1, peerValue);
            if (peerValue.length != valueLength() || y.compareTo(BigInteger.ONE) <= 0
                    || y.compareTo(p.subtract(BigInteger.ONE)) >= 0) {
                return Optional.empty();
            }
            try {
                PublicKey peer = KeyFactory.getInstance("DH").generatePublic(new DHPublicKeySpec(y, p, g));
                KeyAgreement agreement = KeyAgreement.getInstance("DH");
                agreement.init(ours.getPrivate());
                agreement.doPhase(peer, true);
                return Optional.of(fixed(new BigInteger(1, agreement.generateSecret()), valueLength()));
            } catch (GeneralSecurityException e) {
                return Optional.empty();
            }
        }
    }

    static byte[] fixed(BigInteger value, int length) {
        byte[] raw = value.toByteArray();
        if (raw.length == length) {
            return raw;
        }
        if (raw.length > length) {
            return Arrays.copyOfRange(raw, raw.length - length, raw.length); // a leading sign byte
        }
        byte[] out = new byte[length];
        System.arraycopy(raw, 0, out, length - raw.length, raw.length);
        return out;
    }
}
