package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlServer;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.server.TargetServer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Multipath end to end over loopback (issue 29): one LUN on two portals of 127.0.0.1 (different ports), the Java
 * iSCSI initiator and NVMe/TCP host on both paths. While write-and-verify load runs over both protocols on portal a,
 * portal b's state is flipped through the control API ({@code path set}): the load never fails (unit attentions are
 * retried, as initiators do), I/O on b gets NOT READY 04h/0Bh, 04h/0Ch, 04h/0Ah and the ANA statuses Inaccessible /
 * Transition, data written through one path reads identical through the other, and a transition ends on its own.
 * A fault rule with {@code portal: b} drops b's connections while a keeps serving; an initiator's SET TARGET PORT
 * GROUPS reaches the other nexuses and the LUN's file; discovery through either portal lists both.
 */
@Tag("loopback")
class MultipathLoopbackIT {
    private static final int LBS = 4096;
    private static final String IQN = "iqn.2026-11.io.blocktarget:mp";
    private static final String NQN = "nqn.2026-11.io.blocktarget:mp";
    private static final int NOT_READY = 0x2;
    private static final int UNIT_ATTENTION = 0x6;

    @TempDir
    Path tmp;
    private Path dir;
    private int iscsiA;
    private int iscsiB;
    private int nvmeA;
    private int nvmeB;
    private TargetServer server;
    private ControlServer control;
    private ControlClient client;
    private final List<AutoCloseable> open = new ArrayList<>();

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @BeforeEach
    void start() throws Exception {
        dir = tmp.resolve("conf");
        Files.createDirectories(dir.resolve("luns.d"));
        iscsiA = freePort();
        iscsiB = freePort();
        nvmeA = freePort();
        nvmeB = freePort();
        Path socket = tmp.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "discovery-port: 0\ncontrol-socket: " + socket
                + "\nportals:\n"
                + "  - { name: a, address: 127.0.0.1, iscsi-port: " + iscsiA + ", nvme-port: " + nvmeA + " }\n"
                + "  - { name: b, address: 127.0.0.1, iscsi-port: " + iscsiB + ", nvme-port: " + nvmeB + " }\n");
        // explicit ALUA on (off by default) for the SET TARGET PORT GROUPS test; the others do not send it
        Files.writeString(dir.resolve("luns.d/mp.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "commands: {set-target-port-groups: true}\n");
        server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
        control = ControlServer.start(server.vertx(), server.controlPlane(),
                server.controlPlane().serverConfig().control());
        client = ControlClient.connect(socket.toString(), Optional.empty());
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            try {
                c.close();
            } catch (Exception e) {
                // the test's own sessions; some were closed by the target on purpose
            }
        }
        client.close();
        control.close();
        server.stop();
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private IscsiTestInitiator iscsi(int port, long isid) throws Exception {
        IscsiTestInitiator i = keep(IscsiTestInitiator.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), isid));
        i.login(IQN, null);
        i.clearUnitAttention();
        return i;
    }

    /** An I/O queue of a new controller connected through {@code port}. */
    private NvmeTcpTestHost nvme(int port) throws Exception {
        NvmeTcpTestHost admin = keep(NvmeTcpTestHost.open(port, false, false));
        NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
        NvmeTcpTestHost.require(connected, "admin Connect");
        admin.enable();
        NvmeTcpTestHost io = keep(NvmeTcpTestHost.open(port, false, false));
        NvmeTcpTestHost.require(io.connect(NQN, 1, 127, connected.cqe().dw0() & 0xFFFF, 0, 0), "I/O Connect");
        return io;
    }

    private static byte[] cdb16(int opcode, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    private static byte[] block(long lba, long stamp) {
        byte[] b = new byte[LBS];
        ByteBuffer buf = ByteBuffer.wrap(b);
        while (buf.remaining() >= 16) {
            buf.putLong(lba).putLong(stamp);
        }
        return b;
    }

    /** One SCSI command, unit attentions retried (each nexus learns of a path change by one). */
    private static IscsiTestInitiator.Result scsi(IscsiTestInitiator i, byte[] cdb, int read, byte[] out)
            throws IOException {
        for (int attempt = 0; ; attempt++) {
            IscsiTestInitiator.Result r = i.command(0, cdb, read, out);
            if (r.status() != 0x02 || (r.sense()[2] & 0xF) != UNIT_ATTENTION || attempt == 3) {
                return r;
            }
        }
    }

    private static void scsiWrite(IscsiTestInitiator i, long lba, byte[] data) throws IOException {
        assertThat(scsi(i, cdb16(0x8A, lba, 1), 0, data).status()).as("WRITE(16) LBA %d", lba).isZero();
    }

    private static byte[] scsiRead(IscsiTestInitiator i, long lba) throws IOException {
        IscsiTestInitiator.Result r = scsi(i, cdb16(0x88, lba, 1), LBS, null);
        assertThat(r.status()).as("READ(16) LBA %d", lba).isZero();
        return r.data();
    }

    /** SENSE KEY / ASC / ASCQ of a refused READ(16) (fixed format sense, SPC-5 §4.4.3). */
    private static int[] scsiRefusal(IscsiTestInitiator i, long lba) throws IOException {
        IscsiTestInitiator.Result r = scsi(i, cdb16(0x88, lba, 1), LBS, null);
        assertThat(r.status()).as("CHECK CONDITION").isEqualTo(0x02);
        return new int[] {r.sense()[2] & 0xF, r.sense()[12] & 0xFF, r.sense()[13] & 0xFF};
    }

    private ControlClient.Response pathSet(String portal, String state, String transition) throws Exception {
        JsonObject body = new JsonObject().put("state", state);
        if (transition != null) {
            body.put("transition", transition);
        }
        ControlClient.Response r = client.call(HttpMethod.PUT, "/v1/luns/mp/paths/" + portal, body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r;
    }

    private String stateOn(String portal) throws Exception {
        for (Object p : client.get("/v1/luns/mp/paths").json().getJsonArray("paths")) {
            JsonObject path = (JsonObject) p;
            if (path.getString("portal").equals(portal)) {
                return path.getString("state");
            }
        }
        throw new AssertionError("no path on " + portal);
    }

    /** Write-and-verify over one path until stopped; every failure is recorded (unit attentions are retried). */
    private final class Load implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong ops = new AtomicLong();
        final List<String> errors = new CopyOnWriteArrayList<>();
        private final IscsiTestInitiator scsi;
        private final NvmeTcpTestHost nvme;
        private final long base;

        Load(IscsiTestInitiator scsi, NvmeTcpTestHost nvme, long base) {
            this.scsi = scsi;
            this.nvme = nvme;
            this.base = base;
        }

        @Override
        public void run() {
            long stamp = 0;
            while (!stop.get() && errors.isEmpty()) {
                long lba = base + stamp % 64;
                byte[] data = block(lba, ++stamp);
                try {
                    if (scsi != null) {
                        IscsiTestInitiator.Result w = scsi(scsi, cdb16(0x8A, lba, 1), 0, data);
                        IscsiTestInitiator.Result r = scsi(scsi, cdb16(0x88, lba, 1), LBS, null);
                        if (w.status() != 0 || r.status() != 0 || !Arrays.equals(r.data(), data)) {
                            errors.add("iSCSI LBA " + lba + ": write " + w.status() + ", read " + r.status());
                        }
                    } else {
                        NvmeTcpTestHost.Reply w = nvme.write(1, lba, 1, data);
                        NvmeTcpTestHost.Reply r = nvme.read(1, lba, 1, LBS);
                        if (!w.ok() || !r.ok() || !Arrays.equals(r.data(), data)) {
                            errors.add("NVMe LBA " + lba + ": write " + w.cqe().status() + ", read "
                                    + r.cqe().status());
                        }
                    }
                    ops.incrementAndGet();
                } catch (IOException | RuntimeException e) {
                    errors.add(e.toString());
                }
            }
        }
    }

    @Test
    void statesFlipWhileLoadRunsOnTheOptimizedPath() throws Exception {
        Load scsiLoad = new Load(iscsi(iscsiA, 0x500101L), null, 0);
        Load nvmeLoad = new Load(null, nvme(nvmeA), 1000);
        IscsiTestInitiator scsiA = iscsi(iscsiA, 0x500102L);
        IscsiTestInitiator scsiB = iscsi(iscsiB, 0x500103L);
        NvmeTcpTestHost nvmeA2 = nvme(nvmeA);
        NvmeTcpTestHost nvmeB2 = nvme(nvmeB);
        Thread t1 = Thread.ofPlatform().name("load-iscsi").start(scsiLoad);
        Thread t2 = Thread.ofPlatform().name("load-nvme").start(nvmeLoad);
        try {
            // both paths optimized: what one path writes, the other reads, both protocols
            byte[] viaB = block(5000, 1);
            scsiWrite(scsiB, 5000, viaB);
            assertThat(scsiRead(scsiA, 5000)).isEqualTo(viaB);
            NvmeTcpTestHost.require(nvmeA2.read(1, 5000, 1, LBS), "read via a");
            assertThat(nvmeA2.read(1, 5000, 1, LBS).data()).isEqualTo(viaB);
            byte[] viaNvmeB = block(5001, 2);
            NvmeTcpTestHost.require(nvmeB2.write(1, 5001, 1, viaNvmeB), "write via b");
            assertThat(scsiRead(scsiA, 5001)).isEqualTo(viaNvmeB);

            pathSet("b", "standby", null);
            assertThat(scsiRefusal(scsiB, 5000)).containsExactly(NOT_READY, 0x04, 0x0B);
            assertThat(nvmeB2.read(1, 5000, 1, LBS).is(NvmeStatus.ASYMMETRIC_ACCESS_INACCESSIBLE)).isTrue();
            byte[] viaA = block(5002, 3);
            scsiWrite(scsiA, 5002, viaA);

            pathSet("b", "inaccessible", null);
            assertThat(scsiRefusal(scsiB, 5000)).containsExactly(NOT_READY, 0x04, 0x0C);
            assertThat(nvmeB2.write(1, 5003, 1, block(5003, 4)).is(NvmeStatus.ASYMMETRIC_ACCESS_INACCESSIBLE))
                    .isTrue();

            // a transition long enough to look at: transitioning on b, a unaffected
            ControlClient.Response slow = pathSet("b", "optimized", "60s");
            assertThat(slow.json().getJsonArray("paths").getJsonObject(1).getString("state"))
                    .isEqualTo("transitioning");
            assertThat(scsiRefusal(scsiB, 5000)).containsExactly(NOT_READY, 0x04, 0x0A);
            assertThat(nvmeB2.read(1, 5000, 1, LBS).is(NvmeStatus.ASYMMETRIC_ACCESS_TRANSITION)).isTrue();
            assertThat(scsiRead(scsiA, 5000)).isEqualTo(viaB);

            // a short one: the server's clock ends it, and b is optimized again
            pathSet("b", "non-optimized", "300ms");
            assertThat(stateOn("b")).isEqualTo("transitioning");
            long deadline = System.nanoTime() + 20_000_000_000L; // a bounded wait for the clock's timer
            while (!stateOn("b").equals("non-optimized") && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(stateOn("b")).isEqualTo("non-optimized");
            assertThat(scsiRead(scsiB, 5002)).as("written through a while b was standby").isEqualTo(viaA);
            assertThat(nvmeB2.read(1, 5002, 1, LBS).data()).isEqualTo(viaA);
            assertThat(Files.readString(dir.resolve("luns.d/mp.yaml"))).contains("b: non-optimized");
        } finally {
            scsiLoad.stop.set(true);
            nvmeLoad.stop.set(true);
            t1.join();
            t2.join();
        }
        assertThat(scsiLoad.errors).as("I/O on the optimized path never fails").isEmpty();
        assertThat(nvmeLoad.errors).isEmpty();
        assertThat(scsiLoad.ops.get()).isPositive();
        assertThat(nvmeLoad.ops.get()).isPositive();
    }

    @Test
    void aPortalFaultDropsOnePathWhileTheOtherServes() throws Exception {
        ControlClient.Response rule = client.call(HttpMethod.POST, "/v1/luns/mp/faults", new JsonObject()
                .put("id", "cut-b").put("portal", "b").put("ops", new io.vertx.core.json.JsonArray().add("read"))
                .put("action", "drop-connection"));
        assertThat(rule.status()).as(rule.body()).isEqualTo(201);
        IscsiTestInitiator scsiA = iscsi(iscsiA, 0x500201L);
        NvmeTcpTestHost nvmeAio = nvme(nvmeA);
        byte[] data = block(7000, 9);
        scsiWrite(scsiA, 7000, data);

        IscsiTestInitiator scsiB = keep(IscsiTestInitiator.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiB), 0x500202L));
        scsiB.login(IQN, null);
        scsiB.clearUnitAttention();   // TEST UNIT READY is not a read: the rule lets it through
        scsiB.startCommand(0, cdb16(0x88, 7000, 1), LBS, false);
        assertThatThrownBy(scsiB::receive).as("b's connection closed, no response").isInstanceOf(IOException.class);
        assertThat(scsiRead(scsiA, 7000)).isEqualTo(data);

        NvmeTcpTestHost nvmeBio = nvme(nvmeB);
        assertThatThrownBy(() -> nvmeBio.read(1, 7000, 1, LBS)).isInstanceOf(IOException.class);
        NvmeTcpTestHost.Reply r = nvmeAio.read(1, 7000, 1, LBS);
        NvmeTcpTestHost.require(r, "read via a");
        assertThat(r.data()).isEqualTo(data);

        JsonObject listed = client.get("/v1/luns/mp/faults").json().getJsonArray("faults").getJsonObject(0);
        assertThat(listed.getLong("hits")).as("b's two reads, none of a's").isEqualTo(2);
        assertThat(client.call(HttpMethod.DELETE, "/v1/luns/mp/faults/cut-b", (String) null).status()).isEqualTo(204);
        IscsiTestInitiator again = iscsi(iscsiB, 0x500202L);
        assertThat(scsiRead(again, 7000)).as("b serves again once the rule is gone").isEqualTo(data);
    }

    @Test
    void anInitiatorsSetTargetPortGroupsIsSeenEverywhereAndWrittenBack() throws Exception {
        IscsiTestInitiator scsiA = iscsi(iscsiA, 0x500301L);
        IscsiTestInitiator scsiB = iscsi(iscsiB, 0x500302L);
        NvmeTcpTestHost nvmeAio = nvme(nvmeA);
        // what Linux's scsi_dh_alua sends to activate a path, plus portal a to standby: MAINTENANCE OUT SA 0Ah
        byte[] list = {0, 0, 0, 0, 0x0, 0, 0, 2, 0x2, 0, 0, 1};
        byte[] cdb = {(byte) 0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, (byte) list.length, 0, 0};
        assertThat(scsiB.command(0, cdb, 0, list).status()).as("SET TARGET PORT GROUPS").isZero();
        assertThat(scsiB.command(0, cdb16(0x88, 0, 1), LBS, null).status()).as("no unit attention for b itself")
                .isZero();
        IscsiTestInitiator.Result ua = scsiA.command(0, cdb16(0x88, 0, 1), LBS, null);
        assertThat(new int[] {ua.sense()[2] & 0xF, ua.sense()[12] & 0xFF, ua.sense()[13] & 0xFF})
                .containsExactly(UNIT_ATTENTION, 0x2A, 0x06);
        assertThat(scsiRefusal(scsiA, 0)).containsExactly(NOT_READY, 0x04, 0x0B);
        assertThat(nvmeAio.read(1, 0, 1, LBS).is(NvmeStatus.ASYMMETRIC_ACCESS_INACCESSIBLE)).isTrue();

        // the control API writes it back on its worker, in order with its own changes: a dry run waits for it
        ControlClient.Response dry = client.call(HttpMethod.PUT, "/v1/luns/mp/paths/a?dry-run=true",
                new JsonObject().put("state", "standby"));
        assertThat(dry.json().getJsonArray("steps")).as(dry.body()).isEmpty();
        assertThat(Files.readString(dir.resolve("luns.d/mp.yaml"))).as("b was optimized already: unchanged")
                .contains("a: standby").doesNotContain("b:");
        JsonObject a = client.get("/v1/luns/mp/paths").json().getJsonArray("paths").getJsonObject(0);
        assertThat(a.getString("origin")).isEqualTo("explicit");
        assertThat(a.getString("configured")).isEqualTo("standby");
    }

    @Test
    void discoveryThroughEitherPortalListsBoth() throws Exception {
        for (int port : new int[] {iscsiA, iscsiB}) {
            IscsiTestInitiator d = keep(IscsiTestInitiator.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0x500400L + port));
            d.login(null, null);
            assertThat(d.sendTargets("All")).as("SendTargets through port %d", port).isEqualTo("TargetName=" + IQN
                    + "\nTargetAddress=127.0.0.1:" + iscsiA + ",1\nTargetAddress=127.0.0.1:" + iscsiB + ",2\n");
        }
        for (int port : new int[] {nvmeA, nvmeB}) {
            NvmeTcpTestHost d = keep(NvmeTcpTestHost.open(port, false, false));
            NvmeTcpTestHost.require(d.connect(io.blocktarget.protocol.nvme.DiscoveryLog.DISCOVERY_NQN, 0, 31,
                    ConnectData.CNTLID_DYNAMIC, 0, 0), "discovery Connect");
            d.enable();
            NvmeTcpTestHost.Reply log = d.getLogPage(0x70, 0, 4 * 1024);
            NvmeTcpTestHost.require(log, "discovery log");
            io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(log.data());
            assertThat(buf.getLongLE(8)).as("NUMREC through port %d", port).isEqualTo(2);
            List<String> entries = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                var e = io.blocktarget.protocol.nvme.DiscoveryLog.Entry.get(buf,
                        io.blocktarget.protocol.nvme.DiscoveryLog.HEADER_SIZE
                                + n * io.blocktarget.protocol.nvme.DiscoveryLog.ENTRY_SIZE);
                entries.add(e.portid() + " " + e.traddr() + ":" + e.trsvcid() + " " + e.subnqn());
            }
            assertThat(entries).containsExactly("1 127.0.0.1:" + nvmeA + " " + NQN, "2 127.0.0.1:" + nvmeB + " " + NQN);
        }
    }
}
