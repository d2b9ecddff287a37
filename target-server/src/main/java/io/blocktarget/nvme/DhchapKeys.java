package io.blocktarget.nvme;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The DH-HMAC-CHAP keys of a subsystem (NVMe Base 2.2 §8.3.4.5), per host NQN as Linux nvmet keeps them (one
 * {@code hosts/HOSTNQN/dhchap_key} each): the key a host proves it holds, and for bidirectional authentication the
 * controller's key for that host. A subsystem with keys asks every host to authenticate (ATR in the Connect
 * response); a host it has no key for is refused like one with a wrong key. Never printed.
 *
 * @param hosts  the keys of each named host
 * @param others the keys of every other host; empty: hosts not named have none
 */
public record DhchapKeys(Map<String, HostKeys> hosts, Optional<HostKeys> others) {
    public DhchapKeys {
        hosts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(hosts));
        Objects.requireNonNull(others, "others");
    }

    /** One host key (and controller key) for every host. */
    public DhchapKeys(Key host, Optional<Key> ctrl) {
        this(Map.of(), Optional.of(new HostKeys(host, ctrl)));
    }

    /** The keys of {@code hostNqn}: its own, else those of every other host; empty: it cannot authenticate. */
    public Optional<HostKeys> forHost(String hostNqn) {
        HostKeys own = hosts.get(hostNqn);
        return own != null ? Optional.of(own) : others;
    }

    /**
     * The keys one host authenticates with.
     *
     * @param host the key the host proves (its R1, Base §8.3.4.5.4)
     * @param ctrl the key the controller proves to it when asked (R2, §8.3.4.5.5); empty: unidirectional only
     */
    public record HostKeys(Key host, Optional<Key> ctrl) {
        public HostKeys {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(ctrl, "ctrl");
        }
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

    @Override
    public String toString() {
        return "DhchapKeys[" + hosts.size() + " hosts" + others.map(o -> ", others").orElse("") + "]";
    }
}
