package io.blocktarget.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The blktests hook {@code contrib/blktests/nvme_target_control} over HTTP: a server process on this host with
 * control-listen and a bearer token, the hook speaking HTTP itself (bash's /dev/tcp) as it does in the initiator VM,
 * where there is no Java. What {@code setup} leaves is read back from the LUN file the API writes into the config
 * directory; every refusal exits 1 with the reason on stderr. The CLI way (control socket) and what a host then sees
 * over NVMe/TCP: {@link io.blocktarget.it.nvme.BlktestsHookIT}; the real blktests nvme group: {@link LinuxHarnessesIT}.
 */
@Tag("loopback")
class BlktestsHookHttpIT {
    private static final Path HOOK = ServerProcess.REPO.resolve("contrib/blktests/nvme_target_control");
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f01fb42-9f7f-4856-b0b3-51e60b8de349";
    private static final String SUBSYS = "nqn.2026-11.io.blocktarget:blktests-subsystem-1";
    private static final String UUID = "91fdba0d-f87b-4c25-b80f-db7be1418b9e";

    @TempDir
    static Path dir;
    static ServerProcess server;
    static String url;

    record Hook(int exit, String out, String err) {
    }

    @BeforeAll
    static void serve() throws Exception {
        int control = freePort();
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/other.yaml"), "backend: ram\nsize: 64MiB\n");
        Files.writeString(dir.resolve("control.token"), "hook-test-token-0123456789abcdef\n");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: control.sock\n"
                + "control-listen: 127.0.0.1:" + control + "\ncontrol-token-file: control.token\n"
                + "iscsi-port: " + freePort() + "\nnvme-port: " + freePort() + "\ndiscovery-port: 0\n");
        server = ServerProcess.start("serve", "--config", dir.toString(), "--bind", "127.0.0.1");
        server.awaitLine(false, l -> l.contains("serving 1 LUNs"), Duration.ofSeconds(60));
        url = "http://127.0.0.1:" + control;
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            server.close();
        }
    }

    @Test
    void configAnswersOneLineEach() throws Exception {
        Map<String, String> env = Map.of("BLOCKTARGET_TRADDR", "192.0.2.1", "BLOCKTARGET_TRSVCID", "14420");
        assertThat(hook(env, "config", "--show-trtype").out()).isEqualTo("tcp\n");
        assertThat(hook(env, "config", "--show-blkdev-type").out()).isEqualTo("device\n");
        assertThat(hook(env, "config", "--show-traddr").out()).isEqualTo("192.0.2.1\n");
        assertThat(hook(env, "config", "--show-trsvid").out()).isEqualTo("14420\n");
        assertThat(hook(env, "config", "--show-subsysnqn").out()).isEqualTo(SUBSYS + "\n");
        assertThat(hook(env, "config", "--show-subsys-uuid").out()).isEqualTo(UUID + "\n");
        assertThat(hook(Map.of("BLOCKTARGET_HOSTNQN", HOST), "config", "--show-hostnqn").out()).isEqualTo(HOST + "\n");
        assertThat(hook(env, "config", "--show-nothing").exit()).isEqualTo(2);
        assertThat(hook(env, "bogus").exit()).isEqualTo(2);
        assertThat(hook(env, "add-ports", "--ports", "4").exit()).isZero();
    }

    @Test
    void setupAndCleanupOverHttp() throws Exception {
        Map<String, String> env = http(Map.of("BLOCKTARGET_LBS", "16384", "NVME_IMG_SIZE", "512M"));
        Hook setup = hook(env, "setup", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID, "--hostnqn", HOST);
        assertThat(setup.exit()).as(setup.err()).isZero();
        Path lun = lunFile(SUBSYS);
        assertThat(Files.readString(lun)).contains("backend: ram", "size: 512MiB", "logical-block-size: 16KiB",
                "iscsi: false", "subsystem: " + SUBSYS, "nsid: 1", "uuid: " + UUID, "- " + HOST);
        // setup again (a run interrupted before its cleanup): replaced, not refused
        assertThat(hook(env, "setup", "--subsysnqn", SUBSYS, "--subsys-uuid", UUID, "--hostnqn", HOST).exit()).isZero();
        Hook cleanup = hook(env, "cleanup", "--subsysnqn", SUBSYS);
        assertThat(cleanup.exit()).as(cleanup.err()).isZero();
        assertThat(lun).doesNotExist();
        assertThat(hook(env, "cleanup", "--subsysnqn", SUBSYS).exit()).as("cleanup is idempotent").isZero();
    }

    @Test
    void dhchapKeysGoWhereTheServerReadsThem() throws Exception {
        String subsys = SUBSYS + "-auth";
        String hostKey = dhchapKey(32, 1);
        String ctrlKey = dhchapKey(48, 2);
        Map<String, String> env = http(Map.of("BLOCKTARGET_KEY_DIR", dir.resolve("blktests-keys").toString(),
                "BLOCKTARGET_SERVER_KEY_DIR", "blktests-keys"));
        Hook setup = hook(env, "setup", "--subsysnqn", subsys, "--hostnqn", HOST, "--hostkey", hostKey,
                "--ctrkey", ctrlKey);
        assertThat(setup.exit()).as(setup.err()).isZero();
        String lun = Files.readString(lunFile(subsys));
        assertThat(lun).contains("host-secret-file: " + dir.resolve("blktests-keys"), "ctrl-secret-file: ");
        try (var keys = Files.list(dir.resolve("blktests-keys"))) {
            List<Path> files = keys.sorted().toList();
            assertThat(files).hasSize(2);
            assertThat(Files.readString(files.get(0))).isEqualTo(ctrlKey + "\n");   // NAME.ctrlkey, NAME.hostkey
            assertThat(Files.readString(files.get(1))).isEqualTo(hostKey + "\n");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get(1)))).isEqualTo("rw-------");
        }
        assertThat(hook(env, "cleanup", "--subsysnqn", subsys).exit()).isZero();
        try (var keys = Files.list(dir.resolve("blktests-keys"))) {
            assertThat(keys).as("keys removed with the LUN").isEmpty();
        }
        // without a key directory the hook refuses rather than serve a test expecting authentication without it
        Hook refused = hook(http(Map.of()), "setup", "--subsysnqn", subsys, "--hostnqn", HOST, "--hostkey", hostKey);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("BLOCKTARGET_KEY_DIR");
        assertThat(lunFile(subsys)).doesNotExist();
        Hook ctrlOnly = hook(env, "setup", "--subsysnqn", subsys, "--hostnqn", HOST, "--ctrkey", ctrlKey);
        assertThat(ctrlOnly.exit()).isEqualTo(1);
        assertThat(ctrlOnly.err()).contains("--ctrkey needs --hostkey");
        Hook notAKey = hook(env, "setup", "--subsysnqn", subsys, "--hostnqn", HOST, "--hostkey", "secret");
        assertThat(notAKey.exit()).isEqualTo(1);
        assertThat(notAKey.err()).contains("not a DHHC-1 secret");
    }

    @Test
    void refusalsExitOneWithTheReason() throws Exception {
        // blktests hard-codes a few subsystem names that are not NQNs (nvme/031 blktests-subsystem-N): refused
        Hook notNqn = hook(http(Map.of()), "setup", "--subsysnqn", "blktests-subsystem-0", "--hostnqn", HOST);
        assertThat(notNqn.exit()).isEqualTo(1);
        assertThat(notNqn.err()).contains("blktests-subsystem-0 is not nqn.YYYY-MM.reverse.domain:string");
        Hook badToken = hook(Map.of("BLOCKTARGET_CONTROL", url, "BLOCKTARGET_TOKEN_FILE",
                dir.resolve("blocktarget.yaml").toString()), "cleanup", "--subsysnqn", SUBSYS);
        assertThat(badToken.exit()).isEqualTo(1);
        assertThat(badToken.err()).contains("401");
        Hook noToken = hook(Map.of("BLOCKTARGET_CONTROL", url), "cleanup", "--subsysnqn", SUBSYS);
        assertThat(noToken.exit()).isEqualTo(1);
        assertThat(noToken.err()).contains("BLOCKTARGET_TOKEN_FILE");
        Hook unreachable = hook(http(Map.of("BLOCKTARGET_CONTROL", "http://127.0.0.1:" + freePort())), "cleanup",
                "--subsysnqn", SUBSYS);
        assertThat(unreachable.exit()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot talk to the server").doesNotContain("/dev/tcp");
        assertThat(hook(http(Map.of()), "setup", "--hostnqn", HOST).exit()).as("no --subsysnqn: usage").isEqualTo(2);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    private static Map<String, String> http(Map<String, String> more) {
        Map<String, String> env = new HashMap<>(Map.of("BLOCKTARGET_CONTROL", url,
                "BLOCKTARGET_TOKEN_FILE", dir.resolve("control.token").toString()));
        env.putAll(more);
        return env;
    }

    /** The LUN file the API wrote for a subsystem: the hook names its LUN blktests-(16 hex digits of SHA-256). */
    private static Path lunFile(String subsysnqn) throws Exception {
        byte[] sha = java.security.MessageDigest.getInstance("SHA-256").digest(subsysnqn.getBytes());
        return dir.resolve("luns.d/blktests-" + java.util.HexFormat.of().formatHex(sha).substring(0, 16) + ".yaml");
    }

    /** A DH-HMAC-CHAP secret as nvme gen-dhchap-key prints it: base64(key || CRC-32 LE of key) (TP 8006). */
    private static String dhchapKey(int length, int hmac) {
        byte[] key = new byte[length];
        new SecureRandom().nextBytes(key);
        CRC32 crc = new CRC32();
        crc.update(key);
        ByteBuffer b = ByteBuffer.allocate(length + 4).order(ByteOrder.LITTLE_ENDIAN).put(key).putInt((int) crc.getValue());
        return String.format("DHHC-1:%02x:%s:", hmac, Base64.getEncoder().encodeToString(b.array()));
    }

    private static Hook hook(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", HOOK.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("BLOCKTARGET_") || k.startsWith("NVME_"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "hook", ".out");
        Path err = Files.createTempFile(dir, "hook", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).as("hook %s finished", List.of(args)).isTrue();
        Hook h = new Hook(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return h;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
