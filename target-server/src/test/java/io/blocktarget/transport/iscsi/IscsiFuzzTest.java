package io.blocktarget.transport.iscsi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.blocktarget.fuzz.SeededRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzing the iSCSI connection handler (see {@link IscsiFuzzTarget} for the oracle). The {@code @FuzzTest}s are
 * Jazzer's: in a normal test run they replay the inputs under
 * src/test/resources/io/blocktarget/transport/iscsi/IscsiFuzzTestInputs/METHOD (seeds and minimized crashes);
 * with JAZZER_FUZZ=1 (scripts/fuzz) they fuzz, coverage-guided. The {@code seeded*} tests are the short,
 * deterministic structure-aware run of every test suite.
 */
class IscsiFuzzTest {
    @FuzzTest(maxDuration = "10m")
    void afterLogin(byte[] input) {
        IscsiFuzzTarget.afterLogin(input);
    }

    @FuzzTest(maxDuration = "10m")
    void fromConnect(byte[] input) {
        IscsiFuzzTarget.fromConnect(input);
    }

    @Test
    @Tag("stress")
    void seededAfterLogin() {
        assertThat(SeededRun.run("iscsi-after-login", IscsiFuzzTarget.afterLoginMutator(), IscsiFuzzTarget::afterLogin,
                0x15C51L, 800)).isPositive();
    }

    @Test
    @Tag("stress")
    void seededFromConnect() {
        assertThat(SeededRun.run("iscsi-from-connect", IscsiFuzzTarget.fromConnectMutator(),
                IscsiFuzzTarget::fromConnect, 0x15C52L, 800)).isPositive();
    }

    @Test
    @EnabledIfSystemProperty(named = "fuzz.writeSeeds", matches = "true")
    void writeSeeds() throws IOException {
        Path base = Path.of("src/test/resources/io/blocktarget/transport/iscsi/IscsiFuzzTestInputs");
        SeededRun.writeSeeds(base.resolve("afterLogin"), IscsiFuzzTarget.afterLoginSeeds());
        SeededRun.writeSeeds(base.resolve("fromConnect"), IscsiFuzzTarget.fromConnectSeeds());
    }
}
