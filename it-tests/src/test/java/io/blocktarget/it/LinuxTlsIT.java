package io.blocktarget.it;

import io.blocktarget.config.TlsPsk;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NVMe/TCP over TLS 1.3 with a PSK and a real Linux 7.x host (issue 14 item 2; guest script {@code vm/tls-check.sh}):
 * tlshd does the handshake with the key {@code nvme check-tls-key --insert} derived into the .nvme keyring,
 * {@code nvme connect --tls} connects and fio verifies over kTLS; a plain Connect to the subsystem that requires TLS
 * is refused while the TLS controller goes on; a plain subsystem on the same port works; a wrong key fails.
 */
@Tag("vm")
class LinuxTlsIT {
    private static final String SUB = "nqn.2026-11.io.blocktarget:tls";
    private static final String PLAIN = "nqn.2026-11.io.blocktarget:plain";

    @TempDir
    Path dir;

    private static String key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return TlsPsk.of(1, k).interchange();
    }

    @Test
    void nvmeConnectTlsWithLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        String key = key();
        String wrong = key();
        Path pskFile = dir.resolve("tls.psk");
        Files.writeString(pskFile, key + "\n");
        Files.setPosixFilePermissions(pskFile, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: off\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/tls.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: { iscsi: false, nvme: { subsystem: \"" + SUB + "\", nsid: 1 } }\n"
                + "access:\n  tls: required\n  tls-psk-file: tls.psk\n");
        Files.writeString(dir.resolve("luns.d/plain.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: { iscsi: false, nvme: { subsystem: \"" + PLAIN + "\", nsid: 1 } }\n");
        Path script = Path.of(LinuxTlsIT.class.getResource("/vm/tls-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("tls");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind",
                     InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 2 LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result result = vm.runGuest(script, Map.of("SUB", SUB, "PLAIN", PLAIN, "KEY", key,
                    "WRONG", wrong));
            GuestReport report = GuestReport.parse(result.output());
            String context = result.output() + "\nserver log:\n" + String.join("\n", server.stderr());
            System.out.println("[tls / kernel latest]\n" + context);
            assertThat(result.exitCode()).as(context).isZero();
            assertThat(report.failures()).as(context).isEmpty();
            for (String what : List.of("running", "insert", "connects", "namespace", "fio-verify-4k",
                    "fio-verify-256k", "refused-where-tls-required", "io-after-plain-refusal", "io",
                    "wrong-key-refused")) {
                assertThat(report.checks()).as(what + "\n" + context).anyMatch(c -> c.what().equals(what) && c.ok());
            }
            assertThat(String.join("\n", server.stderr())).contains("TLS 1.3 with the PSK of " + SUB)
                    .doesNotContain(key.substring(16, 50));
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
        }
    }
}
