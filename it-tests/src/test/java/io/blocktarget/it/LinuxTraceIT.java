package io.blocktarget.it;

import io.blocktarget.control.ControlClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device-side trace of real Linux I/O (issue 11 item 3): with the trace of a 16 KiB LUN on, a Linux 7.x guest
 * ({@code vm/trace-check.sh}) runs {@code fio --bs=16k --rw=randwrite --iodepth=8 --direct=1} over iSCSI and then
 * over NVMe/TCP. The trace must show exactly the writes fio issued on each protocol, each one 16 KiB and 16 KiB
 * aligned, succeeded, with queue depths at arrival never above fio's iodepth; the aggregates agree; a follow stream
 * that ran throughout accounts for every record (received or reported dropped); the CLI prints the text lines.
 *
 * <p>The LUN is file-backed: file I/O completes on worker threads, so commands can overlap on the device (a RAM
 * disk completes each command inline, before the next one is read, and would show depth 1 whatever fio does).
 */
@Tag("vm")
class LinuxTraceIT {
    private static final String IQN = "iqn.2026-11.io.blocktarget:tr";
    private static final String NQN = "nqn.2026-11.io.blocktarget:tr";
    private static final int QD = 8;
    private static final int LBS = 16384;

    @TempDir
    Path dir;

    @Test
    void fioRandwrite16kIsTracedOnBothProtocols() throws Exception {
        InitiatorVm.assumeAvailable();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "control-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/tr.yaml"), """
                backend: file
                path: disks/tr.img
                create: true
                size: 256MiB
                logical-block-size: 16KiB
                """);
        Path script = Path.of(LinuxTraceIT.class.getResource("/vm/trace-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("trace");
             ServerProcess server = vm.startServer("serve", "--config", dir.toString(), "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 1 LUN"), Duration.ofSeconds(60));
            cli("trace", "tr", "--on", "--ring", "65536", "--control", socket.toString());
            GuestReport report;
            List<String> followed;
            try (ServerProcess follow = ServerProcess.start("trace", "tr", "--follow", "--json",
                    "--control", socket.toString())) {
                InitiatorVm.Result guest = vm.runGuest(script, Map.of("IQN", IQN, "NQN", NQN,
                        "QD", Integer.toString(QD), "SIZE", "32M"));
                report = GuestReport.parse(guest.output());
                assertThat(guest.exitCode()).as("guest exit code; output:\n%s\nserver log:\n%s", guest.output(),
                        String.join("\n", server.stderr())).isZero();
                cli("trace", "tr", "--off", "--control", socket.toString());
                assertThat(follow.awaitExit(Duration.ofSeconds(60))).as("the follow stream ends with the trace")
                        .isZero();
                followed = follow.stdout();
            }
            assertThat(report.failures()).as(report.output()).isEmpty();
            assertThat(report.requireDisk("tr-iscsi").logical()).isEqualTo(LBS);
            assertThat(report.requireDisk("tr-nvme").logical()).isEqualTo(LBS);

            List<JsonObject> records;
            JsonObject stats;
            try (ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
                ControlClient.Response dump = client.get("/v1/luns/tr/trace");
                assertThat(dump.status()).isEqualTo(200);
                records = dump.body().lines().map(JsonObject::new).toList();
                stats = client.get("/v1/luns/tr/trace/stats").json();
            }
            assertThat(records).noneMatch(r -> r.containsKey("dropped"));
            assertThat(stats.getLong("overwritten")).as("the ring held the whole run").isZero();

            StringBuilder summary = new StringBuilder("[trace / kernel latest]\n");
            for (String protocol : List.of("iscsi", "nvme")) {
                long issued = fioIos(report.output(), protocol);
                List<JsonObject> writes = records.stream().filter(r -> r.getString("protocol").equals(protocol)
                        && r.getString("kind").equals("write")).toList();
                TreeMap<Long, Long> sizes = new TreeMap<>();
                writes.forEach(w -> sizes.merge(w.getLong("bytes"), 1L, Long::sum));
                String diagnosis = protocol + ": write sizes " + sizes + "; guest:\n" + report.output();
                // every byte fio wrote is in the trace, in 16 KiB-aligned commands of whole 16 KiB blocks
                assertThat(writes.stream().mapToLong(w -> w.getLong("bytes")).sum()).as(diagnosis)
                        .isEqualTo(issued * LBS);
                assertThat(writes).allSatisfy(w -> {
                    assertThat(w.getLong("bytes") % LBS).isZero();
                    assertThat(w.getLong("lba") * LBS % LBS).isZero();
                    assertThat(w.getBoolean("ok")).isTrue();
                    assertThat(w.getString("op")).isIn("WRITE(10)", "WRITE(16)", "Write");
                });
                // with merging off in the guest, one command per fio write: all 16 KiB
                assertThat(sizes).as(diagnosis).containsExactly(Map.entry((long) LBS, issued));
                TreeMap<Integer, Long> depths = new TreeMap<>();
                writes.forEach(w -> depths.merge(w.getInteger("qd"), 1L, Long::sum));
                assertThat(depths.lastKey()).as(protocol + ": queue depth at arrival never above fio's iodepth")
                        .isBetween(1, QD);
                summary.append(String.format("  %-5s %d writes (bytes -> count %s), queue depth at arrival: %s%n",
                        protocol, writes.size(), sizes, depths));
            }
            JsonObject write = stats.getJsonObject("kinds").getJsonObject("write");
            long writes = write.getLong("commands");
            assertThat(write.getJsonObject("sizes").fieldNames()).containsExactly("16384");
            assertThat(write.getJsonObject("sizes").getLong("16384")).isEqualTo(writes);
            assertThat(write.getJsonObject("aligned").getLong("lbs")).isEqualTo(writes);
            assertThat(write.getLong("failures")).isZero();
            assertThat(stats.getJsonObject("queue-depth").getLong("max")).isLessThanOrEqualTo(QD);

            // the follow stream: every record either received, in order, or reported dropped
            long received = 0;
            long dropped = 0;
            long lastSeq = -1;
            for (String line : followed) {
                JsonObject o = new JsonObject(line);
                if (o.containsKey("dropped")) {
                    dropped += o.getLong("dropped");
                } else {
                    assertThat(o.getLong("seq")).isGreaterThan(lastSeq);
                    lastSeq = o.getLong("seq");
                    received++;
                }
            }
            assertThat(received + dropped).as("followed + dropped = recorded").isEqualTo(stats.getLong("recorded"));
            summary.append(String.format("  follow stream: %d records, %d dropped, of %d%n", received, dropped,
                    stats.getLong("recorded")));

            List<String> text = cli("trace", "tr", "--control", socket.toString());
            assertThat(text).hasSize(records.size());
            assertThat(text).anyMatch(l -> l.matches(".* iscsi .*  W  WRITE\\((10|16)\\)\\s+\\d+\\+1\\s+16384 .*GOOD"));
            assertThat(text).anyMatch(l -> l.matches(".* nvme .*  W  Write\\s+\\d+\\+1\\s+16384 .*SUCCESS"));
            System.out.println(summary + report.summary());

            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.stderr())).isZero();
            assertThat(server.stderr()).noneMatch(l -> l.contains("LEAK:"));
        }
    }

    /** The guest's {@code FIO <proto> <ios>} line. */
    private static long fioIos(String output, String protocol) {
        return output.lines().filter(l -> l.startsWith("FIO " + protocol + " ")).findFirst()
                .map(l -> Long.parseLong(l.split(" ")[2])).orElseThrow(() -> new AssertionError("no FIO " + protocol
                        + " line in\n" + output));
    }

    /** Runs the CLI; it must exit 0; returns its stdout. */
    private static List<String> cli(String... args) throws Exception {
        try (ServerProcess cli = ServerProcess.start(args)) {
            int rc = cli.awaitExit(Duration.ofSeconds(60));
            assertThat(rc).as(String.join(" ", args) + "\nstdout:\n" + String.join("\n", cli.stdout())
                    + "\nstderr:\n" + String.join("\n", cli.stderr())).isZero();
            return new ArrayList<>(cli.stdout());
        }
    }
}
