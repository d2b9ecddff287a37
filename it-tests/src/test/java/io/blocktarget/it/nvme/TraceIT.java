package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlServer;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.server.TargetServer;
import io.vertx.core.http.HttpMethod;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device-side trace end to end (issue 11 item 3): a real server with its control socket; the Java initiators drive
 * iSCSI and NVMe/TCP commands at one 16 KiB LUN while its trace is on, and the trace (API NDJSON, a follow stream and
 * the CLI's text lines) shows each command once, in completion order, with the opcode name, LBA, blocks, bytes, FUA,
 * session and status the initiator sent and got; commands after the trace stopped are not in it.
 */
@Tag("loopback")
class TraceIT {
    private static final Path JAR = Path.of(System.getProperty("blocktarget.jar", "../target-server/target/blocktarget.jar"))
            .toAbsolutePath();
    private static final int LBS = 16384;
    private static final String IQN = "iqn.2026-11.io.blocktarget:traced";
    private static final String NQN = "nqn.2026-11.io.blocktarget:traced";

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static byte[] cdb16(int opcode, int byte1, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) byte1).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    @Test
    void bothProtocolsAreTracedInOrderWithTheirFields() throws Exception {
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/traced.yaml"),
                "backend: ram\nsize: 64MiB\nlogical-block-size: 16KiB\nphysical-block-size: 64KiB\n");
        TargetServer server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
        try (ControlServer control = ControlServer.start(server.vertx(), server.controlPlane(),
                server.controlPlane().serverConfig().control());
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty());
             ControlClient follower = ControlClient.connect(socket.toString(), Optional.empty());
             IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400001L);
             NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
            iscsi.login(IQN, null);
            iscsi.clearUnitAttention();
            NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
            NvmeTcpTestHost.require(connected, "admin Connect");
            admin.enable();
            int cntlid = connected.cqe().dw0() & 0xFFFF;
            try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                assertThat(iscsi.command(0, cdb16(0x88, 0, 0, 1), LBS, null).status()).isZero();   // not traced

                ControlClient.Response on = client.call(HttpMethod.PUT, "/v1/luns/traced/trace",
                        new JsonObject().put("enabled", true).put("ring", 1024));
                assertThat(on.status()).as(on.body()).isEqualTo(200);
                LinkedBlockingQueue<String> live = new LinkedBlockingQueue<>();
                CompletableFuture<ControlClient.Response> stream = CompletableFuture.supplyAsync(() -> {
                    try {
                        return follower.stream("/v1/luns/traced/trace?follow=true", live::add);
                    } catch (ControlClient.UnreachableException e) {
                        throw new IllegalStateException(e);
                    }
                });

                // iSCSI WRITE(16) FUA of 4 blocks at LBA 8, READ(16) of them, a READ beyond the end
                assertThat(iscsi.command(0, cdb16(0x8A, 0x08, 8, 4), 0, new byte[4 * LBS]).status()).isZero();
                assertThat(iscsi.command(0, cdb16(0x88, 0, 8, 4), 4 * LBS, null).status()).isZero();
                assertThat(iscsi.command(0, cdb16(0x88, 0, 4096, 1), LBS, null).status()).isEqualTo(0x02);
                // NVMe Write FUA of 2 blocks at LBA 100 (CID 0x77), Read of them (CID 0x78)
                NvmeTcpTestHost.require(io.execute(new ReadWriteCommand(NvmOpcode.WRITE, 0, 1, 100, 1, true, false,
                        0, 0, null).toSqe(), new byte[2 * LBS], 0, 0x77), "NVMe Write");
                NvmeTcpTestHost.require(io.execute(new ReadWriteCommand(NvmOpcode.READ, 0, 1, 100, 1, false, false,
                        0, 0, null).toSqe(), null, 2 * LBS, 0x78), "NVMe Read");
                assertThat(io.read(1, 4096, 1, LBS).is(NvmeStatus.LBA_OUT_OF_RANGE)).isTrue();

                List<JsonObject> followed = new ArrayList<>();
                while (followed.size() < 6) {
                    String line = live.poll(30, TimeUnit.SECONDS);
                    assertThat(line).as("follow stream line " + followed.size()).isNotNull();
                    followed.add(new JsonObject(line));
                }

                ControlClient.Response dump = client.get("/v1/luns/traced/trace");
                assertThat(dump.status()).isEqualTo(200);
                List<JsonObject> records = dump.body().lines().map(JsonObject::new).toList();
                assertThat(records).hasSize(6);
                assertThat(followed).isEqualTo(records);
                assertThat(records).extracting(r -> r.getLong("seq")).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
                assertThat(records).extracting(r -> r.getString("op"))
                        .containsExactly("WRITE(16)", "READ(16)", "READ(16)", "Write", "Read", "Read");
                assertThat(records).extracting(r -> r.getString("protocol"))
                        .containsExactly("iscsi", "iscsi", "iscsi", "nvme", "nvme", "nvme");
                assertThat(records).extracting(r -> r.getLong("lba")).containsExactly(8L, 8L, 4096L, 100L, 100L, 4096L);
                assertThat(records).extracting(r -> r.getLong("bytes"))
                        .containsExactly(4L * LBS, 4L * LBS, (long) LBS, 2L * LBS, 2L * LBS, (long) LBS);
                assertThat(records).extracting(r -> r.getJsonArray("flags").getList().toString())
                        .containsExactly("[fua]", "[]", "[]", "[fua]", "[]", "[]");
                assertThat(records).extracting(r -> r.getString("status")).containsExactly("GOOD", "GOOD",
                        "CHECK CONDITION", "SUCCESS", "SUCCESS", "LBA OUT OF RANGE");
                JsonObject sense = records.get(2).getJsonObject("sense");
                assertThat(List.of(sense.getInteger("key"), sense.getInteger("asc"), sense.getInteger("ascq")))
                        .containsExactly(0x05, 0x21, 0x00);   // ILLEGAL REQUEST, LBA OUT OF RANGE
                assertThat(records.get(0).getString("initiator")).startsWith("iqn.2026-11.org.example:java-initiator,i,");
                assertThat(records.get(3).getString("initiator")).isEqualTo(NvmeTcpTestHost.HOSTNQN);
                assertThat(records.get(3).getString("connection")).isEqualTo("cntlid " + cntlid);
                assertThat(records.get(3).getInteger("queue")).isEqualTo(1);
                assertThat(records.get(3).getLong("tag")).isEqualTo(0x77);
                assertThat(records.get(4).getLong("tag")).isEqualTo(0x78);
                for (int i = 1; i < records.size(); i++) {
                    assertThat(records.get(i).getLong("time-ns")).isGreaterThanOrEqualTo(
                            records.get(i - 1).getLong("time-ns"));
                    assertThat(records.get(i).getLong("tag")).isNotEqualTo(records.get(i - 1).getLong("tag"));
                }
                assertThat(records).allSatisfy(r -> assertThat(r.getInteger("qd")).isEqualTo(1));

                JsonObject stats = client.get("/v1/luns/traced/trace/stats").json();
                assertThat(stats.getJsonObject("kinds").getJsonObject("write").getLong("commands")).isEqualTo(2);
                assertThat(stats.getJsonObject("kinds").getJsonObject("read").getLong("failures")).isEqualTo(2);

                // the CLI prints one text line per record
                ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                        "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-jar",
                        JAR.toString(), "trace", "traced", "--control", socket.toString())
                        .redirectErrorStream(true);
                Process cli = pb.start();
                String text = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(cli.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(cli.exitValue()).as(text).isZero();
                List<String> lines = text.lines().toList();
                assertThat(lines).hasSize(6);
                assertThat(lines.get(0)).contains(" iscsi ", "  W  WRITE(16)", " 8+4 ", " 65536 fua ", "GOOD");
                assertThat(lines.get(2)).contains("CHECK CONDITION ILLEGAL REQUEST 21h/00h");
                assertThat(lines.get(3)).contains(" nvme ", " cid 119 ", "  W  Write", " 100+2 ", " 32768 fua ");

                assertThat(client.call(HttpMethod.DELETE, "/v1/luns/traced/trace", (String) null).status())
                        .isEqualTo(204);
                assertThat(stream.get(30, TimeUnit.SECONDS).status()).as("the follow stream ends").isEqualTo(200);
                assertThat(iscsi.command(0, cdb16(0x88, 0, 0, 1), LBS, null).status()).isZero();   // not traced
                assertThat(client.get("/v1/luns/traced/trace").body().lines().count()).isEqualTo(6);
            }
            iscsi.logout();
        } finally {
            server.stop();
        }
    }
}
