package io.blocktarget.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zoned namespaces (NVMe ZNS, issue 13) as a Linux 7.x host sees them over NVMe/TCP, at 4 KiB, 16 KiB and 64 KiB
 * logical blocks: the guest ({@code vm/zoned-nvme-check.sh}) connects to each zoned LUN and checks queue/zoned =
 * host-managed, chunk_sectors, nr_zones, max_open_zones, max_active_zones and zone_append_max_bytes against the
 * LUN file, {@code blkzone report} (zone count, length, capacity), {@code nvme zns id-ns}, Zone Append's returned
 * LBA, a refused write off the write pointer, fio --zonemode=zbd with crc32c verify, {@code blkzone reset}.
 *
 * <p>File systems ({@code -Dit.zoned.fs=true}): mkfs.btrfs -O zoned + mount + an 8 MiB checksum round trip on the
 * 4 KiB namespace (required then); mkfs.f2fs -m with its metadata on a RAM disk in the guest (a zoned namespace has
 * no conventional zone) and what both say at 16 KiB are reported. The 4 KiB namespace allows 12 open / 14 active
 * zones: with the 8 btrfs takes from a smaller limit its writeback stalls (see LinuxZonedIscsiIT);
 * {@code -Dit.zoned.btrfs8=true} adds such a namespace and reports -m single and the default's stall there.
 */
@Tag("vm")
class LinuxZonedNvmeIT {
    private static final String NQN_PREFIX = "nqn.2026-11.io.blocktarget:";
    private static final long MIB = 1L << 20;
    private static final boolean FS = Boolean.getBoolean("it.zoned.fs");
    private static final boolean BTRFS8 = Boolean.getBoolean("it.zoned.btrfs8");
    /** {@code -Dit.zoned.kernel=bookworm}: Debian 12's 6.1 — reported only (its image has no blkzone). */
    private static final String KERNEL = System.getProperty("it.zoned.kernel", "latest");

    @TempDir
    Path dir;

    /** One zoned LUN: its file, and the guest's LUNS entry with the values Linux must show. */
    private record Lun(String name, int lbs, long zone, long capacity, int maxOpen, int maxActive, long appendMax,
                       long expectedAppend, long size, boolean checked, boolean required) {
        String yaml() {
            return "backend: ram\nsize: " + size / MIB + "MiB\nlogical-block-size: " + lbs + "\n"
                    + "export:\n  iscsi: false\n"
                    + "zoned:\n  model: host-managed\n  zone-size: " + zone / MIB + "MiB\n"
                    + "  zone-capacity: " + capacity / MIB + "MiB\n  max-open: " + maxOpen + "\n"
                    + "  max-active: " + maxActive + "\n  zone-append-max-bytes: " + appendMax + "\n";
        }

        String guest() {
            return String.join(":", name, Integer.toString(lbs), Long.toString(zone), Long.toString(capacity),
                    Integer.toString(maxOpen), Integer.toString(maxActive), Long.toString(expectedAppend),
                    Long.toString(size));
        }
    }

    @Test
    void zonedNamespacesOverNvmeTcpAt4k16kAnd64k() throws Exception {
        InitiatorVm.assumeAvailable();
        List<Lun> luns = new ArrayList<>(List.of(
                // capacity = size, no limits, append up to MDTS (1 MiB)
                new Lun("zns-16k", 16384, 32 * MIB, 32 * MIB, 0, 0, 0, MIB, 1024 * MIB, true, true),
                // capacity below the zone size, limits, a 256 KiB append limit (ZASL 6)
                new Lun("zns-4k", 4096, 64 * MIB, 48 * MIB, 12, 14, 256 * 1024, 256 * 1024, 1024 * MIB, true, true),
                new Lun("zns-64k", 65536, 16 * MIB, 16 * MIB, 0, 0, 0, MIB, 512 * MIB, true, true)));
        if (BTRFS8) {
            luns.add(new Lun("zns-a8", 4096, 16 * MIB, 16 * MIB, 8, 8, 0, MIB, 512 * MIB, false, false));
        }
        List<String> plan = new ArrayList<>();
        if (FS) {
            plan.addAll(List.of("zns-4k=btrfs,f2fs", "zns-16k=f2fs,btrfs"));
        }
        if (BTRFS8) {
            plan.add("zns-a8=btrfs-single,btrfs-stall");   // the stall last: it leaves the device busy
        }

        Files.createDirectories(dir.resolve("luns.d"));
        for (Lun lun : luns) {
            Files.writeString(dir.resolve("luns.d/" + lun.name() + ".yaml"), lun.yaml());
        }
        Path script = Path.of(LinuxZonedNvmeIT.class.getResource("/vm/zoned-nvme-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("zns");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving " + luns.size() + " LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result guest = vm.runGuest(script, Map.of("NQN_PREFIX", NQN_PREFIX,
                    "FSONLY", String.join(" ", luns.stream().filter(l -> !l.checked()).map(Lun::name).toList()),
                    "FSPLAN", String.join(" ", plan),
                    "LUNS", String.join(" ", luns.stream().map(Lun::guest).toList())), KERNEL, Duration.ofMinutes(25));
            GuestReport report = GuestReport.parse(guest.output());
            System.out.println("[zoned NVMe / kernel " + KERNEL + "]\n" + report.summary() + String.join("\n",
                    guest.output().lines().filter(l -> l.startsWith("FS ") || l.startsWith("#")).toList()));
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            if (!KERNEL.equals("latest")) {
                System.out.println(guest.output());
                return;   // what another kernel makes of the LUNs is documented (README), not asserted
            }
            List<String> required = luns.stream().filter(Lun::required).map(Lun::name).toList();
            assertThat(report.failures().stream().filter(c -> required.contains(c.name())).toList())
                    .as(guest.output() + "\nserver log:\n" + String.join("\n", server.stderr())).isEmpty();
            for (Lun lun : luns) {
                if (!lun.required()) {
                    continue;
                }
                assertThat(report.disk(lun.name())).as(lun.name() + " seen by Linux").isPresent();
                assertThat(report.disk(lun.name()).orElseThrow().logical()).isEqualTo(lun.lbs());
                for (String what : List.of("zoned", "chunk_sectors", "nr_zones", "max_open_zones", "max_active_zones",
                        "zone_append_max_bytes", "writable", "report-zones", "report-cap", "id-ns-mor",
                        "zone-append-lba", "unaligned-write-refused", "fio-zbd-verify", "blkzone-reset",
                        "reset-all-empty")) {
                    assertThat(report.checks()).as(lun.name() + " " + what)
                            .anyMatch(c -> c.name().equals(lun.name()) && c.what().equals(what) && c.ok());
                }
            }
            if (FS) {
                // f2fs is reported, not required: its metadata device in the guest has not worked yet (README)
                for (String step : List.of("btrfs")) {
                    assertThat(guest.output().lines().filter(l -> l.startsWith("FS zns-4k " + step + " ")).toList())
                            .as(guest.output()).singleElement().asString().startsWith("FS zns-4k " + step + " OK");
                }
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }
}
