package io.blocktarget.it;

import io.blocktarget.config.DhchapSecret;
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
 * Authentication with a real Linux 7.x host (issue 14; guest script {@code vm/auth-check.sh}): {@code nvme connect
 * --dhchap-secret} (a DHHC-1:01: key, transformed with the host NQN) succeeds and a wrong or missing key is refused
 * while another host's I/O goes on; {@code --dhchap-ctrl-secret} (bidirectional) succeeds with the right controller
 * key and fails with a wrong one; keys per host NQN (a key file of {@code HOSTNQN DHHC-1:...} lines): two host NQNs
 * with their own keys both connect and each is refused with the other's key; iSCSI discovery needs the server-wide discovery CHAP; a target whose initiators list
 * does not name the guest is not in SendTargets and its login is refused.
 */
@Tag("vm")
class LinuxAuthIT {
    private static final String NQN1 = "nqn.2026-11.io.blocktarget:auth1";
    private static final String NQN2 = "nqn.2026-11.io.blocktarget:auth2";
    private static final String NQN3 = "nqn.2026-11.io.blocktarget:auth3";
    /** The guest's host NQNs (vm/auth-check.sh HOSTA, HOSTB). */
    private static final String HOSTA = "nqn.2014-08.org.nvmexpress:uuid:0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f01";
    private static final String HOSTB = "nqn.2014-08.org.nvmexpress:uuid:0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f02";
    private static final String IQN_OPEN = "iqn.2026-11.io.blocktarget:open";
    private static final String IQN_LISTED = "iqn.2026-11.io.blocktarget:listed";

    @TempDir
    Path dir;

    private static String key(int transform, int length) {
        byte[] k = new byte[length];
        new SecureRandom().nextBytes(k);
        return DhchapSecret.of(transform, k).representation();
    }

    private void secret(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void dhchapAndIscsiAccessWithLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        String hostKey = key(1, 32);
        String ctrlKey = key(3, 64);
        String wrongKey = key(1, 32);
        secret("host.key", hostKey);
        secret("ctrl.key", ctrlKey);
        String keyA = key(1, 32);
        String keyB = key(2, 48);
        String ctrlB = key(1, 32);
        secret("hosts.keys", "# issue 14: a key per host\n" + HOSTA + " " + keyA + "\n" + HOSTB + " " + keyB);
        secret("ctrl.keys", HOSTB + " " + ctrlB);
        secret("disc.secret", "discovery-secret-1");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: off\n"
                + "discovery-chap: { user: disc-user, secret-file: disc.secret }\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/auth1.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: { iscsi: false, nvme: { subsystem: \"" + NQN1 + "\", nsid: 1 } }\n"
                + "access:\n  dhchap: { host-secret-file: host.key }\n");
        Files.writeString(dir.resolve("luns.d/auth2.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: { iscsi: false, nvme: { subsystem: \"" + NQN2 + "\", nsid: 1 } }\n"
                + "access:\n  dhchap: { host-secret-file: host.key, ctrl-secret-file: ctrl.key }\n");
        Files.writeString(dir.resolve("luns.d/auth3.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: { iscsi: false, nvme: { subsystem: \"" + NQN3 + "\", nsid: 1 } }\n"
                + "access:\n  dhchap: { host-secret-file: hosts.keys, ctrl-secret-file: ctrl.keys }\n");
        Files.writeString(dir.resolve("luns.d/open.yaml"), "backend: ram\nsize: 64MiB\n"
                + "export: { nvme: false, iscsi: { target: \"" + IQN_OPEN + "\", lun: 0 } }\n");
        Files.writeString(dir.resolve("luns.d/listed.yaml"), "backend: ram\nsize: 64MiB\n"
                + "export: { nvme: false, iscsi: { target: \"" + IQN_LISTED + "\", lun: 0 } }\n"
                + "access:\n  initiators: [iqn.2026-11.org.example:someone-else]\n");
        Path script = Path.of(LinuxAuthIT.class.getResource("/vm/auth-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("auth");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind",
                     InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 5 LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result result = vm.runGuest(script, Map.ofEntries(Map.entry("NQN1", NQN1),
                    Map.entry("NQN2", NQN2), Map.entry("NQN3", NQN3), Map.entry("HOSTKEY", hostKey),
                    Map.entry("CTRLKEY", ctrlKey), Map.entry("WRONGKEY", wrongKey), Map.entry("KEYA", keyA),
                    Map.entry("KEYB", keyB), Map.entry("CTRLB", ctrlB), Map.entry("IQN_OPEN", IQN_OPEN),
                    Map.entry("IQN_LISTED", IQN_LISTED), Map.entry("DUSER", "disc-user"),
                    Map.entry("DSECRET", "discovery-secret-1")));
            GuestReport report = GuestReport.parse(result.output());
            System.out.println("[auth / kernel latest]\n" + report.summary());
            String context = result.output() + "\nserver log:\n" + String.join("\n", server.stderr());
            assertThat(result.exitCode()).as(context).isZero();
            assertThat(report.failures()).as(context).isEmpty();
            for (String what : List.of("right-key-connects", "wrong-key-refused", "no-key-refused",
                    "other-host-io-continued", "bidirectional-connects", "wrong-ctrl-key-refused",
                    "host-a-own-key-connects", "host-b-own-keys-connect", "two-controllers",
                    "host-a-with-b-key-refused", "host-b-with-a-key-refused",
                    "discovery-without-chap-refused", "discovery-with-chap", "open-target-listed",
                    "listed-target-hidden", "open-target-login", "unlisted-initiator-refused")) {
                assertThat(report.checks()).as(what + "\n" + context).anyMatch(c -> c.what().equals(what) && c.ok());
            }
            assertThat(String.join("\n", server.stderr())).doesNotContain(hostKey.substring(10, 40),
                    ctrlKey.substring(10, 40), keyA.substring(10, 40), keyB.substring(10, 40),
                    ctrlB.substring(10, 40), "discovery-secret-1");
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
        }
    }
}
