package io.blocktarget.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
 * Data placement as a Linux 7.x host sees it (issue 32, {@code vm/placement-check.sh}): NVMe namespaces with
 * {@code placement:} at 4 KiB and 16 KiB logical blocks show {@code max_write_streams} = the handles and {@code
 * write_stream_granularity} = the reclaim unit in bytes — what {@code nvme_query_fdp_info} computes from CTRATT FDPS,
 * Get Features 1Dh, log 20h (RUNS) and RUH Status (NRUHSD) — and a LUN without placement shows 0 for both; over
 * iSCSI, fio's {@code write_hint=short} / {@code extreme} on the streams LUN reach the server as GROUP NUMBER 2 / 5
 * ({@code sd_group_number}: the hint capped at the permanent streams sd read from B7h and the IO Advice Hints Grouping
 * mode page), seen in the LUN's per-stream counters. A LUN whose log 20h and VPD B7h a fault rule fails
 * ({@code queries:}) attaches with 0 write streams and takes writes on both protocols, and sd sends its lifetime hints
 * as GROUP NUMBER 0 (no RSCS). Where the guest's fio has {@code write_stream} (io_uring), NVMe write streams 2 / 3 land on handles 1 / 2 (the guest's fio 3.39 has no {@code write_stream}: not run there); fio's own
 * FDP path (io_uring_cmd passthrough, {@code fdp_pli=3}) lands on handle 3; nvme-cli's {@code nvme fdp configs / usage /
 * stats / status} read logs 20h-22h and RUH Status. NVMe is attached with the guest's default native multipath (the
 * namespace head is the disk Linux reads the write streams of).
 */
@Tag("vm")
class LinuxPlacementIT {
    private static final Duration RUN = Duration.ofMinutes(8);

    @TempDir
    Path dir;

    /** Placement, but log 20h and VPD B7h fail (fault rules): Linux must fall back to no streams, disks usable. */
    private static final String FAULTED = "faulted-4k";

    /** A LUN of the test: its logical block, handles, streams and reclaim unit (0 handles: no placement). */
    record Lun(String name, int lbs, int handles, int streams, long unitBytes) {
    }

    private static final List<Lun> LUNS = List.of(new Lun("fdp-4k", 4096, 4, 6, 1L << 20),
            new Lun("fdp-16k", 16384, 8, 6, 4L << 20), new Lun("plain-4k", 4096, 0, 0, 0),
            new Lun(FAULTED, 4096, 4, 6, 1L << 20));


    @Test
    void linuxShowsWriteStreamsAndSendsGroupNumbers() throws Exception {
        InitiatorVm.assumeAvailable();
        Files.createDirectories(dir.resolve("luns.d"));
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        for (Lun lun : LUNS) {
            Files.writeString(dir.resolve("luns.d/" + lun.name() + ".yaml"), "backend: ram\nsize: 64MiB\n"
                    + "logical-block-size: " + lun.lbs() + "\n" + (lun.handles() == 0 ? ""
                    : "placement: {reclaim-unit-size: " + lun.unitBytes() + ", handles: " + lun.handles()
                    + ", streams: " + lun.streams() + "}\n")
                    + (lun.name().equals(FAULTED) ? "faults:\n  - {queries: [fdp-configurations], action: status,"
                    + " nvme-status: 0/06}\n  - {queries: [block-limits-extension], action: status,"
                    + " sense: 5/24/00}\n" : ""));
        }
        Path script = Path.of(LinuxPlacementIT.class.getResource("/vm/placement-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("placement");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind",
                     InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 4 LUNs"), Duration.ofSeconds(60));
            InitiatorVm.Result guest = vm.runGuest(script, Map.of("NAMES",
                    String.join(" ", LUNS.stream().map(Lun::name).toList()), "HINT_LUN", "fdp-4k", "FAULT_LUN", FAULTED), "latest", RUN);
            GuestReport report = GuestReport.parse(guest.output());
            Map<String, long[]> streams = new LinkedHashMap<>();
            boolean fioWriteStream = false;
            for (String line : guest.output().split("\n")) {
                String[] f = line.trim().split(" +");
                if (f[0].equals("STREAMS") && f.length == 5) {
                    streams.put(f[1], new long[] {Long.parseLong(f[3]), Long.parseLong(f[4])});
                }
                fioWriteStream |= line.trim().equals("FIO-WRITE-STREAM yes");
            }
            JsonObject hinted = placement("fdp-4k", socket);
            StringBuilder table = new StringBuilder("  namespace         max_write_streams write_stream_granularity\n");
            streams.forEach((k, v) -> table.append(String.format("  %-17s %17d %24d%n", k, v[0], v[1])));
            System.out.println("[placement / kernel latest]\n" + table + report.summary() + "fdp-4k streams: "
                    + hinted.getJsonArray("streams").encode() + "\nfdp-4k handles: "
                    + hinted.getJsonArray("handles").encode() + "\nfio write_stream: " + fioWriteStream);
            assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                    String.join("\n", server.stderr())).isZero();
            assertThat(report.failures()).as(report.output() + "\nserver log:\n" + String.join("\n",
                    server.stderr())).isEmpty();
            for (Lun lun : LUNS) {
                long[] shown = streams.get(lun.name() + "-nvme");
                boolean faulted = lun.name().equals(FAULTED);   // log 20h failed: no RUNS, no streams
                assertThat(shown).as(lun.name() + "\n" + guest.output()).isNotNull();
                assertThat(shown[0]).as(lun.name() + " max_write_streams").isEqualTo(faulted ? 0 : lun.handles());
                assertThat(shown[1]).as(lun.name() + " write_stream_granularity")
                        .isEqualTo(faulted ? 0 : lun.unitBytes());
            }
            // the faulted LUN's disks were written to (its write checks passed above); sd saw no streams there
            assertThat(guest.output()).contains("FDP configs log header status:0x6 endgid:1");
            assertThat(guest.output()).containsPattern("sd .*permanent stream count = 6");
            JsonObject faulted = placement(FAULTED, socket);
            assertThat(faulted.getJsonArray("streams").getJsonObject(1).getLong("host-bytes")).as("GROUP NUMBER 2")
                    .isZero();
            assertThat(faulted.getJsonArray("handles").getJsonObject(0).getLong("host-bytes")).as("default placement")
                    .isEqualTo((1L << 20) + 2 * 4096);   // the hinted 1 MiB and one block per protocol
            report.assertPassed("nvme-fdp-configs", "nvme-fdp-usage", "nvme-fdp-stats", "nvme-fdp-status");
            // sd: write_hint short (2) and extreme (5) became GROUP NUMBER 2 and 5, whole
            JsonArray groups = hinted.getJsonArray("streams");   // GROUP NUMBER 1..streams-1
            assertThat(groups.getJsonObject(1).getLong("host-bytes")).as("GROUP NUMBER 2").isEqualTo(1L << 20);
            assertThat(groups.getJsonObject(4).getLong("host-bytes")).as("GROUP NUMBER 5").isEqualTo(2L << 20);
            for (int g : new int[] {0, 2, 3}) {
                assertThat(groups.getJsonObject(g).getLong("host-bytes")).as("GROUP NUMBER %d", g + 1).isZero();
            }
            // fio --ioengine=io_uring_cmd --fdp=1 --fdp_pli=3: DTYPE 2 with the fourth RUH Status PID, handle 3
            assertThat(hinted.getJsonArray("handles").getJsonObject(3).getLong("host-bytes")).as("fdp_pli=3")
                    .isEqualTo(1L << 20);
            if (fioWriteStream) {
                JsonArray handles = hinted.getJsonArray("handles");
                assertThat(handles.getJsonObject(1).getLong("host-bytes")).as("write stream 2").isEqualTo(1L << 20);
                assertThat(handles.getJsonObject(2).getLong("host-bytes")).as("write stream 3").isEqualTo(2L << 20);
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** {@code status.placement} of a LUN, from {@code blocktarget lun show NAME --json}. */
    private static JsonObject placement(String lun, Path socket) throws Exception {
        try (ServerProcess cli = ServerProcess.start("lun", "show", lun, "--json", "--control", socket.toString())) {
            assertThat(cli.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", cli.stderr())).isZero();
            return new JsonObject(String.join("\n", cli.stdout())).getJsonObject("status").getJsonObject("placement");
        }
    }
}
