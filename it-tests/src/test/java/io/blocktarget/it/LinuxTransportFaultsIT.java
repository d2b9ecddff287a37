package io.blocktarget.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connection faults of fault rules as a Linux 7.x host meets them (issue 11 item 2), on one 16 KiB LUN over iSCSI
 * and NVMe/TCP with header and data digests on ({@code vm/xfaults-check.sh}): a dropped connection at a read makes
 * open-iscsi and nvme-tcp reconnect and retry it (the other protocol's session reads on meanwhile); an Async Message
 * requesting logout (AsyncEvent 1) makes iscsid log out and in again; a wrong header or data digest is detected by
 * both (the kernel logs it) and the read succeeds after their recovery.
 */
@Tag("vm")
class LinuxTransportFaultsIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:xflt";
    private static final String NQN = "nqn.2026-11.io.blocktarget:xflt";
    private static final Duration STEP = Duration.ofSeconds(420);

    @TempDir
    Path dir;

    @Test
    void connectionFaultsSeenByLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/xflt.yaml"), """
                backend: ram
                size: 128MiB
                logical-block-size: 16KiB
                faults:
                  - { id: drop-iscsi, ops: [read], lba: 5000, trigger: first, count: 1, action: drop-connection }
                  - { id: drop-nvme, ops: [read], lba: 5100, trigger: first, count: 1, action: drop-connection }
                  - { id: logout, ops: [read], lba: 5200, trigger: first, count: 1, action: async-logout, logout-within: 30 }
                  - { id: hdgst-iscsi, ops: [read], lba: 5300, trigger: first, count: 1, action: corrupt-digest, digest: header }
                  - { id: ddgst-iscsi, ops: [read], lba: 5400, trigger: first, count: 1, action: corrupt-digest, digest: data }
                  - { id: hdgst-nvme, ops: [read], lba: 5500, trigger: first, count: 1, action: corrupt-digest, digest: header }
                  - { id: ddgst-nvme, ops: [read], lba: 5600, trigger: first, count: 1, action: corrupt-digest, digest: data }
                """);
        Path script = Path.of(LinuxTransportFaultsIT.class.getResource("/vm/xfaults-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("xflt");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            try (ServerProcess guest = vm.startGuest(script, List.of("IQN=" + IQN, "NQN=" + NQN), "latest",
                    Duration.ofMinutes(25))) {
                guest.awaitLine(true, l -> l.equals("STEP connected"), STEP);
                guest.awaitLine(true, l -> l.equals("STEP logout-requested"), STEP);
                // iscsid answers AsyncEvent 1 with a Logout, then logs in again (a second login of the session)
                server.awaitLine(false, l -> l.contains("asking the initiator to log out"), STEP);
                guest.awaitLine(true, l -> l.equals("STEP done"), Duration.ofSeconds(900));
                List<String> out = new ArrayList<>();
                cli(out, "fault", "list", "xflt", "--json", "--control", socket.toString());
                int rc = guest.awaitExit(Duration.ofMinutes(5));
                GuestReport report = GuestReport.parse(String.join("\n", guest.stdout()));
                String log = String.join("\n", server.stderr());
                System.out.println("[transport faults / kernel latest]\n" + report.summary() + String.join("\n", out));
                assertThat(rc).as("guest exit code; output:\n%s\nserver log:\n%s", report.output(), log).isZero();
                assertThat(report.failures()).as(report.output() + "\nserver log:\n" + log).isEmpty();
                report.assertPassed("sd-read-after-drop", "sd-kernel-saw-conn-error",
                        "nvme-unaffected-by-iscsi-drop", "sd-io-resumes", "nvme-read-after-drop",
                        "nvme-kernel-reconnected", "sd-unaffected-by-nvme-drop", "nvme-io-resumes",
                        "sd-read-with-async-logout", "nvme-unaffected", "sd-read-after-header-digest",
                        "sd-kernel-saw-digest-error", "sd-read-after-data-digest", "nvme-read-after-header-digest",
                        "nvme-kernel-saw-header-digest", "nvme-read-after-data-digest",
                        "nvme-kernel-saw-data-digest");
                // the target's side: each fault happened once, and the initiator answered the Async Message
                assertThat(log).contains("fault rule drop-iscsi: connection dropped")
                        .contains("fault rule drop-nvme: connection dropped")
                        .contains("with a wrong header digest").contains("with a wrong data digest")
                        .contains("with a wrong HDGST").contains("with a wrong DDGST");
                assertThat(server.stderr()).as(log).anyMatch(l -> l.contains("logout ("));
                String list = String.join("\n", out);
                for (String id : List.of("drop-iscsi", "drop-nvme", "logout", "hdgst-iscsi", "ddgst-iscsi",
                        "hdgst-nvme", "ddgst-nvme")) {
                    assertThat(list).containsPattern("\"id\" : \"" + id + "\"[^}]*\"hits\" : 1,[^}]*"
                            + "\"notApplicable\" : 0");
                }
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** Runs the CLI against the control socket; it must exit 0; its output goes to {@code out}. */
    private static void cli(List<String> out, String... args) throws Exception {
        try (ServerProcess cli = ServerProcess.start(args)) {
            int rc = cli.awaitExit(Duration.ofSeconds(60));
            out.add("$ blocktarget " + String.join(" ", args));
            out.addAll(cli.stdout());
            assertThat(rc).as(String.join(" ", args) + "\nstdout:\n" + String.join("\n", cli.stdout())
                    + "\nstderr:\n" + String.join("\n", cli.stderr())).isZero();
        }
    }
}
