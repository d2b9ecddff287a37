package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlServer;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * contrib/blktests/nvme_target_control against a real server (registry, control API on its Unix socket, NVMe/TCP
 * port), run as blktests runs it: a process with its environment, the CLI being the built jar. After {@code setup} the
 * subsystem blktests names is there at once with one namespace carrying the UUID blktests passed, only blktests' host
 * may connect; {@code cleanup} takes it away again, and the LUN file written back to luns.d with it.
 */
@Tag("loopback")
class BlktestsHookIT {
    private static final Path REPO = Path.of(System.getProperty("blocktarget.repo", "..")).toAbsolutePath().normalize();
    private static final Path JAR = Path.of(System.getProperty("blocktarget.jar", "../target-server/target/blocktarget.jar"))
            .toAbsolutePath();
    private static final String SUBSYS = "nqn.2026-11.io.blocktarget:blktests-it";
    private static final String UUID_TEXT = "6c0e8a57-3d4b-4f2e-9a1c-5b7d2e8f1a30";

    @TempDir
    Path dir;

    @Test
    void everySubCommandAgainstARunningServer() throws Exception {
        int nvmePort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nvmePort = s.getLocalPort();
        }
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: 0\ndiscovery-port: 0\n"
                + "nvme-port: " + nvmePort + "\ncontrol-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/base.yaml"), "backend: null\nsize: 1GiB\n");
        TargetServer server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
        try (ControlServer control = ControlServer.start(server.vertx(), server.controlPlane(),
                server.controlPlane().serverConfig().control())) {
            Map<String, String> env = Map.of("BLOCKTARGET_CONTROL", socket.toString(),
                    "BLOCKTARGET_TRSVCID", Integer.toString(nvmePort),
                    "BLOCKTARGET_HOSTNQN", NvmeTcpTestHost.HOSTNQN, "BLOCKTARGET_SUBSYSNQN", SUBSYS);
            assertThat(hook(env, "config", "--show-trtype").out()).isEqualTo("tcp\n");
            assertThat(hook(env, "config", "--show-traddr").out()).isEqualTo("127.0.0.1\n");
            assertThat(hook(env, "config", "--show-trsvid").out()).isEqualTo(nvmePort + "\n");
            assertThat(hook(env, "config", "--show-hostnqn").out()).isEqualTo(NvmeTcpTestHost.HOSTNQN + "\n");
            assertThat(hook(env, "config", "--show-subsysnqn").out()).isEqualTo(SUBSYS + "\n");
            assertThat(hook(env, "config", "--show-blkdev-type").out()).isEqualTo("device\n");
            for (String option : List.of("--show-hostid", "--show-subsys-uuid")) {
                Result r = hook(env, "config", option);
                assertThat(r.exit()).as(option).isZero();
                assertThat(r.out()).as(option).matches("[0-9a-f-]{36}\n");
            }

            Result setup = hook(Map.of("BLOCKTARGET_CONTROL", socket.toString(), "NVME_IMG_SIZE", "64M"), "setup",
                    "--subsysnqn", SUBSYS, "--subsys-uuid", UUID_TEXT, "--hostnqn", NvmeTcpTestHost.HOSTNQN);
            assertThat(setup.exit()).as(setup.err()).isZero();
            assertThat(hook(env, "add-ports", "--ports", "1", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID_TEXT,
                    "--hostnqn", NvmeTcpTestHost.HOSTNQN).exit()).isZero();
            try (var files = Files.list(dir.resolve("luns.d"))) {
                assertThat(files.count()).as("the hook's LUN written back beside base.yaml").isEqualTo(2);
            }

            // ready when setup returned: blktests' host connects at once and sees namespace 1 with its UUID
            try (NvmeTcpTestHost host = NvmeTcpTestHost.open(nvmePort, false, false)) {
                NvmeTcpTestHost.require(host.connect(SUBSYS, 0, 31, 0xFFFF, 0, 0), "connect");
                host.enable();
                assertThat(host.identifyNamespace(1).nsze()).isEqualTo((64L << 20) / 512);
                NvmeTcpTestHost.Reply descriptors = host.execute(new IdentifyCommand(0, 1,
                        IdentifyCommand.CNS_NAMESPACE_DESCRIPTORS, 0, 0, 0, 0, null).toSqe(), null,
                        IdentifyCommand.DATA_SIZE);
                NvmeTcpTestHost.require(descriptors, "namespace identification descriptors");
                assertThat(HexFormat.of().formatHex(descriptors.data()))
                        .as("a UUID descriptor (NIDT 3) with blktests' UUID")
                        .contains("0310" + "0000" + UUID_TEXT.replace("-", ""));
            }
            // any other host is refused: blktests' host NQN is the subsystem's only allowed host
            try (NvmeTcpTestHost other = NvmeTcpTestHost.open(nvmePort, false, false)) {
                other.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
                assertThat(other.connect(SUBSYS, 0, 31, 0xFFFF, 0, 0).ok()).isFalse();
            }

            Result cleanup = hook(env, "cleanup", "--subsysnqn", SUBSYS);
            assertThat(cleanup.exit()).as(cleanup.err()).isZero();
            assertThat(server.controlPlane().luns()).extracting(l -> l.config().name()).containsExactly("base");
            try (var files = Files.list(dir.resolve("luns.d"))) {
                assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("base.yaml");
            }
            try (NvmeTcpTestHost host = NvmeTcpTestHost.open(nvmePort, false, false)) {
                assertThat(host.connect(SUBSYS, 0, 31, 0xFFFF, 0, 0).ok()).as("subsystem gone").isFalse();
            }
        } finally {
            server.stop();
        }
    }

    record Result(int exit, String out, String err) {
    }

    private Result hook(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash",
                REPO.resolve("contrib/blktests/nvme_target_control").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile());
        String java = ProcessHandle.current().info().command().orElse("java");
        pb.environment().put("BLOCKTARGET_CLI", java + " --enable-native-access=ALL-UNNAMED"
                + " --sun-misc-unsafe-memory-access=allow -jar " + JAR);
        pb.environment().remove("NVME_IMG_SIZE");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("hook %s finished", List.of(args)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
