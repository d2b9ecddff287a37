package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The DH-HMAC-CHAP keys of one secret file ({@code access.dhchap.host-secret-file} or {@code ctrl-secret-file}):
 * a key per host NQN, as Linux nvmet keeps one in each {@code hosts/HOSTNQN/dhchap_key} (and
 * {@code nvme gen-dhchap-key --nqn HOSTNQN} makes one per host), and one for every host not named. A file holding a
 * single key is {@code others} alone. Never printed.
 *
 * @param hosts  key per host NQN, in file order
 * @param others the key of every host not in {@code hosts} ({@code *} line, or the file's single key); empty: hosts
 *               not named have no key (and are refused)
 */
public record DhchapSecrets(Map<String, DhchapSecret> hosts, Optional<DhchapSecret> others) {
    public DhchapSecrets {
        hosts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(hosts));
        Objects.requireNonNull(others, "others");
        if (hosts.isEmpty() && others.isEmpty()) {
            throw new IllegalArgumentException("no key");
        }
    }

    /** One key for every host (a file holding a single key). */
    public static DhchapSecrets every(DhchapSecret key) {
        return new DhchapSecrets(Map.of(), Optional.of(key));
    }

    /** The key {@code hostNqn} proves (or, in a ctrl file, is proved to): its own, else {@code others}. */
    public Optional<DhchapSecret> forHost(String hostNqn) {
        DhchapSecret own = hosts.get(hostNqn);
        return own != null ? Optional.of(own) : others;
    }

    @Override
    public String toString() {
        return "DhchapSecrets[" + hosts.size() + " hosts" + others.map(o -> ", others=***").orElse("") + "]";
    }
}
