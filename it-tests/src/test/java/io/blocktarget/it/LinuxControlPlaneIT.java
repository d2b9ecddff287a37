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
 * The control plane as a connected Linux 7.x host sees it (issue 9): the guest ({@code vm/control-check.sh}) connects
 * over NVMe/TCP and logs in over iSCSI to one 16 KiB LUN, then the test changes the running server with the CLI —
 * {@code lun add} (a second 16 KiB LUN in the same target and subsystem), {@code lun resize}, {@code lun rm} — each
 * time the guest says it saw the previous step. NVMe must show each change without reconnecting (AEN); iSCSI after
 * {@code iscsiadm -m session --rescan}. The LUN that was not touched keeps working throughout.
 */
@Tag("vm")
class LinuxControlPlaneIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:ctl";
    private static final String NQN = "nqn.2026-11.io.blocktarget:ctl";
    private static final long SIZE1 = 256L << 20;
    private static final long SIZE2 = 512L << 20;
    private static final Duration STEP = Duration.ofSeconds(240);

    @TempDir
    Path dir;

    @Test
    void lunAddResizeRemoveSeenByConnectedLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/ctl.yaml"), """
                backend: ram
                size: 256MiB
                logical-block-size: 16KiB
                """);
        Path script = Path.of(LinuxControlPlaneIT.class.getResource("/vm/control-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("ctl");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            try (ServerProcess guest = vm.startGuest(script, List.of("IQN=" + IQN, "NQN=" + NQN,
                    "SIZE1=" + SIZE1, "SIZE2=" + SIZE2, "WAIT=150"), "latest", Duration.ofMinutes(14))) {
                guest.awaitLine(true, l -> l.equals("STEP connected"), STEP);
                List<String> timings = new ArrayList<>();
                cli(timings, "lun", "add", "ctl-2", "--backend", "ram", "--size", "256MiB",
                        "--logical-block-size", "16KiB",
                        "--set", "export.iscsi.target=" + IQN, "--set", "export.iscsi.lun=1",
                        "--set", "export.nvme.subsystem=" + NQN, "--set", "export.nvme.nsid=2",
                        "--control", socket.toString());
                assertThat(dir.resolve("luns.d/ctl-2.yaml")).as("API changes written back to the config dir").exists();
                guest.awaitLine(true, l -> l.equals("STEP added"), STEP);
                cli(timings, "lun", "resize", "ctl-2", "--size", "512MiB", "--control", socket.toString());
                guest.awaitLine(true, l -> l.equals("STEP resized"), STEP);
                cli(timings, "lun", "rm", "ctl-2", "--control", socket.toString());
                assertThat(dir.resolve("luns.d/ctl-2.yaml")).doesNotExist();
                guest.awaitLine(true, l -> l.equals("STEP removed"), STEP);
                int rc = guest.awaitExit(Duration.ofMinutes(5));
                GuestReport report = GuestReport.parse(String.join("\n", guest.stdout()));
                System.out.println("[control plane / kernel latest]\n" + report.summary() + String.join("\n", timings));
                assertThat(rc).as("guest exit code; output:\n%s\nserver log:\n%s", report.output(),
                        String.join("\n", server.stderr())).isZero();
                assertThat(report.failures()).as(report.output() + "\nserver log:\n" + String.join("\n", server.stderr()))
                        .isEmpty();
                report.assertPassed("nvme-ns-appeared", "sd-lun-appeared", "same-bytes-both-protocols",
                        "nvme-resized", "sd-resized", "data-kept-after-resize", "nvme-ns-removed", "sd-io-refused");
                assertThat(report.checks()).anyMatch(c -> c.what().equals("untouched-lun-works") && c.ok());
                assertThat(report.requireDisk("ctl-2-nvme").logical()).isEqualTo(16384);
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** Runs the CLI against the control socket; it must exit 0. Records how long it took (JVM start included). */
    private static void cli(List<String> timings, String... args) throws Exception {
        long t0 = System.nanoTime();
        try (ServerProcess cli = ServerProcess.start(args)) {
            int rc = cli.awaitExit(Duration.ofSeconds(60));
            timings.add(String.format("  cli %-10s %5d ms (rc %d)", args[0] + " " + args[1],
                    (System.nanoTime() - t0) / 1_000_000, rc));
            assertThat(rc).as(String.join(" ", args) + "\nstdout:\n" + String.join("\n", cli.stdout())
                    + "\nstderr:\n" + String.join("\n", cli.stderr())).isZero();
        }
    }
}
