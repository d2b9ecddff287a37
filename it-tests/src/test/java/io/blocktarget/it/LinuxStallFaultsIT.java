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
 * Stalled connections and a stalled NVMe Keep Alive as a Linux 7.x host meets them (issue 11 item 2), on one 16 KiB
 * LUN over iSCSI and NVMe/TCP ({@code vm/xstall-check.sh}), with initiator timeouts of seconds:
 * <ul>
 * <li>iSCSI, both directions stalled until the rule is removed: open-iscsi's NOP-Out ping times out (conn error
 * 1022), Linux resets the connection (the target drops that session), iscsid logs in again (TSIH 0: had the old
 * connection still been there, the target would have reinstated the session, RFC 7143 §6.3.5); sd's read is
 * retried and returns the data written over NVMe; NVMe reads on meanwhile.</li>
 * <li>NVMe/TCP, receive side stalled for 60 s: the hit read completes, the next read's I/O timeout (5 s) fires,
 * nvme-tcp's error recovery reconnects to a new controller and the retried read returns the data written over
 * iSCSI; iSCSI reads on meanwhile.</li>
 * <li>Keep Alive without completion (rule added from the CLI while the host is connected with KATO 5 s): the
 * controller's keep-alive timer expires first (NVMe Base 2.x §3.9: the controller stops, the association ends and
 * its connections close) — the host's own Keep Alive command timeout (KATO after it sent the unanswered one) would
 * come KATO / 2 later; Linux logs the failed Keep Alive, reconnects, and the new controller's Keep Alives are
 * answered.</li>
 * </ul>
 */
@Tag("vm")
class LinuxStallFaultsIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:xstall";
    private static final String NQN = "nqn.2026-11.io.blocktarget:xstall";
    private static final Duration STEP = Duration.ofSeconds(420);

    @TempDir
    Path dir;

    @Test
    void stalledConnectionsAndKeepAliveSeenByLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/xstall.yaml"), """
                backend: ram
                size: 128MiB
                logical-block-size: 16KiB
                faults:
                  - { id: stall-iscsi, ops: [read], lba: 5700, trigger: first, count: 1, action: stall-connection }
                  - { id: stall-nvme, ops: [read], lba: 5800, trigger: first, count: 1, action: stall-connection, stall: 60s, stall-direction: receive }
                """);
        Path script = Path.of(LinuxStallFaultsIT.class.getResource("/vm/xstall-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("xstall");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            try (ServerProcess guest = vm.startGuest(script, List.of("IQN=" + IQN, "NQN=" + NQN), "latest",
                    Duration.ofMinutes(20))) {
                guest.awaitLine(true, l -> l.equals("STEP connected"), STEP);
                guest.awaitLine(true, l -> l.equals("STEP keep-alive"), STEP);
                List<String> out = new ArrayList<>();
                cli(out, "fault", "add", "xstall", "--id", "ka", "--action", "keep-alive-stall", "--trigger", "first",
                        "--count", "1", "--control", socket.toString());
                guest.awaitLine(true, l -> l.equals("STEP done"), STEP);
                cli(out, "fault", "list", "xstall", "--json", "--control", socket.toString());
                // the until-removed stall outlived its connection (closed by the session reinstatement): removing the
                // rule now ends nothing and must not fail
                cli(out, "fault", "rm", "xstall", "stall-iscsi", "--control", socket.toString());
                cli(out, "fault", "list", "xstall", "--control", socket.toString());
                int rc = guest.awaitExit(Duration.ofMinutes(5));
                GuestReport report = GuestReport.parse(String.join("\n", guest.stdout()));
                String log = String.join("\n", server.stderr());
                System.out.println("[stalled connections / kernel latest]\n" + report.summary() + "\n"
                        + report.output().lines().filter(l -> l.startsWith("# dmesg")).reduce("", (a, b) -> a + b + "\n")
                        + String.join("\n", out));
                assertThat(rc).as("guest exit code; output:\n%s\nserver log:\n%s", report.output(), log).isZero();
                assertThat(report.failures()).as(report.output() + "\nserver log:\n" + log).isEmpty();
                report.assertPassed("iscsi-timeouts", "nvme-io-timeout", "sd-read-through-stall",
                        "sd-data-after-stall", "sd-kernel-saw-ping-timeout", "sd-kernel-saw-conn-error",
                        "nvme-reads-on-during-iscsi-stall", "sd-session-logged-in-again", "sd-io-resumes",
                        "nvme-hit-read-completes", "nvme-read-through-stall", "nvme-data-after-stall",
                        "nvme-kernel-saw-io-timeout", "nvme-kernel-reconnected", "sd-reads-on-during-nvme-stall",
                        "nvme-io-resumes", "nvme-kernel-saw-keep-alive-fail", "sd-unaffected-by-keep-alive-stall",
                        "nvme-controller-live", "nvme-io-after-keep-alive-stall", "nvme-keep-alive-answered-after");
                // the target's side: the stalls began as the rules say; the stalled iSCSI connection was gone
                // before iscsid's new login succeeded — Linux resets its end when the ping times out (the target
                // drops the session), or the new login reinstates it (TransportFaultsLoopbackIT); the controller's
                // own KATO ended it exactly once
                assertThat(log).contains("fault rule stall-iscsi: stalled (BOTH) until the rule is removed")
                        .contains("fault rule stall-nvme: stalled (RECEIVE) for 60000 ms");
                assertThat(server.stderr()).as(log).anyMatch(l -> l.contains(IQN + ": session dropped")
                        || l.contains("session reinstated by tsih="));
                assertThat(server.stderr()).as(log)
                        .filteredOn(l -> l.contains("-> TORN_DOWN (keep-alive timeout (KATO 5000 ms) expired)")).hasSize(1);
                // one controller at connect, one after the I/O-timeout recovery, one after the keep-alive expiry
                assertThat(server.stderr()).as(log)
                        .filteredOn(l -> l.contains(NQN) && l.contains(": created for host")).hasSizeGreaterThanOrEqualTo(3);
                String list = String.join("\n", out);
                for (String id : List.of("stall-iscsi", "stall-nvme", "ka")) {
                    assertThat(list).containsPattern("\"id\" : \"" + id + "\"[^}]*\"hits\" : 1,[^}]*"
                            + "\"notApplicable\" : 0");
                }
                assertThat(list).contains("\"held\" : 0").contains("removed fault rule stall-iscsi");
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
