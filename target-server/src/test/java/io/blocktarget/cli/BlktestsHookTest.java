package io.blocktarget.cli;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.control.ControlFixture;
import io.blocktarget.control.InMemoryControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * contrib/blktests/nvme_target_control, run as blktests runs it (a process, environment only) against a
 * ControlServer on a real Unix socket; the CLI it calls is this build's Main. Every sub-command.
 */
@Tag("loopback")
class BlktestsHookTest {
    private static final Path HOOK = Path.of("..", "contrib", "blktests", "nvme_target_control").toAbsolutePath()
            .normalize();
    private static final String SUBSYS = "nqn.2026-11.io.blocktarget:blktests-subsystem-7";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f01fb42-9f7f-4856-b0b3-51e60b8de349";
    private static final String UUID_TEXT = "3a5c104c-ee41-38a1-8ccf-0968003d54e7";

    @TempDir
    static Path tmp;
    private static InMemoryControlPlane plane;
    private static ControlFixture fixture;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    static void start() throws Exception {
        plane = new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(), Optional.empty(),
                ConfigLoader.embeddedDefault().luns());
        fixture = ControlFixture.start(plane, tmp);
    }

    @AfterAll
    static void stop() throws Exception {
        fixture.close();
    }

    private static Result hook(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", HOOK.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        String java = ProcessHandle.current().info().command().orElse("java");
        pb.environment().put("BLOCKTARGET_CLI", java + " --enable-native-access=ALL-UNNAMED"
                + " --sun-misc-unsafe-memory-access=allow -cp " + System.getProperty("java.class.path")
                + " io.blocktarget.cli.Main");
        pb.environment().put("BLOCKTARGET_CONTROL", fixture.socket.toString());
        pb.environment().remove("NVME_IMG_SIZE");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("hook %s finished", List.of(args)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void configPrintsExactlyOneLineEach() throws Exception {
        Map<String, String> expected = Map.of(
                "--show-trtype", "tcp",
                "--show-blkdev-type", "device",
                "--show-hostnqn", HOST,
                "--show-hostid", "0f01fb42-9f7f-4856-b0b3-51e60b8de349",
                "--show-host-traddr", "127.0.0.1",
                "--show-traddr", "127.0.0.1",
                "--show-trsvid", "14420",
                "--show-subsys-uuid", "91fdba0d-f87b-4c25-b80f-db7be1418b9e",
                "--show-subsysnqn", "nqn.2026-11.io.blocktarget:blktests-subsystem-1");
        Map<String, String> env = Map.of("BLOCKTARGET_HOSTNQN", HOST,
                "BLOCKTARGET_HOSTID", "0f01fb42-9f7f-4856-b0b3-51e60b8de349", "BLOCKTARGET_TRSVCID", "14420");
        for (var e : expected.entrySet()) {
            Result r = hook(env, "config", e.getKey());
            assertThat(r.exit()).as(e.getKey()).isZero();
            assertThat(r.out()).as(e.getKey()).isEqualTo(e.getValue() + "\n");
        }
        assertThat(hook(Map.of(), "config", "--show-nothing").exit()).isEqualTo(2);
        assertThat(hook(Map.of(), "frobnicate").exit()).isEqualTo(2);
    }

    @Test
    void setupAddPortsCleanup() throws Exception {
        Result setup = hook(Map.of("NVME_IMG_SIZE", "64M"), "setup", "--subsysnqn", SUBSYS, "--subsys-uuid",
                UUID_TEXT, "--hostnqn", HOST);
        assertThat(setup.exit()).as(setup.err()).isZero();
        // Ready when setup returns: the LUN is in the server's set now, no waiting.
        List<LunConfig> mine = plane.lunConfigs().stream()
                .filter(l -> l.nvme().map(e -> e.subsystem().equals(SUBSYS)).orElse(false)).toList();
        assertThat(mine).hasSize(1);
        LunConfig lun = mine.getFirst();
        assertThat(lun.nvme().orElseThrow().nsid()).isEqualTo(1);
        assertThat(lun.nvme().orElseThrow().uuid()).contains(UUID.fromString(UUID_TEXT));
        assertThat(lun.access().hosts()).containsExactly(HOST);
        assertThat(lun.iscsi()).isEmpty();
        assertThat(lun.size()).isEqualTo(64L << 20);
        assertThat(lun.logicalBlockSize()).isEqualTo(512);

        // Setup again (an interrupted run left the LUN): replaced, still one.
        assertThat(hook(Map.of(), "setup", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID_TEXT, "--hostnqn", HOST)
                .exit()).isZero();
        assertThat(plane.lunConfigs().stream().filter(l -> l.nvme().map(e -> e.subsystem().equals(SUBSYS))
                .orElse(false))).hasSize(1);

        assertThat(hook(Map.of(), "add-ports", "--ports", "2", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID_TEXT,
                "--hostnqn", HOST).exit()).isZero();

        Result cleanup = hook(Map.of(), "cleanup", "--subsysnqn", SUBSYS);
        assertThat(cleanup.exit()).as(cleanup.err()).isZero();
        assertThat(plane.lunConfigs()).noneMatch(l -> l.nvme().map(e -> e.subsystem().equals(SUBSYS)).orElse(false));
        assertThat(hook(Map.of(), "cleanup", "--subsysnqn", SUBSYS).exit()).as("idempotent").isZero();
    }

    @Test
    void authenticationKeysAreRefusedNotIgnored() throws Exception {
        int before = plane.lunConfigs().size();
        for (String option : List.of("--hostkey", "--ctrkey", "--ctrlkey")) {
            Result r = hook(Map.of(), "setup", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID_TEXT, "--hostnqn", HOST,
                    option, "DHHC-1:00:abc:");
            assertThat(r.exit()).as(option).isEqualTo(1);
            assertThat(r.err()).contains("DH-HMAC-CHAP");
        }
        assertThat(plane.lunConfigs()).hasSize(before);
    }

    @Test
    void serverRefusalIsExit1() throws Exception {
        Result r = hook(Map.of(), "setup", "--subsysnqn", "not-an-nqn", "--subsys-uuid", UUID_TEXT, "--hostnqn",
                HOST);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("export.nvme.subsystem");
    }
}
