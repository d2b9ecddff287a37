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
 * Zoned LUNs over iSCSI as Linux 7.x sees them (issue 13): host-managed zoned RAM LUNs at 4 KiB blocks with two
 * conventional zones and an open-zone limit, 16 KiB blocks whose zone capacity is smaller than the zone size (gap
 * zones on the wire), and 64 KiB blocks. The guest ({@code vm/zoned-check.sh}) logs in to each and checks what sd
 * made of it: {@code queue/zoned}, chunk_sectors, nr_zones, max_open_zones / max_active_zones, {@code blkzone report}
 * against the LUN file, a write at the write pointer and one beside it, {@code blkzone reset} of one zone and of all,
 * fio in zbd mode with crc32c verify.
 *
 * <p>File systems ({@code -Dit.zoned.fs=true}): mkfs.btrfs -O zoned and mkfs.f2fs -m + mount + an 8 MiB checksum
 * round trip on the 4 KiB LUN (required then), and what both say at 16 KiB blocks (reported). btrfs needs more than
 * the 8 active zones it gives itself on a small device: with DUP metadata on one device it keeps 6 zones in reserve
 * for metadata, system and tree-log block groups, so after the superblock, metadata, system and data-relocation zones
 * no data block group can be activated and writeback waits forever for a zone to finish (cow_file_range, nothing at
 * the target). The 4 KiB LUN therefore allows 16 open zones. {@code -Dit.zoned.btrfs8=true} adds a LUN on which
 * btrfs computes 8 (32 zones, max-open 8) and reports -m single there and the default's stall (not asserted).
 */
@Tag("vm")
class LinuxZonedIscsiIT {
    private static final long MIB = 1L << 20;
    private static final Duration RUN = Duration.ofMinutes(20);
    private static final boolean FS = Boolean.getBoolean("it.zoned.fs");
    private static final boolean BTRFS8 = Boolean.getBoolean("it.zoned.btrfs8");
    /** {@code -Dit.zoned.kernel=bookworm}: Debian 12's 6.1 — reported only (its image has no blkzone). */
    private static final String KERNEL = System.getProperty("it.zoned.kernel", "latest");

    @TempDir
    Path dir;

    /**
     * One LUN; {@code checked}: the block-level checks run (else it only carries file systems), {@code required}:
     * they must pass.
     */
    private record Lun(String name, int lbs, long size, long zoneSize, long capacity, int conventional, int maxOpen,
                       boolean checked, boolean required) {
        String file() {
            // conventional zones: iSCSI only (NVMe Zoned Namespaces have none; the config refuses them there)
            return "backend: ram\nsize: " + size / MIB + "MiB\nlogical-block-size: " + lbs
                    + "\nexport: { nvme: false }\nzoned:\n"
                    + "  zone-size: " + zoneSize / MIB + "MiB\n  zone-capacity: " + capacity / MIB + "MiB\n"
                    + "  conventional-zones: " + conventional + "\n  max-open: " + maxOpen + "\n";
        }

        String iqn() {
            return "iqn.2026-11.io.blocktarget:" + name;
        }
    }

    /** 16 KiB first: the first run (4 KiB first, with btrfs) hung in sync inside the guest before reaching it. */
    private static List<Lun> luns() {
        List<Lun> luns = new ArrayList<>(List.of(
                // conventional zones: mkfs.f2fs -m wants 2 (16 KiB) and 3 (4 KiB, 1 GiB) for its metadata
                new Lun("zoned-16k", 16384, 512 * MIB, 16 * MIB, 12 * MIB, 2, 8, true, true),
                new Lun("zoned-4k", 4096, 1024 * MIB, 16 * MIB, 16 * MIB, 4, 16, true, true),
                new Lun("zoned-64k", 65536, 256 * MIB, 16 * MIB, 16 * MIB, 0, 0, true, true)));
        if (BTRFS8) {
            luns.add(new Lun("zoned-a8", 4096, 512 * MIB, 16 * MIB, 16 * MIB, 2, 8, false, false));
        }
        return luns;
    }

    private static String fsPlan() {
        List<String> plan = new ArrayList<>();
        if (FS) {
            plan.addAll(List.of("zoned-4k=btrfs,f2fs", "zoned-16k=f2fs,btrfs"));
        }
        if (BTRFS8) {
            plan.add("zoned-a8=btrfs-single,btrfs-stall");   // the stall last: it leaves the device busy
        }
        return String.join(" ", plan);
    }

    @Test
    void linuxSeesHostManagedZonedDisks() throws Exception {
        InitiatorVm.assumeAvailable();
        List<Lun> luns = luns();
        Files.createDirectories(dir.resolve("luns.d"));
        for (Lun lun : luns) {
            Files.writeString(dir.resolve("luns.d/" + lun.name() + ".yaml"), lun.file());
        }
        Path script = Path.of(LinuxZonedIscsiIT.class.getResource("/vm/zoned-check.sh").toURI());
        String iqns = String.join(" ", luns.stream().map(l -> l.iqn() + "=" + l.name()).toList());
        String fsOnly = String.join(" ", luns.stream().filter(l -> !l.checked()).map(Lun::name).toList());
        try (InitiatorVm vm = InitiatorVm.create("zbc");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR,
                     "--nvme-port", "0", "--discovery-port", "0")) {
            server.awaitLine(false, l -> l.contains("serving " + luns.size() + " LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result guest = vm.runGuest(script, Map.of("IQNS", iqns, "FSONLY", fsOnly, "FSPLAN", fsPlan()),
                    KERNEL, RUN);
            GuestReport report = GuestReport.parse(guest.output());
            System.out.println("[zoned iSCSI / kernel " + KERNEL + "]\n" + report.summary()
                    + String.join("\n", guest.output().lines()
                    .filter(l -> l.startsWith("ZONE") || l.startsWith("FS ") || l.startsWith("#")).toList()));
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            if (!KERNEL.equals("latest")) {
                System.out.println(guest.output());
                return;   // what another kernel makes of the LUNs is documented (README), not asserted
            }
            List<String> required = luns.stream().filter(Lun::required).map(Lun::name).toList();
            assertThat(report.failures().stream().filter(c -> required.contains(c.name()) || c.name().equals("discovery"))
                    .toList()).as(guest.output() + "\nserver log:\n" + String.join("\n", server.stderr())).isEmpty();
            for (Lun lun : luns) {
                if (!lun.required()) {
                    continue;
                }
                GuestReport.Disk disk = report.disk(lun.name()).orElseThrow(() -> new AssertionError(guest.output()));
                assertThat(disk.logical()).isEqualTo(lun.lbs());
                assertThat(disk.sizeBytes()).isEqualTo(lun.size());
                long zones = lun.size() / lun.zoneSize();
                assertThat(line(guest.output(), "ZONED " + lun.name())).as(guest.output()).isEqualTo(List.of(
                        "host-managed", Long.toString(lun.zoneSize() / 512), Long.toString(zones),
                        Integer.toString(lun.maxOpen()), "0"));   // SCSI has no active-zone limit
                assertThat(line(guest.output(), "ZONES " + lun.name())).as(guest.output()).isEqualTo(List.of(
                        Long.toString(zones), Integer.toString(lun.conventional()), Long.toString(lun.zoneSize() / 512),
                        Long.toString(lun.capacity() / 512), Long.toString(zones - lun.conventional())));
                for (String what : List.of("blkzone-report", "write-at-wp", "wp-moved", "unaligned-write-refused",
                        "read-back", "blkzone-reset-one", "reset-reads-zeros", "fio-zbd-verify", "blkzone-reset-all")) {
                    assertThat(report.checks()).as(lun.name() + " " + what + "\n" + guest.output())
                            .anyMatch(c -> c.name().equals(lun.name()) && c.what().equals(what) && c.ok());
                }
            }
            if (FS) {
                for (String step : List.of("btrfs", "f2fs")) {
                    assertThat(line(guest.output(), "FS zoned-4k " + step)).as(guest.output()).first()
                            .isEqualTo("OK");
                }
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** The fields after {@code prefix} of the guest's line starting with it. */
    private static List<String> line(String output, String prefix) {
        return output.lines().map(String::trim).filter(l -> l.startsWith(prefix + " ")).findFirst()
                .map(l -> List.of(l.substring(prefix.length() + 1).trim().split(" +"))).orElse(List.of());
    }
}
