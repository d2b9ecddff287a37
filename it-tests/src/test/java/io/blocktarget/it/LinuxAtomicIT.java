package io.blocktarget.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Atomic writes end to end (issue 12) as a Linux 7.x host sees them over iSCSI and NVMe/TCP: the guest
 * ({@code vm/atomic-check.sh}) attaches three LUNs over both protocols and reports the queue's atomic write limits,
 * then writes with RWF_ATOMIC (xfs_io) inside and outside them and runs fio --atomic=1 with crc32c verification.
 *
 * <ul>
 * <li>{@code at4k}: 4 KiB blocks, {@code atomic: {max-bytes: 64KiB, boundary-bytes: 64KiB}};</li>
 * <li>{@code at16k}: 16 KiB blocks, {@code atomic: {max-bytes: 256KiB, boundary-bytes: 256KiB}};</li>
 * <li>{@code plain}: 4 KiB logical on 16 KiB physical blocks, no {@code atomic:} — over iSCSI Linux shows no atomic
 *     writes (RWF_ATOMIC refused); over NVMe it shows the physical block the RAM disk applies whole (NSFEAT bit 1,
 *     NAWUPF = NABSPF = 3: unit_min 4 KiB, unit_max = max = boundary = 16 KiB), physical_block_size = 16 KiB as over
 *     iSCSI (issue 28 item 8) and minimum_io_size = 16 KiB.</li>
 * </ul>
 * Expected from the kernel sources (sd.c sd_config_atomic, nvme core.c nvme_configure_atomic_write): unit_min = the
 * granularity (SCSI) or the logical block (NVMe), unit_max = max = max-bytes; the boundary only over NVMe (sd sets
 * atomic_write_hw_boundary = 0).
 */
@Tag("vm")
class LinuxAtomicIT {
    private static final Duration RUN = Duration.ofMinutes(14);

    @TempDir
    Path dir;

    /** One ATOMIC line of the guest. */
    record Limits(String name, String dev, long unitMin, long unitMax, long boundary, long max, long logical,
                  long physical, long ioMin) {
    }

    @Test
    void linuxShowsAndHonoursTheConfiguredAtomicWrites() throws Exception {
        InitiatorVm.assumeAvailable();
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/at4k.yaml"), """
                backend: ram
                size: 256MiB
                logical-block-size: 4KiB
                atomic: { max-bytes: 64KiB, boundary-bytes: 64KiB }
                """);
        Files.writeString(dir.resolve("luns.d/at16k.yaml"), """
                backend: ram
                size: 256MiB
                logical-block-size: 16KiB
                atomic: { max-bytes: 256KiB, boundary-bytes: 256KiB }
                """);
        Files.writeString(dir.resolve("luns.d/plain.yaml"), """
                backend: ram
                size: 256MiB
                logical-block-size: 4KiB
                physical-block-size: 16KiB
                """);
        Path script = Path.of(LinuxAtomicIT.class.getResource("/vm/atomic-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("atom");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind",
                     InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 3 LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result guest = vm.runGuest(script, Map.of("NAMES", "at4k at16k plain"), "latest", RUN);
            GuestReport report = GuestReport.parse(guest.output());
            Map<String, Limits> limits = new LinkedHashMap<>();
            for (String line : guest.output().split("\n")) {
                String[] f = line.trim().split(" +");
                if (f[0].equals("ATOMIC") && f.length == 10) {
                    limits.put(f[1], new Limits(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                            Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
                            Long.parseLong(f[9])));
                }
            }
            StringBuilder table = new StringBuilder("  disk          unit_min unit_max boundary  max      lbs   pbs"
                    + "   io_min\n");
            limits.values().forEach(l -> table.append(String.format("  %-12s %8d %8d %8d %8d %6d %6d %6d%n", l.name(),
                    l.unitMin(), l.unitMax(), l.boundary(), l.max(), l.logical(), l.physical(), l.ioMin())));
            System.out.println("[atomic writes / kernel latest]\n" + table + report.summary());
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            assertThat(report.failures()).as(report.output() + "\n" + table).isEmpty();
            assertThat(limits.keySet()).containsExactlyInAnyOrder("at4k-iscsi", "at4k-nvme", "at16k-iscsi",
                    "at16k-nvme", "plain-iscsi", "plain-nvme");
            for (String proto : List.of("iscsi", "nvme")) {
                expect(limits.get("at4k-" + proto), 4096, 65536, proto.equals("nvme") ? 65536 : 0);
                expect(limits.get("at16k-" + proto), 16384, 262144, proto.equals("nvme") ? 262144 : 0);
                Limits plain = limits.get("plain-" + proto);
                if (proto.equals("nvme")) {
                    expect(plain, 4096, 16384, 16384);
                } else {
                    assertThat(List.of(plain.unitMin(), plain.unitMax(), plain.boundary(), plain.max()))
                            .as(plain.toString()).containsOnly(0L);
                    assertThat(report.checks()).anyMatch(c -> c.name().equals("plain-iscsi")
                            && c.what().equals("xfs_io-no-atomics") && c.ok());
                }
                assertThat(plain.ioMin()).as(plain.toString()).isEqualTo(16384);
                assertThat(plain.physical()).as(plain.toString()).isEqualTo(16384);
                for (String what : List.of("xfs_io-unit-min", "xfs_io-unit-max", "xfs_io-unit-max-at-offset",
                        "xfs_io-twice-unit-max", "xfs_io-misaligned", "fio-atomic-verify")) {
                    for (String lun : proto.equals("nvme") ? List.of("at4k-", "at16k-", "plain-")
                            : List.of("at4k-", "at16k-")) {
                        assertThat(report.checks()).as(lun + proto + " " + what)
                                .anyMatch(c -> c.name().equals(lun + proto) && c.what().equals(what) && c.ok());
                    }
                }
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    private static void expect(Limits l, long unitMin, long max, long boundary) {
        assertThat(l).as("no ATOMIC line").isNotNull();
        assertThat(List.of(l.unitMin(), l.unitMax(), l.boundary(), l.max())).as(l.toString())
                .containsExactly(unitMin, max, boundary, max);
    }
}
