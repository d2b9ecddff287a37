package io.blocktarget.it;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Linux initiators against the embedded default matrix (ram-512, ram-4k, ram-16k, ram-64k):
 * open-iscsi and nvme-cli in the initiator VM log in / connect, check sizes in /sys/block, run fio
 * with verify=crc32c at bs = logical block size and 128 KiB, mkfs (XFS, ext4 for 64 KiB) + mount +
 * checksum, log in once more with digests, and measure fio figures (functional: the VM is emulated).
 * The 6.1 kernel (Debian 12) must show 512 B and 4 KiB correctly and larger blocks as the kernel's
 * documented 0-byte disk.
 */
@Tag("vm")
class LinuxLbsMatrixIT {
    private static final Duration IO_RUN = Duration.ofMinutes(15);
    private static final Duration SCAN_RUN = Duration.ofMinutes(8);
    private static final List<LunConfig> MATRIX = ConfigLoader.embeddedDefault().luns();
    private static final String NAMES = String.join(" ", MATRIX.stream().map(LunConfig::name).toList());

    private static Path script() throws Exception {
        return Path.of(LinuxLbsMatrixIT.class.getResource("/vm/lbs-check.sh").toURI());
    }

    private static GuestReport run(String proto, String kernel, Map<String, String> extraEnv, Duration timeout)
            throws Exception {
        InitiatorVm.assumeAvailable();
        try (InitiatorVm vm = InitiatorVm.create(proto.substring(0, 2) + kernel.substring(0, 2));
             ServerProcess server = vm.startServer("serve", "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 4 LUNs"), Duration.ofSeconds(60));
            Map<String, String> env = new HashMap<>(extraEnv);
            env.put("PROTO", proto);
            env.put("NAMES", NAMES);
            InitiatorVm.Result guest = vm.runGuest(script(), env, kernel, timeout);
            GuestReport report = GuestReport.parse(guest.output());
            System.out.println("[" + proto + " / kernel " + kernel + "]\n" + report.summary());
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
            return report;
        }
    }

    /**
     * What Linux shows as physical_block_size: the PBS over iSCSI (READ CAPACITY(16) exponent); over NVMe Linux caps
     * it at the power-fail atomic unit (nvme_update_disk_info), which a RAM or null namespace claims as its physical
     * block (NAWUPF) and a file namespace does not (one block): there the LBS.
     */
    private static int shownPhysical(String proto, LunConfig lun) {
        return proto.equals("nvme") && lun.backend() == io.blocktarget.config.BackendKind.FILE
                ? lun.logicalBlockSize() : lun.physicalBlockSize();
    }

    private static void assertFullMatrix(String proto, GuestReport report) {
        assertThat(report.failures()).as(report.output()).isEmpty();
        for (LunConfig lun : MATRIX) {
            GuestReport.Disk disk = report.requireDisk(lun.name());
            assertThat(disk.logical()).as(lun.name() + " logical").isEqualTo(lun.logicalBlockSize());
            assertThat(disk.physical()).as(lun.name() + " physical").isEqualTo(shownPhysical(proto, lun));
            assertThat(disk.sizeBytes()).as(lun.name() + " size").isEqualTo(lun.size());
            String fs = lun.logicalBlockSize() <= 32768 ? "xfs-checksum" : "ext4-checksum";
            for (String what : List.of("fio-verify-bs" + lun.logicalBlockSize(), "fio-verify-bs131072", fs)) {
                assertThat(report.checks()).as(lun.name() + " " + what + "\n" + report.output())
                        .anyMatch(c -> c.name().equals(lun.name()) && c.what().equals(what) && c.ok());
            }
        }
        assertThat(report.checks()).as("ram-4k-digest\n" + report.output())
                .anyMatch(c -> c.name().equals("ram-4k-digest") && c.ok());
        assertThat(report.perf()).as(report.output()).hasSize(2).allMatch(p -> p.iops() > 0);
    }

    private static void assertOldKernelBehaviour(String proto, GuestReport report, String attachCheck) {
        for (LunConfig lun : MATRIX) {
            assertThat(report.checks()).as(lun.name() + " " + attachCheck + "\n" + report.output())
                    .anyMatch(c -> c.name().equals(lun.name()) && c.what().equals(attachCheck) && c.ok());
            if (lun.logicalBlockSize() <= 4096) {
                GuestReport.Disk disk = report.requireDisk(lun.name());
                assertThat(disk.logical()).as(lun.name() + " logical").isEqualTo(lun.logicalBlockSize());
                assertThat(disk.physical()).as(lun.name() + " physical").isEqualTo(shownPhysical(proto, lun));
                assertThat(disk.sizeBytes()).as(lun.name() + " size").isEqualTo(lun.size());
            } else {
                // Linux 6.1 refuses logical blocks > 4 KiB: the disk shows 0 bytes (or no block device at all)
                report.disk(lun.name()).ifPresent(d -> assertThat(d.sizeBytes()).as(lun.name()).isZero());
            }
        }
    }

    @Test
    void iscsiOnRecentKernel() throws Exception {
        GuestReport r = run("iscsi", "latest",
                Map.of("IO", "1", "DIGEST_NAME", "ram-4k", "PERF_NAME", "ram-4k"), IO_RUN);
        assertThat(r.checks()).anyMatch(c -> c.what().equals("sendtargets") && c.ok());
        assertFullMatrix("iscsi", r);
        assertThat(r.checks()).anyMatch(c -> c.what().equals("logout") && c.ok());
    }

    @Test
    void nvmeOnRecentKernel() throws Exception {
        GuestReport r = run("nvme", "latest",
                Map.of("IO", "1", "DIGEST_NAME", "ram-4k", "PERF_NAME", "ram-4k", "RECONNECT", "1"), IO_RUN);
        assertThat(r.checks()).anyMatch(c -> c.what().equals("nvme-discover-8009") && c.ok());
        assertThat(r.checks()).anyMatch(c -> c.what().equals("nvme-discover-4420") && c.ok());
        assertFullMatrix("nvme", r);
        for (LunConfig lun : MATRIX) {
            for (String what : List.of("id-ctrl", "id-ns")) { // nvme-cli's view: MDTS, IOCCSZ, SUBNQN; NSZE x LBADS
                assertThat(r.checks()).as(lun.name() + " " + what)
                        .anyMatch(c -> c.name().equals(lun.name()) && c.what().equals(what) && c.ok());
            }
        }
        assertThat(r.checks().stream().filter(c -> c.what().equals("reconnect-data"))).hasSize(MATRIX.size())
                .allMatch(GuestReport.Check::ok);
    }

    @Test
    void iscsiOnDebian12Kernel() throws Exception {
        assertOldKernelBehaviour("iscsi", run("iscsi", "bookworm", Map.of(), SCAN_RUN), "login");
    }

    @Test
    void nvmeOnDebian12Kernel() throws Exception {
        assertOldKernelBehaviour("nvme", run("nvme", "bookworm", Map.of(), SCAN_RUN), "connect");
    }
}
