package io.blocktarget.bench;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator over NVMe/TCP TLS 1.3 (NVMe/TCP Transport §3.6, issue 14 item 2) against an in-process
 * blocktarget whose subsystems have {@code access: {tls: required, tls-psk-file: ...}}: a PSK of hash 01
 * (TLS_AES_128_GCM_SHA256) and one of hash 02 (TLS_AES_256_GCM_SHA384), PSK identities of version 0 and 1. Written
 * data reads back verified through the records (128 KiB writes by R2T and H2CData span several records); a wrong
 * key ends the run with exit status 1 and the alert named, within the setup timeout rather than hanging; a plain
 * run against the subsystem is refused at Connect.
 */
@Tag("loopback")
class LoadGenTlsTest {
    private static final Pattern LINE = Pattern.compile("iops=(\\d+) .* errors=(\\d+)(?: unwritten=(\\d+))?");
    /** Fixed test keys: 32 bytes for hash 01, 48 for hash 02 (NVMe/TCP §3.6.1.5). */
    private static final byte[] KEY32 = new byte[32];
    private static final byte[] KEY48 = new byte[48];
    private static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000e014";

    static {
        for (int i = 0; i < 48; i++) {
            KEY48[i] = (byte) (0xA0 + i);
            if (i < 32) {
                KEY32[i] = (byte) (0x10 + i);
            }
        }
    }

    private static Path dir;
    private static TargetServer server;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("loadgen-tls");
        Files.createDirectories(dir.resolve("luns.d"));
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: 0\nnvme-port: " + port
                + "\ndiscovery-port: 0\ncontrol-socket: off\n");
        for (int hash : new int[] {1, 2}) {
            secret(dir.resolve("tls-0" + hash + ".psk"), psk(hash, false).interchange() + "\n");
            Files.writeString(dir.resolve("luns.d/tls-0" + hash + ".yaml"), "backend: ram\nsize: 64MiB\n"
                    + "logical-block-size: 4KiB\nexport: {iscsi: false}\n"
                    + "access: {tls: required, tls-psk-file: tls-0" + hash + ".psk}\n");
            secret(dir.resolve("wrong-0" + hash + ".psk"), psk(hash, true).interchange() + "\n");
        }
        server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** A key file as {@code nvme gen-tls-key > FILE; chmod 600 FILE} leaves it. */
    private static void secret(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    }

    /** The subsystem's key, or with {@code wrong} the same length with one bit flipped. */
    private static TlsPsk psk(int hash, boolean wrong) {
        byte[] key = (hash == 1 ? KEY32 : KEY48).clone();
        if (wrong) {
            key[0] ^= 1;
        }
        return TlsPsk.of(hash, key);
    }

    /** {@code unwritten} -1 when the line has none (no --verify). */
    record Run(int code, String out, String err, long iops, long errors, long unwritten) {
    }

    private static Run loadgen(int hash, String... args) {
        List<String> all = new ArrayList<>(List.of("--proto", "nvme", "--target", "127.0.0.1:" + port,
                "--name", "nqn.2026-11.io.blocktarget:tls-0" + hash));
        all.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGen.run(all.toArray(String[]::new), new PrintStream(out, true), new PrintStream(err, true));
        String stdout = out.toString(StandardCharsets.UTF_8);
        Matcher m = LINE.matcher(stdout);
        boolean found = m.find();
        return new Run(code, stdout, err.toString(StandardCharsets.UTF_8), found ? Long.parseLong(m.group(1)) : -1,
                found ? Long.parseLong(m.group(2)) : -1, found && m.group(3) != null ? Long.parseLong(m.group(3)) : -1);
    }

    private static String key(int hash) {
        return dir.resolve("tls-0" + hash + ".psk").toString();
    }

    /**
     * Sequential 128 KiB writes with the address pattern over 1 MiB (R2T, H2CData, several TLS records per PDU),
     * then 4 KiB random reads of it on two queues checked word by word, then reads of a range twice as large,
     * whose never-written half must read as zeros (unwritten) — so the verification over TLS sees the data.
     */
    @ParameterizedTest(name = "hash 0{0}, identity version {1}")
    @CsvSource({"1, 0", "1, 1", "2, 0", "2, 1"})
    void verifiedIoOverTls(int hash, int version) {
        String v = Integer.toString(version);
        String hostnqn = version == 1 ? HOSTNQN : NvmeConnection.HOSTNQN;   // --hostnqn names the identity's host
        // the ramp's writes cover the range too; a cold JVM with paranoid leak detection managed 12 I/Os in 1 s
        Run write = loadgen(hash, "--rw", "write", "--bs", "128k", "--qd", "8", "--jobs", "1", "--ramp", "1s",
                "--time", "2s", "--size", "1MiB", "--verify", "--tls-psk-file", key(hash), "--tls-identity-version", v,
                "--hostnqn", hostnqn);
        assertThat(write.code()).as("exit status; stderr: %s", write.err()).isZero();
        assertThat(write.errors()).isZero();
        assertThat(write.iops() * 2).as("the write pass covered the range (8 I/Os)").isGreaterThanOrEqualTo(8);
        Run read = loadgen(hash, "--rw", "randread", "--bs", "4k", "--qd", "32", "--jobs", "2", "--time", "1s",
                "--size", "1MiB", "--verify", "--tls-psk-file", key(hash), "--tls-identity-version", v,
                "--hostnqn", hostnqn);
        assertThat(read.code()).as("exit status; stderr: %s", read.err()).isZero();
        assertThat(read.iops()).isPositive();
        assertThat(read.errors()).as("verify errors reading back over TLS").isZero();
        assertThat(read.unwritten()).as("zeros reading back over TLS").isZero();
        Run beyond = loadgen(hash, "--rw", "randread", "--bs", "128k", "--qd", "8", "--jobs", "1", "--time", "1s",
                "--size", "2MiB", "--verify", "--tls-psk-file", key(hash), "--tls-identity-version", v,
                "--hostnqn", hostnqn);
        assertThat(beyond.code()).as(beyond.err()).isZero();
        assertThat(beyond.unwritten()).as("never-written blocks read as zeros").isPositive();
        assertThat(beyond.errors()).as("zeros of blocks this run never wrote").isZero();
    }

    /**
     * A key that differs in one bit: version 0 names no key, so the server's binder check fails (RFC 8446
     * §4.2.11, decrypt_error); version 1 carries the key's digest, which matches no configured PSK
     * (handshake_failure). Either way exit status 1 with the alert named, well within the test's timeout.
     */
    @ParameterizedTest(name = "identity version {0}")
    @ValueSource(ints = {0, 1})
    @Timeout(30)
    void aWrongKeyFailsTheRunWithTheAlertNamed(int version) {
        for (int hash : new int[] {1, 2}) {
            Run r = loadgen(hash, "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s",
                    "--tls-psk-file", dir.resolve("wrong-0" + hash + ".psk").toString(), "--tls-identity-version",
                    Integer.toString(version));
            assertThat(r.code()).as("stderr: %s", r.err()).isEqualTo(1);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).startsWith("loadgen: nvme admin queue: TLS handshake failed: the target sent alert "
                    + (version == 0 ? "decrypt_error" : "handshake_failure"));
        }
    }

    @Test
    void plainNvmeToATlsRequiredSubsystemIsRefusedAtConnect() {
        Run r = loadgen(1, "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("loadgen: nvme admin queue: Connect to nqn.2026-11.io.blocktarget:tls-01")
                .contains("refused");
    }

    @Test
    void aPskFileThatIsNoPskIsAUsageErrorWithoutTheKey() throws IOException {
        Path bad = dir.resolve("bad.psk");
        Files.writeString(bad, "NVMeTLSkey-1:03:c2VjcmV0:\n");
        Run r = loadgen(1, "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s",
                "--tls-psk-file", bad.toString());
        assertThat(r.code()).isEqualTo(2);
        // the reason is TlsPsk.parse's own (config's wording); the line names the option and file, never the key
        assertThat(r.err()).startsWith("loadgen: --tls-psk-file " + bad + " ").contains("03")
                .doesNotContain("c2VjcmV0");
        Run missing = loadgen(1, "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s",
                "--tls-psk-file", dir.resolve("absent.psk").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).startsWith("loadgen: --tls-psk-file " + dir.resolve("absent.psk") + ": cannot read");
    }
}
