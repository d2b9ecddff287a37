package io.blocktarget.it;

import io.blocktarget.block.FlushDroppingBlockDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durability proven by a power cut (issue 15, item 5): acknowledged SYNCHRONIZE CACHE / NVMe Flush and FUA writes
 * survive it, over iSCSI and NVMe/TCP, and the same sequence loses data when flush and FUA are no-ops.
 *
 * <p>Killing the target process proves nothing: its writes sit in the kernel's page cache, which outlives the process,
 * so a flush that did nothing would pass. Here blocktarget runs <em>inside</em> the initiator VM (the host's JDK and
 * the built jar through the 9p share) with its LUN files on guest ext4 file systems, each on a loop device over an
 * image file on the host (9p cache=none, so what reaches the loop device is on the host at once). The guest's page
 * cache is thus the only volatile cache, with writeback switched off; the guest is reset by sysrq 'b' (no sync, qemu
 * exits), which drops it like a power cut; a second boot replays each journal and hands back the LUN files.
 *
 * <p>How a missing fsync is caught: a LUN block is in the image after the cut only if an fdatasync (or other
 * writeback) of the guest file system carried it there before the reset. Writes reach the target by pass-through
 * (sg_raw WRITE(10) with or without FUA, sg_sync, nvme write [-f], nvme flush), so the guest's block layer adds no
 * flush of its own, and each LUN has a file system of its own, so no other LUN's fsync writes its pages. The guest
 * records a block as acknowledged only after the flush covering it (or its own FUA write) completed GOOD: if the
 * target acknowledged without fdatasync, the block is still only in the dead guest's RAM and reads back as zeros.
 * Two controls keep that argument honest in every run: four plain writes after the last flush of every LUN must be
 * lost (the cut really drops unsynced data), and the four "-nf" LUNs run the very same sequence with
 * {@code -Dblocktarget.test.drop-flush} naming them ({@link FlushDroppingBlockDevice}: flush and FUA no-ops), and
 * every block they acknowledged must be lost — the test fails on a target whose flush or FUA does nothing.
 */
@Tag("vm")
class LinuxDurabilityIT {
    /** Protocol - method; the "-nf" twins run with flush and FUA dropped. */
    private static final List<String> KEPT = List.of("iscsi-flush", "iscsi-fua", "nvme-flush", "nvme-fua");
    private static final int BLOCK = 4096;
    private static final int ACKED_PER_LUN = 8;
    private static final int UNSYNCED_PER_LUN = 4;

    @TempDir
    Path share;

    enum Fate { KEPT, LOST, CORRUPT }

    record Block(String lun, String kind, int lba, Fate fate) {
    }

    @Test
    void acknowledgedFlushAndFuaSurviveAPowerCutAndDroppingThemLosesData() throws Exception {
        InitiatorVm.assumeAvailable();
        List<String> dropped = KEPT.stream().map(n -> n + "-nf").toList();
        List<String> luns = new ArrayList<>(KEPT);
        luns.addAll(dropped);
        linkTree(Path.of(System.getProperty("java.home")), share.resolve("jdk"));
        Files.copy(ServerProcess.JAR, share.resolve("blocktarget.jar"));
        String javaOpts = String.join(" ", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                // an emulated CPU: C1 only and the serial collector start the server in a fraction of the time
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx192m", "-XX:MaxDirectMemorySize=128m",
                "-XX:-UsePerfData", "-D" + FlushDroppingBlockDevice.PROPERTY + "=" + String.join(",", dropped));
        Path script = Path.of(LinuxDurabilityIT.class.getResource("/vm/durability-check.sh").toURI());
        long t0 = System.nanoTime();
        try (InitiatorVm vm = InitiatorVm.create("dur")) {
            InitiatorVm.Result cut = vm.runGuest(script, Map.of("MODE", "cut", "LUNS", String.join(" ", luns),
                    "JAVA_OPTS", javaOpts), "latest", Duration.ofMinutes(16), share);
            long cutMs = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("[durability / power cut] " + cutMs + " ms\n" + cut.output());
            GuestReport cutReport = GuestReport.parse(cut.output());
            assertThat(cutReport.failures()).as(cut.output()).isEmpty();
            assertThat(share.resolve("cut")).as("the guest reached the power cut\n%s", cut.output()).exists();
            assertThat(cut.exitCode()).as("a reset ends the VM without an exit code\n%s", cut.output())
                    .isEqualTo(InitiatorVm.VM_DIED);

            InitiatorVm.Result check = vm.runGuest(script, Map.of("MODE", "check", "LUNS", String.join(" ", luns)),
                    "latest", Duration.ofMinutes(6), share);
            System.out.println("[durability / after the cut] " + ((System.nanoTime() - t0) / 1_000_000 - cutMs)
                    + " ms\n" + check.output());
            assertThat(check.exitCode()).as(check.output()).isZero();
            assertThat(GuestReport.parse(check.output()).failures()).as(check.output()).isEmpty();

            Map<String, List<Block>> blocks = new LinkedHashMap<>();
            for (String lun : luns) {
                blocks.put(lun, fates(lun));
            }
            System.out.println(table(blocks));
            for (String lun : luns) {
                List<Block> mine = blocks.get(lun);
                assertThat(mine.stream().filter(b -> b.kind().equals("ACK"))).as(lun + " acknowledged").hasSize(ACKED_PER_LUN);
                assertThat(mine.stream().filter(b -> b.kind().equals("UNSYNCED"))).as(lun + " unsynced")
                        .hasSize(UNSYNCED_PER_LUN);
                assertThat(mine).as(lun + ": every block is either the old one (zeros) or the one written")
                        .noneMatch(b -> b.fate() == Fate.CORRUPT);
                assertThat(mine.stream().filter(b -> b.kind().equals("UNSYNCED")))
                        .as(lun + ": the cut must lose what was never flushed, or this test proves nothing")
                        .allMatch(b -> b.fate() == Fate.LOST);
                if (KEPT.contains(lun)) {
                    assertThat(mine.stream().filter(b -> b.kind().equals("ACK")))
                            .as(lun + ": acknowledged as durable, so it must survive the power cut")
                            .allMatch(b -> b.fate() == Fate.KEPT);
                } else {
                    assertThat(mine.stream().filter(b -> b.kind().equals("ACK")))
                            .as(lun + ": flush and FUA dropped, so nothing acknowledged may have reached the disk")
                            .allMatch(b -> b.fate() == Fate.LOST);
                }
            }
        }
    }

    /** Each recorded block of {@code lun} and what the replayed file system holds there. */
    private List<Block> fates(String lun) throws IOException {
        Path rec = share.resolve("rec-" + lun + ".log");
        assertThat(rec).as("records of " + lun).exists();
        byte[] after = Files.readAllBytes(share.resolve("after-" + lun + ".img"));
        List<Block> out = new ArrayList<>();
        for (String line : Files.readAllLines(rec)) {
            String[] f = line.trim().split(" ");
            assertThat(f).as("record line %s", line).hasSize(3);
            assertThat(f[1]).isEqualTo(lun);
            int lba = Integer.parseInt(f[2]);
            byte[] expected = new byte[BLOCK];
            byte[] header = ("BTDUR " + lun + " " + lba + "\n").getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(header, 0, expected, 0, header.length);
            byte[] actual = Arrays.copyOfRange(after, lba * BLOCK, (lba + 1) * BLOCK);
            Fate fate = Arrays.equals(actual, expected) ? Fate.KEPT
                    : Arrays.equals(actual, new byte[BLOCK]) ? Fate.LOST : Fate.CORRUPT;
            out.add(new Block(lun, f[0], lba, fate));
        }
        return out;
    }

    private static String table(Map<String, List<Block>> blocks) {
        StringBuilder sb = new StringBuilder("[durability] lun              acked: kept lost   unsynced: kept lost   corrupt\n");
        blocks.forEach((lun, list) -> sb.append(String.format("[durability] %-16s %11d %4d %15d %4d %9d%n", lun,
                count(list, "ACK", Fate.KEPT), count(list, "ACK", Fate.LOST), count(list, "UNSYNCED", Fate.KEPT),
                count(list, "UNSYNCED", Fate.LOST), list.stream().filter(b -> b.fate() == Fate.CORRUPT).count())));
        return sb.toString();
    }

    private static long count(List<Block> list, String kind, Fate fate) {
        return list.stream().filter(b -> b.kind().equals(kind) && b.fate() == fate).count();
    }

    /**
     * The JDK into the share as hard links (same file system: instant, no space; the guest only reads it), copies
     * where linking is refused (another file system); symbolic links are recreated as they are.
     */
    private static void linkTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(file).toString());
                if (attrs.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Files.readSymbolicLink(file));
                } else {
                    try {
                        Files.createLink(target, file);
                    } catch (IOException | UnsupportedOperationException e) {
                        Files.copy(file, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
