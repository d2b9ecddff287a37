package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlServer;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.server.TargetServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data placement end to end (issue 32): a server with one LUN with {@code placement:} and one without, both exported
 * over iSCSI and NVMe/TCP, driven by the Java initiators at 4 KiB and 16 KiB logical blocks. Writes placed by DTYPE 2 /
 * DSPEC and by GROUP NUMBER move the LUN's per-handle and per-stream counters (the control API's status.placement);
 * Identify, Get Features 1Dh, the FDP logs, RUH Status, VPD B7h and GET STREAM STATUS read back what the LUN's
 * configuration and those counters say; Set Features 1Eh's data crosses the admin queue; the LUN without placement
 * advertises none of it.
 */
@Tag("loopback")
class PlacementLoopbackIT {
    private static final String PREFIX = "io.blocktarget:";
    private static final int HANDLES = 4;
    private static final int STREAMS = 6;
    private static final int UNIT_BLOCKS = 64;

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** WRITE(16) with GROUP NUMBER (SBC-4 §5.45: byte 14 bits 5:0). */
    private static byte[] write16(long lba, int blocks, int group) {
        return ByteBuffer.allocate(16).put((byte) 0x8A).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) group).put((byte) 0).array();
    }

    private static byte[] inquiry(int page, int length) {
        return new byte[] {0x12, 1, (byte) page, (byte) (length >> 8), (byte) length, 0};
    }

    /** GET STREAM STATUS (SBC-5 §5.8): SERVICE ACTION IN(16) 9Eh / 16h. */
    private static byte[] getStreamStatus(int length) {
        return ByteBuffer.allocate(16).put((byte) 0x9E).put((byte) 0x16).putShort((short) 0).putShort((short) 0)
                .putInt(0).putInt(length).put((byte) 0).put((byte) 0).array();
    }

    /** Write of {@code blocks} at {@code slba} with DTYPE 2 (CDW12 23:20) and DSPEC (CDW13 31:16). */
    private static Sqe placedWrite(long slba, int blocks, int dspec) {
        Sqe s = new ReadWriteCommand(NvmOpcode.WRITE, 0, 1, slba, blocks - 1, false, false, 0, 0, null).toSqe();
        return new Sqe(s.opcode(), s.fuse(), s.psdt(), s.cid(), s.nsid(), s.cdw2(), s.cdw3(), s.mptr(), s.dptr(),
                s.cdw10(), s.cdw11(), s.cdw12() | 2 << 20, s.cdw13() | dspec << 16, s.cdw14(), s.cdw15());
    }

    /** Get Log Page of {@code lid} for endurance group {@code lsi} (CDW11 31:16). */
    private static NvmeTcpTestHost.Reply log(NvmeTcpTestHost admin, int lid, int lsi, int length) throws IOException {
        return admin.execute(new GetLogPageCommand(0, 0, lid, 0, false, length / 4 - 1, lsi, 0, false, 0, null)
                .toSqe(), null, length);
    }

    private static ByteBuffer le(byte[] data) {
        return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    }

    @ParameterizedTest(name = "{0}-byte blocks")
    @ValueSource(ints = {4096, 16384})
    void placedWritesAreCountedAndTheQueriesAgree(int lbs) throws Exception {
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Path socket = dir.resolve("control.sock");
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: " + socket + "\n");
        Files.createDirectories(dir.resolve("luns.d"));
        long unitBytes = (long) UNIT_BLOCKS * lbs;
        Files.writeString(dir.resolve("luns.d/placed.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: " + lbs
                + "\nplacement: {reclaim-unit-size: " + unitBytes + ", handles: " + HANDLES + ", streams: " + STREAMS
                + "}\n");
        Files.writeString(dir.resolve("luns.d/plain.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: " + lbs
                + "\n");
        TargetServer server = new TargetServer(ConfigLoader.load(dir), Optional.of(dir));
        server.start();
        try (ControlServer control = ControlServer.start(server.vertx(), server.controlPlane(),
                server.controlPlane().serverConfig().control());
             ControlClient client = ControlClient.connect(socket.toString(), Optional.empty())) {
            long nvmeBytes = nvme(nvmePort, "nqn.2026-11." + PREFIX + "placed", lbs, true);
            long scsiBytes = scsi(iscsiPort, "iqn.2026-11." + PREFIX + "placed", lbs, true);
            nvme(nvmePort, "nqn.2026-11." + PREFIX + "plain", lbs, false);
            scsi(iscsiPort, "iqn.2026-11." + PREFIX + "plain", lbs, false);

            JsonObject placement = client.get("/v1/luns/placed").json().getJsonObject("status")
                    .getJsonObject("placement");
            assertThat(placement.getLong("reclaim-unit-bytes")).isEqualTo(unitBytes);
            JsonArray handles = placement.getJsonArray("handles");
            assertThat(handles).hasSize(HANDLES);
            // NVMe: handle h wrote h + 1 blocks, handle 0 also the two writes without a valid identifier (3 blocks);
            // SCSI GROUP NUMBER 0 (1 block) and 6, no stream (2 blocks), land on the default placement: handle 0 too
            long[] expectedHandles = {(3 + 3) * (long) lbs, 2L * lbs, 3L * lbs, 4L * lbs};
            for (int h = 0; h < HANDLES; h++) {
                assertThat(handles.getJsonObject(h).getLong("host-bytes")).as("handle %d", h)
                        .isEqualTo(expectedHandles[h]);
            }
            JsonArray streams = placement.getJsonArray("streams");
            assertThat(streams).hasSize(STREAMS - 1);   // GROUP NUMBER 1..5; stream 0 is the default placement
            for (int g = 1; g < STREAMS; g++) {
                JsonObject stream = streams.getJsonObject(g - 1);
                assertThat(stream.getInteger("group-number")).isEqualTo(g);
                assertThat(stream.getLong("host-bytes")).as("stream %d", g).isEqualTo(g <= 3 ? (long) g * lbs : 0);
            }
            assertThat(placement.getJsonObject("total").getLong("host-bytes")).isEqualTo(nvmeBytes + scsiBytes);
            assertThat(client.get("/v1/luns/plain").json().getJsonObject("status").containsKey("placement"))
                    .isFalse();
        } finally {
            server.stop();
        }
    }

    /** NVMe/TCP: the FDP view of the namespace; returns the bytes written. */
    private long nvme(int port, String nqn, int lbs, boolean placed) throws Exception {
        try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(port, false, false)) {
            NvmeTcpTestHost.Reply connected = admin.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
            NvmeTcpTestHost.require(connected, "admin Connect");
            admin.enable();
            int cntlid = connected.cqe().dw0() & 0xFFFF;
            // Identify Controller CTRATT bit 19 FDPS, bit 4 Endurance Groups; Identify Namespace ENDGID (bytes 103:102)
            int ctratt = admin.identifyController().ctratt();
            assertThat(ctratt & (1 << 19 | 1 << 4)).isEqualTo(placed ? 1 << 19 | 1 << 4 : 0);
            NvmeTcpTestHost.Reply ns = admin.execute(Sqe.of(0x06, 0, 1, null, 0x00), null, 4096);
            NvmeTcpTestHost.require(ns, "Identify Namespace");
            assertThat(le(ns.data()).getShort(102) & 0xFFFF).isEqualTo(placed ? 1 : 0);
            // Get Features 1Dh (FDP) of endurance group 1: FDPE, configuration 0
            NvmeTcpTestHost.Reply mode = admin.execute(Sqe.of(0x0A, 0, 0, null, 0x1D, 1), null, 0);
            NvmeTcpTestHost.Reply configs = log(admin, 0x20, 1, 512);
            if (!placed) {
                assertThat(mode.is(NvmeStatus.INVALID_FIELD)).as(mode.cqe().status().toString()).isTrue();
                assertThat(configs.is(NvmeStatus.INVALID_LOG_PAGE)).isTrue();
                return 0;
            }
            NvmeTcpTestHost.require(mode, "Get Features 1Dh");
            assertThat(mode.cqe().dw0()).isEqualTo(1);
            // log 20h: NRUH = handles, RUNS = the reclaim unit
            NvmeTcpTestHost.require(configs, "log 20h");
            ByteBuffer c = le(configs.data());
            assertThat(c.getInt(20)).isEqualTo(1);                                     // NRG
            assertThat(c.getShort(24) & 0xFFFF).isEqualTo(HANDLES);                    // NRUH
            assertThat(c.getLong(32)).isEqualTo((long) UNIT_BLOCKS * lbs);             // RUNS
            // Set Features 1Eh carries its event types as data over the admin queue: disable 80h for handle 1
            NvmeTcpTestHost.Reply set = admin.execute(Sqe.of(0x09, 0, 1, null, 0x1E, 1 | 1 << 16, 0),
                    new byte[] {(byte) 0x80}, 0);
            NvmeTcpTestHost.require(set, "Set Features 1Eh");
            NvmeTcpTestHost.Reply events = admin.execute(Sqe.of(0x0A, 0, 1, null, 0x1E, 1 | 255 << 16), null, 6);
            NvmeTcpTestHost.require(events, "Get Features 1Eh");
            assertThat(events.data()).containsExactly(0x00, 1, 0x03, 1, 0x80, 0);

            long written = 0;
            try (NvmeTcpTestHost io = NvmeTcpTestHost.open(port, false, false)) {
                NvmeTcpTestHost.require(io.connect(nqn, 1, 127, cntlid, 0, 0), "I/O Connect");
                long lba = 0;
                for (int h = 0; h < HANDLES; h++) {   // handle h: h + 1 blocks
                    NvmeTcpTestHost.require(io.execute(placedWrite(lba, h + 1, h), new byte[(h + 1) * lbs], 0),
                            "placed Write");
                    lba += h + 1;
                    written += (long) (h + 1) * lbs;
                }
                // no directive, and an identifier one past the last handle: handle 0
                NvmeTcpTestHost.require(io.write(1, lba, 1, new byte[lbs]), "Write");
                NvmeTcpTestHost.require(io.execute(placedWrite(lba + 1, 1, HANDLES), new byte[lbs], 0), "Write");
                written += 2L * lbs;
                // RUH Status (I/O Management Receive, MO 01h): RUAMW = the unit's blocks not yet written per handle
                int length = 16 + 32 * HANDLES;
                NvmeTcpTestHost.Reply status = io.execute(Sqe.of(0x12, 0, 1, null, 1, length / 4 - 1), null, length);
                NvmeTcpTestHost.require(status, "RUH Status");
                ByteBuffer s = le(status.data());
                assertThat(s.getShort(14) & 0xFFFF).isEqualTo(HANDLES);
                long[] used = {1 + 2, 2, 3, 4};
                for (int h = 0; h < HANDLES; h++) {
                    assertThat(s.getShort(16 + 32 * h) & 0xFFFF).isEqualTo(h);      // PID
                    assertThat(s.getLong(16 + 32 * h + 8)).as("RUAMW %d", h).isEqualTo(UNIT_BLOCKS - used[h]);
                }
            }
            // log 22h: host bytes written = the writes so far (this runs before the iSCSI writes)
            NvmeTcpTestHost.Reply stats = log(admin, 0x22, 1, 64);
            NvmeTcpTestHost.require(stats, "log 22h");
            assertThat(le(stats.data()).getLong(0)).isEqualTo(written);                // HBMW
            assertThat(le(stats.data()).getLong(16)).isEqualTo(written);               // MBMW: nothing moved
            // log 23h host events: the identifier one past the last handle (03h, PIV with PID = HANDLES)
            NvmeTcpTestHost.Reply host = admin.execute(new GetLogPageCommand(0, 0, 0x23, 1, false, 512 / 4 - 1, 1, 0,
                    false, 0, null).toSqe(), null, 512);
            NvmeTcpTestHost.require(host, "log 23h");
            ByteBuffer e = le(host.data());
            assertThat(e.getInt(0)).isEqualTo(1);
            assertThat(e.get(64) & 0xFF).isEqualTo(0x03);
            assertThat(e.getShort(66) & 0xFFFF).isEqualTo(HANDLES);
            return written;
        }
    }

    /** iSCSI: the streams view of the unit; returns the bytes written. */
    private long scsi(int port, String iqn, int lbs, boolean placed) throws Exception {
        try (IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0x400001L)) {
            iscsi.login(iqn, null);
            iscsi.clearUnitAttention();
            IscsiTestInitiator.Result pages = iscsi.command(0, inquiry(0x00, 255), 255, null);
            assertThat(pages.status()).isZero();
            byte[] list = Arrays.copyOfRange(pages.data(), 4, 4 + (pages.data()[3] & 0xFF));
            IscsiTestInitiator.Result status = iscsi.command(0, getStreamStatus(512), 512, null);
            if (!placed) {
                assertThat(list).doesNotContain((byte) 0xB7, (byte) 0x86);
                assertThat(status.status()).isEqualTo(0x02);                          // CHECK CONDITION
                iscsi.logout();
                return 0;
            }
            assertThat(list).contains((byte) 0xB7, (byte) 0x86);
            IscsiTestInitiator.Result b7 = iscsi.command(0, inquiry(0xB7, 64), 64, null);
            assertThat(b7.status()).isZero();
            assertThat(b7.data()[5] & 1).isEqualTo(1);                                 // RSCS
            assertThat(ByteBuffer.wrap(b7.data()).getShort(6)).isEqualTo((short) STREAMS);
            // GET STREAM STATUS: every permanent stream, PERM set, identifiers 0..streams-1
            assertThat(status.status()).isZero();
            ByteBuffer d = ByteBuffer.wrap(status.data());
            assertThat(d.getInt(0)).isEqualTo(8 * STREAMS);                            // PARAMETER DATA LENGTH
            for (int g = 0; g < STREAMS; g++) {
                assertThat(d.get(8 + 8 * g) & 0x80).as("PERM %d", g).isEqualTo(0x80);
                assertThat(d.getShort(8 + 8 * g + 2)).isEqualTo((short) g);
            }
            long written = 0;
            long lba = 1000;
            for (int g = 0; g <= 3; g++) {   // GROUP NUMBER g: g blocks (0: one block, the default placement)
                int blocks = Math.max(g, 1);
                assertThat(iscsi.command(0, write16(lba, blocks, g), 0, new byte[blocks * lbs]).status()).isZero();
                lba += blocks;
                written += (long) blocks * lbs;
            }
            // GROUP NUMBER 6: no such stream, the default placement
            assertThat(iscsi.command(0, write16(lba, 2, STREAMS), 0, new byte[2 * lbs]).status()).isZero();
            written += 2L * lbs;
            iscsi.logout();
            return written;
        }
    }
}
