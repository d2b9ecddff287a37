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
 * Fault rules as a Linux 7.x host meets them (issue 11 item 2), over iSCSI and NVMe/TCP at once on one 16 KiB LUN
 * ({@code vm/faults-check.sh}): a medium-error rule added from the CLI on LBAs 1000–1099 makes {@code dd} fail
 * exactly there (999 and 1100 read fine) with sector 32000 in the kernel log, and reads work again after
 * {@code fault rm}; a recoverable-once rule fails the first read and heals; a no-response rule drives the SCSI error
 * handler's abort and nvme-tcp's timeout recovery (controller reset) — with 5 s command timeouts — after which the
 * read succeeds and I/O goes on; a corrupt-read rule is caught by fio's crc32c verify, and only inside its range.
 */
@Tag("vm")
class LinuxFaultsIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:flt";
    private static final String NQN = "nqn.2026-11.io.blocktarget:flt";
    private static final Duration STEP = Duration.ofSeconds(300);

    @TempDir
    Path dir;

    @Test
    void faultRulesSeenByLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/flt.yaml"), """
                backend: ram
                size: 64MiB
                logical-block-size: 16KiB
                faults:
                  - { id: once-iscsi, ops: [read], lba: 2000-2009, trigger: once-per-lba, action: medium-error }
                  - { id: once-nvme, ops: [read], lba: 2100-2109, trigger: once-per-lba, action: medium-error }
                  - { id: hang-iscsi, ops: [read], lba: 3000, trigger: first, count: 1, action: no-response }
                  - { id: hang-nvme, ops: [read], lba: 3100, trigger: first, count: 1, action: no-response }
                  - { id: flip, lba: 500-599, action: corrupt-read }
                """);
        Path script = Path.of(LinuxFaultsIT.class.getResource("/vm/faults-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("flt");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            try (ServerProcess guest = vm.startGuest(script, List.of("IQN=" + IQN, "NQN=" + NQN, "WAIT=150"), "latest",
                    Duration.ofMinutes(20))) {
                guest.awaitLine(true, l -> l.equals("STEP connected"), STEP);
                List<String> out = new ArrayList<>();
                cli(out, "fault", "add", "flt", "--id", "bad", "--ops", "read", "--lba", "1000-1099",
                        "--action", "medium-error", "--control", socket.toString());
                guest.awaitLine(true, l -> l.equals("STEP bad-seen"), STEP);
                cli(out, "fault", "list", "flt", "--control", socket.toString());
                cli(out, "fault", "rm", "flt", "bad", "--control", socket.toString());
                guest.awaitLine(true, l -> l.equals("STEP done"), Duration.ofSeconds(600));
                cli(out, "fault", "list", "flt", "--json", "--control", socket.toString());
                int rc = guest.awaitExit(Duration.ofMinutes(5));
                GuestReport report = GuestReport.parse(String.join("\n", guest.stdout()));
                String log = String.join("\n", server.stderr());
                System.out.println("[faults / kernel latest]\n" + report.summary() + String.join("\n", out));
                assertThat(rc).as("guest exit code; output:\n%s\nserver log:\n%s", report.output(), log).isZero();
                assertThat(report.failures()).as(report.output() + "\nserver log:\n" + log).isEmpty();
                report.assertPassed("sd-fails-at-1000", "sd-reads-999", "sd-fails-at-1099", "sd-reads-1100",
                        "sd-kernel-logs-sector-32000", "nvme-fails-at-1000", "nvme-reads-999", "nvme-fails-at-1099",
                        "nvme-reads-1100", "nvme-kernel-logs-sector-32000", "sd-reads-after-rm", "nvme-reads-after-rm",
                        "sd-first-read-fails", "sd-second-read-heals", "nvme-read-recovered",
                        "sd-read-after-abort", "sd-waited-for-the-timeout", "sd-io-resumes",
                        "nvme-read-after-recovery", "nvme-waited-for-the-timeout", "nvme-io-resumes",
                        "sd-fio-verify-fails", "nvme-fio-verify-fails", "sd-fio-verify-ok-outside",
                        "nvme-fio-verify-ok-outside");
                String list = String.join("\n", out);
                // every rule was hit; none holds a command any more (each held one was released by the recovery)
                assertThat(list).contains("\"held\" : 0");
                for (String id : List.of("once-iscsi", "once-nvme", "hang-iscsi", "hang-nvme", "flip")) {
                    assertThat(list).containsPattern("\"id\" : \"" + id + "\"[^}]*\"hits\" : [1-9]");
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
