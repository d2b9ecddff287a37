package io.blocktarget.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LUN knobs (issue 11 item 1) as a Linux 7.x host sees them, on both protocols ({@code vm/knobs-check.sh}): the LUN
 * file sets limits, rotational, write-cache and identity, and /sys/block/X/queue, sg_vpd -p bl and nvme id-ctrl /
 * id-ns must show them; then {@code blocktarget lun set} changes the optimal and maximum transfer and rotational on
 * the running server — NVMe must follow by itself (Namespace Attribute Changed), sd after a rescan — while the
 * sessions stay and the data path works. The {@code session:} values (issue 11: MDTS, in-capsule data, I/O queue count
 * and size; iSCSI MaxRecvDataSegmentLength and burst lengths) are what Linux negotiates ({@code nvme id-ctrl},
 * {@code max_hw_sectors_kb}, {@code /sys/class/nvme/nvmeX/queue_count} and {@code sqsize}, {@code iscsiadm -m session
 * -P 2}); changed at runtime they leave the sessions alone and reach the next connect / login.
 */
@Tag("vm")
class LinuxKnobsIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:knob";
    private static final String NQN = "nqn.2026-11.io.blocktarget:knob";
    private static final Duration STEP = Duration.ofSeconds(300);

    @TempDir
    Path dir;

    @Test
    void knobsFromTheLunFileAndAtRuntimeSeenByLinux() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/knob.yaml"), """
                backend: ram
                size: 256MiB
                logical-block-size: 4KiB
                rotational: true
                commands: {write-cache: true}
                limits:
                  max-transfer: 1MiB
                  optimal-transfer: 256KiB
                  optimal-transfer-granularity: 64KiB
                  max-unmap: 16MiB
                  unmap-granularity: 64KiB
                  max-write-same: 8MiB
                  npda: 128KiB
                identity: {vendor: ACME, product: KnobDisk, serial: KNOB0001}
                session: {mdts: 512KiB, in-capsule-data: 8KiB, io-queues: 1, queue-size: 64,
                          max-recv-data-segment-length: 64KiB, first-burst-length: 64KiB, max-burst-length: 128KiB}
                """);
        Path script = Path.of(LinuxKnobsIT.class.getResource("/vm/knobs-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("knobs");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            try (ServerProcess guest = vm.startGuest(script, List.of("IQN=" + IQN, "NQN=" + NQN, "WAIT=150"),
                    "latest", Duration.ofMinutes(16))) {
                guest.awaitLine(true, l -> l.equals("STEP file"), STEP);
                cli("lun", "set", "knob", "limits.optimal-transfer=512KiB", "limits.max-transfer=512KiB",
                        "rotational=false", "session.mdts=1MiB", "session.max-burst-length=256KiB",
                        "--control", socket.toString());
                assertThat(Files.readString(dir.resolve("luns.d/knob.yaml"))).as("written back to the LUN file")
                        .contains("optimal-transfer: 512KiB").contains("rotational: false").contains("mdts: 1MiB");
                guest.awaitLine(true, l -> l.equals("STEP runtime"), STEP);
                int rc = guest.awaitExit(Duration.ofMinutes(8));
                GuestReport report = GuestReport.parse(String.join("\n", guest.stdout()));
                System.out.println("[knobs / kernel latest]\n" + report.output());
                assertThat(rc).as("guest exit code; output:\n%s\nserver log:\n%s", report.output(),
                        String.join("\n", server.stderr())).isZero();
                assertThat(report.failures()).as(report.output() + "\nserver log:\n" + String.join("\n", server.stderr()))
                        .isEmpty();
                report.assertPassed("sd-optimal-io", "sd-discard-max", "sd-discard-granularity",
                        "sd-rotational", "sd-write-cache", "sd-max-sectors", "sd-write-zeroes", "sd-identity",
                        "sg-vpd-max-transfer", "sg-vpd-max-write-same", "nvme-optimal-io", "nvme-write-cache",
                        "nvme-rotational", "nvme-id-ctrl-identity", "nvme-id-ns-granularities",
                        "nvme-optimal-io-changed", "nvme-id-ns-nows",
                        "sd-rotational-changed", "sd-optimal-io-changed", "sd-max-sectors-changed",
                        "same-bytes-both-protocols", "nvme-id-ns-npda",
                        "nvme-id-ctrl-mdts", "nvme-id-ctrl-ioccsz", "nvme-id-ctrl-maxcmd", "nvme-max-hw-sectors",
                        "nvme-io-queues", "nvme-queue-size", "iscsi-max-xmit-data-segment-length",
                        "iscsi-first-burst-length", "iscsi-max-burst-length", "big-write-both-protocols",
                        "iscsi-session-kept", "nvme-controller-kept", "nvme-max-hw-sectors-changed",
                        "nvme-id-ctrl-mdts-changed", "nvme-rotational-after-reconnect",
                        "iscsi-max-burst-length-changed");
                assertThat(server.stderr()).anyMatch(l -> l.contains("LUN knob retuned"));
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** Runs the CLI against the control socket; it must exit 0. */
    private static void cli(String... args) throws Exception {
        try (ServerProcess cli = ServerProcess.start(args)) {
            int rc = cli.awaitExit(Duration.ofSeconds(60));
            assertThat(rc).as(String.join(" ", args) + "\nstdout:\n" + String.join("\n", cli.stdout())
                    + "\nstderr:\n" + String.join("\n", cli.stderr())).isZero();
        }
    }
}
