package io.blocktarget.nvme;

import java.util.Objects;
import java.util.Optional;

/**
 * The DH-HMAC-CHAP keys of a subsystem (NVMe Base 2.2 §8.3.4.5): the host key every admitted host proves it holds,
 * and for bidirectional authentication the controller's key. Never printed.
 */
public record DhchapKeys(Key host, Optional<Key> ctrl) {
    public DhchapKeys {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(ctrl, "ctrl");
    }

    /**
     * One secret as the DHHC-1 representation carries it.
     *
     * @param transform 0: used as it is; 1/2/3: key' = HMAC-SHA-256/384/512(key, NQN || "NVMe-over-Fabrics")
     */
    public record Key(int transform, byte[] secret) {
        public Key {
            if (transform < 0 || transform > 3) {
                throw new IllegalArgumentException("transform " + transform);
            }
            secret = secret.clone();
        }

        @Override
        public byte[] secret() {
            return secret.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.transform == transform && java.security.MessageDigest.isEqual(k.secret,
                    secret);
        }

        @Override
        public int hashCode() {
            return transform;
        }

        @Override
        public String toString() {
            return "Key[***]";
        }
    }
}
