package io.blocktarget.it;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The physical block as Linux sees it over both protocols (issue 28 item 8), on both guest kernels: every LUN of the
 * embedded default set plus a file LUN of 4 KiB on 16 KiB blocks, attached over iSCSI and NVMe/TCP by {@code
 * vm/pbs-check.sh}. Over iSCSI, physical_block_size comes from READ CAPACITY(16); over NVMe Linux caps it at the
 * power-fail atomic unit (NAWUPF, nvme_update_disk_info), which a RAM LUN claims up to the physical block, so both
 * protocols show the configured physical block — except the file LUN over NVMe (the logical block: a file cannot
 * keep a 16 KiB write whole across a power loss), which the server says at start and in {@code lun show}. Linux 6.1
 * attaches only logical blocks ≤ 4 KiB (larger ones are 0-byte disks) and has no atomic_write_* files.
 */
@Tag("vm")
class LinuxPhysicalBlockIT {
    private static final Duration RUN = Duration.ofMinutes(10);
    private static final List<LunConfig> DEFAULTS = ConfigLoader.embeddedDefault().luns();
    private static final String FILE = "file-16k";

    @TempDir
    Path dir;

    /** One PBS line of the guest. */
    record Shown(String name, String dev, long logical, long physical, long ioMin, long unitMin, long unitMax,
                 long boundary) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"latest", "bookworm"})
    void bothProtocolsShowTheConfiguredPhysicalBlock(String kernel) throws Exception {
        InitiatorVm.assumeAvailable();
        Files.createDirectories(dir.resolve("luns.d"));
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        for (LunConfig lun : DEFAULTS) {   // the default set, as a config dir (beside the file LUN)
            Files.writeString(dir.resolve("luns.d/" + lun.name() + ".yaml"), "backend: ram\nsize: " + lun.size()
                    + "B\nlogical-block-size: " + lun.logicalBlockSize() + "B\nphysical-block-size: "
                    + lun.physicalBlockSize() + "B\n");
        }
        Files.writeString(dir.resolve("luns.d/" + FILE + ".yaml"), "backend: file\nsize: 256MiB\n"
                + "logical-block-size: 4KiB\nphysical-block-size: 16KiB\npath: " + dir.resolve("f.img")
                + "\ncreate: true\n");
        List<String> names = new ArrayList<>(DEFAULTS.stream().map(LunConfig::name).toList());
        names.add(FILE);
        Path script = Path.of(LinuxPhysicalBlockIT.class.getResource("/vm/pbs-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("pbs" + kernel.substring(0, 2));
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind",
                     InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 5 LUNs"), Duration.ofSeconds(60));
            assertThat(server.stderr()).as("the start says what NVMe hosts see of the file LUN").anyMatch(l ->
                    l.contains("LUN " + FILE + ": NVMe hosts see physical block size 4096 (iSCSI: 16384)"));
            List<String> shown = new ArrayList<>();
            try (ServerProcess cli = ServerProcess.start("lun", "show", FILE, "--control", socket.toString())) {
                assertThat(cli.awaitExit(Duration.ofSeconds(60))).isZero();
                shown.addAll(cli.stdout());
            }
            assertThat(String.join("\n", shown)).as("lun show").contains("\"caveats\"")
                    .contains("NVMe hosts see physical block size 4096 (iSCSI: 16384)");
            InitiatorVm.Result guest = vm.runGuest(script, Map.of("NAMES", String.join(" ", names)), kernel, RUN);
            GuestReport report = GuestReport.parse(guest.output());
            Map<String, Shown> disks = new LinkedHashMap<>();
            for (String line : guest.output().split("\n")) {
                String[] f = line.trim().split(" +");
                if (f[0].equals("PBS") && f.length == 9) {
                    disks.put(f[1], new Shown(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                            Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8])));
                }
            }
            StringBuilder table = new StringBuilder("  disk              logical physical  io_min unit_min"
                    + " unit_max boundary\n");
            disks.values().forEach(d -> table.append(String.format("  %-16s %8d %8d %7d %8d %8d %8d%n", d.name(),
                    d.logical(), d.physical(), d.ioMin(), d.unitMin(), d.unitMax(), d.boundary())));
            System.out.println("[physical block / kernel " + kernel + "]\n" + table + report.summary());
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            for (LunConfig lun : DEFAULTS) {
                boolean attaches = kernel.equals("latest") || lun.logicalBlockSize() <= 4096;
                for (String proto : List.of("iscsi", "nvme")) {
                    String name = lun.name() + "-" + proto;
                    if (!attaches) {
                        continue;   // 6.1: a 0-byte disk (LinuxLbsMatrixIT checks that)
                    }
                    Shown d = disks.get(name);
                    assertThat(d).as(name + "\n" + guest.output()).isNotNull();
                    assertThat(d.logical()).as(name + " logical").isEqualTo(lun.logicalBlockSize());
                    assertThat(d.physical()).as(name + " physical_block_size").isEqualTo(lun.physicalBlockSize());
                    assertThat(d.ioMin()).as(name + " minimum_io_size").isEqualTo(lun.physicalBlockSize());
                    if (proto.equals("nvme") && kernel.equals("latest")) {
                        // the claimed unit is the physical block; boundary = it where it is more than one block
                        assertThat(d.unitMax()).as(name + " atomic_write_unit_max_bytes")
                                .isEqualTo(lun.physicalBlockSize());
                        assertThat(d.boundary()).as(name + " atomic_write_boundary_bytes").isEqualTo(
                                lun.physicalBlockSize() > lun.logicalBlockSize() ? lun.physicalBlockSize() : 0);
                    }
                }
            }
            Shown fileIscsi = disks.get(FILE + "-iscsi");
            Shown fileNvme = disks.get(FILE + "-nvme");
            assertThat(fileIscsi.physical()).isEqualTo(16384);
            assertThat(fileNvme.physical()).as("NAWUPF 0: the logical block").isEqualTo(4096);
            assertThat(fileNvme.ioMin()).isEqualTo(16384);
            if (kernel.equals("latest")) {
                assertThat(fileNvme.unitMax()).isEqualTo(4096);
                assertThat(report.checks()).as("RWF_ATOMIC of the physical block over NVMe")
                        .filteredOn(c -> c.what().equals("rwf-atomic-unit-max"))
                        .extracting(GuestReport.Check::name)
                        .contains("ram-512-nvme");
            }
            // every check passes but the first partition scan of NVMe namespaces with logical blocks > 4 KiB on 7.3,
            // a kernel bug (docs/known-issues.md: the multipath head's deferred scan reads through a page cache
            // never sized for its block), and its workaround then works
            assertThat(report.failures()).as(report.output()).allMatch(c -> c.what().equals("partition-scan")
                    && kernel.equals("latest") && c.name().endsWith("-nvme")
                    && disks.get(c.name()) != null && disks.get(c.name()).logical() > 4096);
            report.failures().forEach(f -> assertThat(report.checks()).as("workaround for " + f.name())
                    .anyMatch(c -> c.name().equals(f.name()) && c.what().equals("rereadpt-then-buffered-read")
                            && c.ok()));
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }
}
