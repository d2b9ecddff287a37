package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlServer;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.server.TargetServer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code blocktarget top} end to end (issue 33 item 3): a real server with its control socket; a Java iSCSI initiator
 * and a Java NVMe/TCP host drive reads, writes and reads a fault rule fails at one LUN while {@code top --once --json}
 * (the built jar, a separate process) takes its two snapshots: it shows that LUN reading and writing with latencies,
 * errors and fault hits, and its two sessions; the idle LUN beside it shows nothing. Afterwards {@code GET /v1/stats}
 * has counted exactly the commands and bytes the initiators sent, per protocol and class.
 */
@Tag("loopback")
class TopIT {
    private static final Path JAR = Path.of(System.getProperty("blocktarget.jar", "../target-server/target/blocktarget.jar"))
            .toAbsolutePath();
    private static final int LBS = 4096;
    private static final String IQN = "iqn.2026-11.io.blocktarget:busy";
    private static final String NQN = "nqn.2026-11.io.blocktarget:busy";
    /** The LBA a fault rule fails reads of (medium error), one command in every {@value #FAULT_EVERY}. */
    private static final long FAULTY_LBA = 4000;
    private static final int FAULT_EVERY = 10;

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static byte[] cdb16(int opcode, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    /** What one initiator sent and how it ended. */
    private record Sent(AtomicLong reads, AtomicLong writes, AtomicLong failedReads) {
        Sent() {
            this(new AtomicLong(), new AtomicLong(), new AtomicLong());
        }
    }

    @Test
    void topShowsTheLoadOfEachLunAndStatsCountEveryCommand() throws Exception {
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/busy.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n");
        Files.writeString(dir.resolve("luns.d/idle.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n");
        TargetServer server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
        AtomicBoolean stop = new AtomicBoolean();
        try (ControlServer control = ControlServer.start(server.vertx(), server.controlPlane(),
                server.controlPlane().serverConfig().control());
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty());
             IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400002L);
             NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
            ControlClient.Response rule = client.call(HttpMethod.POST, "/v1/luns/busy/faults", new JsonObject()
                    .put("id", "bad").put("ops", new JsonArray().add("read")).put("lba", FAULTY_LBA + "-" + FAULTY_LBA)
                    .put("action", "medium-error"));
            assertThat(rule.status()).as(rule.body()).isEqualTo(201);
            iscsi.login(IQN, null);
            iscsi.clearUnitAttention();
            NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
            NvmeTcpTestHost.require(connected, "admin Connect");
            admin.enable();
            int cntlid = connected.cqe().dw0() & 0xFFFF;
            try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                JsonObject before = client.get("/v1/stats").json();

                Sent scsi = new Sent();
                Sent nvme = new Sent();
                CompletableFuture<Void> scsiLoad = CompletableFuture.runAsync(() -> {
                    try {
                        for (long i = 0; !stop.get(); i++) {
                            assertThat(iscsi.command(0, cdb16(0x8A, i % 1000, 2), 0, new byte[2 * LBS]).status())
                                    .isZero();
                            scsi.writes().incrementAndGet();
                            boolean faulty = i % FAULT_EVERY == 0;
                            int status = iscsi.command(0, cdb16(0x88, faulty ? FAULTY_LBA : i % 1000, 1), LBS, null)
                                    .status();
                            assertThat(status).isEqualTo(faulty ? 0x02 : 0);   // CHECK CONDITION by the rule
                            scsi.reads().incrementAndGet();
                            if (faulty) {
                                scsi.failedReads().incrementAndGet();
                            }
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                CompletableFuture<Void> nvmeLoad = CompletableFuture.runAsync(() -> {
                    try {
                        for (long i = 0; !stop.get(); i++) {
                            NvmeTcpTestHost.require(io.execute(new ReadWriteCommand(NvmOpcode.WRITE, 0, 1, i % 1000,
                                    0, false, false, 0, 0, null).toSqe(), new byte[LBS], 0, (int) (i % 0x8000)),
                                    "NVMe Write");
                            nvme.writes().incrementAndGet();
                            NvmeTcpTestHost.require(io.execute(new ReadWriteCommand(NvmOpcode.READ, 0, 1, i % 1000,
                                    3, false, false, 0, 0, null).toSqe(), null, 4 * LBS, (int) (i % 0x8000)),
                                    "NVMe Read");
                            nvme.reads().incrementAndGet();
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });

                String text;
                Process cli = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                        "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-jar",
                        JAR.toString(), "top", "--once", "--json", "--interval", "1", "--control", socket.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                try {
                    text = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(cli.waitFor(60, TimeUnit.SECONDS)).isTrue();
                } finally {
                    stop.set(true);
                    scsiLoad.get(60, TimeUnit.SECONDS);
                    nvmeLoad.get(60, TimeUnit.SECONDS);
                }
                assertThat(cli.exitValue()).as(text).isZero();
                JsonObject top = new JsonObject(text);
                assertThat(top.getDouble("interval-seconds")).isBetween(1.0, 30.0);
                JsonObject busy = lun(top, "busy");
                assertThat(busy.getDouble("reads-per-second")).isPositive();
                assertThat(busy.getDouble("writes-per-second")).isPositive();
                assertThat(busy.getDouble("read-bytes-per-second")).isPositive();
                assertThat(busy.getDouble("write-bytes-per-second")).isPositive();
                assertThat(busy.getDouble("latency-p50-us")).isPositive();
                assertThat(busy.getDouble("latency-p99-us")).isGreaterThanOrEqualTo(busy.getDouble("latency-p50-us"));
                assertThat(busy.getDouble("queue-depth")).isPositive();
                // a snapshot may fall between a rule's hit (at arrival) and the error (at completion): both counted
                assertThat(busy.getLong("errors")).isPositive();
                assertThat(busy.getLong("fault-hits")).isPositive();
                assertThat(busy.getLong("sessions")).isEqualTo(2);   // the iSCSI session and the NVMe controller
                assertThat(busy.getJsonObject("commands").getLong("read")).isPositive();
                JsonObject idle = lun(top, "idle");
                assertThat(idle.getDouble("reads-per-second")).isZero();
                assertThat(idle.getDouble("writes-per-second")).isZero();
                assertThat(idle.getValue("latency-p50-us")).isNull();
                assertThat(idle.getLong("sessions")).isZero();

                // every command the initiators sent is counted once, with its bytes (successful ones only)
                JsonObject after = client.get("/v1/stats").json();
                JsonObject i0 = protocol(before, "busy", "iscsi");
                JsonObject i1 = protocol(after, "busy", "iscsi");
                assertThat(count(i1, "commands", "read") - count(i0, "commands", "read")).isEqualTo(scsi.reads().get());
                assertThat(count(i1, "commands", "write") - count(i0, "commands", "write"))
                        .isEqualTo(scsi.writes().get());
                assertThat(count(i1, "errors", "read") - count(i0, "errors", "read"))
                        .isEqualTo(scsi.failedReads().get());
                assertThat(i1.getLong("bytes-read") - i0.getLong("bytes-read"))
                        .isEqualTo((scsi.reads().get() - scsi.failedReads().get()) * LBS);
                assertThat(i1.getLong("bytes-written") - i0.getLong("bytes-written"))
                        .isEqualTo(scsi.writes().get() * 2 * LBS);
                JsonObject n0 = protocol(before, "busy", "nvme");
                JsonObject n1 = protocol(after, "busy", "nvme");
                assertThat(count(n1, "commands", "read") - count(n0, "commands", "read")).isEqualTo(nvme.reads().get());
                assertThat(count(n1, "commands", "write") - count(n0, "commands", "write"))
                        .isEqualTo(nvme.writes().get());
                assertThat(n1.getLong("bytes-read") - n0.getLong("bytes-read")).isEqualTo(nvme.reads().get() * 4 * LBS);
                assertThat(n1.getLong("bytes-written") - n0.getLong("bytes-written"))
                        .isEqualTo(nvme.writes().get() * LBS);
                long histogram = 0;
                for (Object count : n1.getJsonArray("latency-buckets")) {
                    histogram += ((Number) count).longValue();
                }
                long nvmeCommands = 0;
                for (String c : new String[] {"read", "write", "flush", "unmap", "other"}) {
                    nvmeCommands += count(n1, "commands", c);
                }
                assertThat(histogram).isEqualTo(nvmeCommands);
                assertThat(lun(after, "busy").getLong("in-flight")).isZero();
                assertThat(lun(after, "busy").getLong("fault-hits")).isEqualTo(scsi.failedReads().get());

                // and /metrics carries the same counters
                String prefix = "blocktarget_lun_commands_total{class=\"read\",lun=\"busy\",protocol=\"nvme\"} ";
                String line = client.get("/metrics").body().lines().filter(l -> l.startsWith(prefix)).findFirst()
                        .orElseThrow();
                assertThat(Double.parseDouble(line.substring(prefix.length()))).isEqualTo(count(n1, "commands", "read"));
            }
            iscsi.logout();
        } finally {
            stop.set(true);
            server.stop();
        }
    }

    private static JsonObject lun(JsonObject body, String name) {
        JsonArray luns = body.getJsonArray("luns");
        for (int i = 0; i < luns.size(); i++) {
            if (luns.getJsonObject(i).getString("name").equals(name)) {
                return luns.getJsonObject(i);
            }
        }
        throw new AssertionError("no LUN " + name + " in " + body.encode());
    }

    private static JsonObject protocol(JsonObject stats, String lun, String protocol) {
        return lun(stats, lun).getJsonObject("protocols").getJsonObject(protocol);
    }

    private static long count(JsonObject protocol, String what, String opClass) {
        return protocol.getJsonObject(what).getLong(opClass);
    }
}
