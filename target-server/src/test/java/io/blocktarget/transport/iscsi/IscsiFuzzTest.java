package io.blocktarget.transport.iscsi;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.blocktarget.fuzz.SeededRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzing the iSCSI connection handler (see {@link IscsiFuzzTarget} for the oracle). The {@code @FuzzTest}s are
 * Jazzer's: in the stress tier they replay the inputs under
 * src/test/resources/io/blocktarget/transport/iscsi/IscsiFuzzTestInputs/METHOD (seeds and minimized crashes), which
 * the quick tier replays without Jazzer ({@code *Input}); with JAZZER_FUZZ=1 (scripts/fuzz) they fuzz,
 * coverage-guided. The {@code seeded*} tests are the stress tier's short, deterministic structure-aware run.
 */
class IscsiFuzzTest {
    @FuzzTest(maxDuration = "10m")
    @Tag("stress")
    void afterLogin(byte[] input) {
        IscsiFuzzTarget.afterLogin(input);
    }

    @FuzzTest(maxDuration = "10m")
    @Tag("stress")
    void fromConnect(byte[] input) {
        IscsiFuzzTarget.fromConnect(input);
    }

    /** The quick tier's replay of {@link #afterLogin}'s inputs (seeds, minimized crashes), without Jazzer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("afterLoginInputs")
    void afterLoginInput(String file, byte[] input) {
        IscsiFuzzTarget.afterLogin(input);
    }

    static Stream<Arguments> afterLoginInputs() {
        return SeededRun.inputs(IscsiFuzzTest.class, "afterLogin");
    }

    /** The quick tier's replay of {@link #fromConnect}'s inputs (seeds, minimized crashes), without Jazzer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fromConnectInputs")
    void fromConnectInput(String file, byte[] input) {
        IscsiFuzzTarget.fromConnect(input);
    }

    static Stream<Arguments> fromConnectInputs() {
        return SeededRun.inputs(IscsiFuzzTest.class, "fromConnect");
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
