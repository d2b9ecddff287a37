package io.blocktarget.transport.nvmetcp;

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
 * Fuzzing the NVMe/TCP connection handler over the real NVMe layer (see {@link NvmeTcpFuzzTarget}). As in
 * IscsiFuzzTest: the {@code @FuzzTest}s replay src/test/resources/.../NvmeTcpFuzzTestInputs/METHOD in the stress
 * tier (the quick tier replays them without Jazzer, {@code *Input}) and fuzz coverage-guided with JAZZER_FUZZ=1
 * (scripts/fuzz); {@code seeded*} is the stress tier's short deterministic run.
 */
class NvmeTcpFuzzTest {
    @FuzzTest(maxDuration = "10m")
    @Tag("stress")
    void adminQueue(byte[] input) {
        NvmeTcpFuzzTarget.adminQueue(input);
    }

    @FuzzTest(maxDuration = "10m")
    @Tag("stress")
    void ioQueue(byte[] input) {
        NvmeTcpFuzzTarget.ioQueue(input);
    }

    /** The quick tier's replay of {@link #adminQueue}'s inputs (seeds, minimized crashes), without Jazzer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("adminQueueInputs")
    void adminQueueInput(String file, byte[] input) {
        NvmeTcpFuzzTarget.adminQueue(input);
    }

    static Stream<Arguments> adminQueueInputs() {
        return SeededRun.inputs(NvmeTcpFuzzTest.class, "adminQueue");
    }

    /** The quick tier's replay of {@link #ioQueue}'s inputs (seeds, minimized crashes), without Jazzer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ioQueueInputs")
    void ioQueueInput(String file, byte[] input) {
        NvmeTcpFuzzTarget.ioQueue(input);
    }

    static Stream<Arguments> ioQueueInputs() {
        return SeededRun.inputs(NvmeTcpFuzzTest.class, "ioQueue");
    }

    @Test
    @Tag("stress")
    void seededAdminQueue() {
        assertThat(SeededRun.run("nvmetcp-admin", NvmeTcpFuzzTarget.adminMutator(), NvmeTcpFuzzTarget::adminQueue,
                0x4E56L, 400)).isPositive();
    }

    @Test
    @Tag("stress")
    void seededIoQueue() {
        assertThat(SeededRun.run("nvmetcp-io", NvmeTcpFuzzTarget.ioMutator(), NvmeTcpFuzzTarget::ioQueue,
                0x4E57L, 400)).isPositive();
    }

    @Test
    @EnabledIfSystemProperty(named = "fuzz.writeSeeds", matches = "true")
    void writeSeeds() throws IOException {
        Path base = Path.of("src/test/resources/io/blocktarget/transport/nvmetcp/NvmeTcpFuzzTestInputs");
        SeededRun.writeSeeds(base.resolve("adminQueue"), NvmeTcpFuzzTarget.adminSeeds());
        SeededRun.writeSeeds(base.resolve("ioQueue"), NvmeTcpFuzzTarget.ioSeeds());
    }
}
