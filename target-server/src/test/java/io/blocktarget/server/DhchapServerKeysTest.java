package io.blocktarget.server;

import io.blocktarget.config.DhchapConfig;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.DhchapSecrets;
import io.blocktarget.nvme.DhchapKeys;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * access.dhchap per host (issue 14) as the controller gets it: each Connect's HOSTNQN takes its own host key, else
 * the * key; its own controller key, else the * controller key — the two files resolved independently, as nvmet's
 * hosts/HOSTNQN/dhchap_key and dhchap_ctrl_key are.
 */
class DhchapServerKeysTest {
    private static final String A = "nqn.2026-12.org.example:a";
    private static final String B = "nqn.2026-12.org.example:b";
    private static final String C = "nqn.2026-12.org.example:c";
    private static final String D = "nqn.2026-12.org.example:d";

    private static DhchapSecret secret(int transform, int first) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (first + i);
        }
        return DhchapSecret.of(transform, key);
    }

    private static DhchapKeys.Key key(DhchapSecret s) {
        return new DhchapKeys.Key(s.transform(), s.key());
    }

    private static Map<String, DhchapSecret> of(String h1, DhchapSecret k1, String h2, DhchapSecret k2) {
        Map<String, DhchapSecret> m = new LinkedHashMap<>();
        m.put(h1, k1);
        if (h2 != null) {
            m.put(h2, k2);
        }
        return m;
    }

    @Test
    void eachHostGetsItsOwnKeysElseTheStarKeys() {
        DhchapSecret hostA = secret(1, 0x10), hostB = secret(2, 0x20), hostOthers = secret(0, 0x30);
        DhchapSecret ctrlA = secret(3, 0x40), ctrlC = secret(1, 0x50), ctrlOthers = secret(0, 0x60);
        DhchapConfig config = new DhchapConfig(new DhchapSecrets(of(A, hostA, B, hostB), Optional.of(hostOthers)),
                Optional.of(new DhchapSecrets(of(A, ctrlA, C, ctrlC), Optional.of(ctrlOthers))));
        DhchapKeys keys = ExportPlan.dhchapKeys(config);
        assertThat(keys.forHost(A)).contains(new DhchapKeys.HostKeys(key(hostA), Optional.of(key(ctrlA))));
        assertThat(keys.forHost(B)).contains(new DhchapKeys.HostKeys(key(hostB), Optional.of(key(ctrlOthers))));
        assertThat(keys.forHost(C)).as("host key from *, its own controller key")
                .contains(new DhchapKeys.HostKeys(key(hostOthers), Optional.of(key(ctrlC))));
        assertThat(keys.forHost(D)).contains(new DhchapKeys.HostKeys(key(hostOthers), Optional.of(key(ctrlOthers))));
        assertThat(keys.hosts().keySet()).containsExactly(A, B, C);
    }

    @Test
    void withoutAStarLineAHostNotNamedHasNoKeysAndANamedOneMayBeUnidirectional() {
        DhchapSecret hostA = secret(1, 0x10), hostB = secret(2, 0x20), ctrlA = secret(3, 0x40);
        DhchapConfig config = new DhchapConfig(new DhchapSecrets(of(A, hostA, B, hostB), Optional.empty()),
                Optional.of(new DhchapSecrets(of(A, ctrlA, null, null), Optional.empty())));
        DhchapKeys keys = ExportPlan.dhchapKeys(config);
        assertThat(keys.forHost(D)).isEmpty();
        assertThat(keys.forHost(B)).contains(new DhchapKeys.HostKeys(key(hostB), Optional.empty()));
        assertThat(keys.forHost(A)).contains(new DhchapKeys.HostKeys(key(hostA), Optional.of(key(ctrlA))));
    }

    @Test
    void oneKeyPerFileIsTheKeysOfEveryHostAsBefore() {
        DhchapSecret host = secret(1, 0x10), ctrl = secret(3, 0x40);
        DhchapKeys keys = ExportPlan.dhchapKeys(new DhchapConfig(host, Optional.of(ctrl)));
        assertThat(keys.hosts()).isEmpty();
        assertThat(keys.forHost(A)).contains(new DhchapKeys.HostKeys(key(host), Optional.of(key(ctrl))));
        assertThat(keys.forHost(D)).isEqualTo(keys.forHost(A));
    }
}
