package io.blocktarget.server;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.FileBackendConfig;
import io.blocktarget.config.IscsiExport;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.ServerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Tag("loopback")
class TargetServerTest {
    private static final String LOOPBACK = "127.0.0.1";

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        }
    }

    private static LunConfig lun(String name, BackendKind kind, long size, int lbs, int pbs, Optional<FileBackendConfig> file) {
        return new LunConfig(name, null, kind, size, lbs, pbs,
                Optional.of(new IscsiExport(ServerConfig.DEFAULT_IQN_PREFIX + name, 0)),
                Optional.of(new NvmeExport(ServerConfig.DEFAULT_NQN_PREFIX + name, 1)),
                false, file, AccessConfig.OPEN);
    }

    private static BlocktargetConfig config(int iscsi, int nvme, int discovery, List<LunConfig> luns) {
        ServerConfig server = new ServerConfig(null, LOOPBACK, iscsi, nvme, discovery, 64L << 20,
                ServerConfig.DEFAULT_IQN_PREFIX, ServerConfig.DEFAULT_NQN_PREFIX);
        return new BlocktargetConfig(server, luns, List.of());
    }

    @Test
    void servesPortalsAndStopsCleanly() throws Exception {
        int iscsi = freePort();
        int nvme = freePort();
        Path img = dir.resolve("disks").resolve("nested").resolve("disk.img"); // parents made by create: true
        BlocktargetConfig config = config(iscsi, nvme, 0, List.of(
                lun("ram-4k", BackendKind.RAM, 1L << 30, 4096, 4096, Optional.empty()),
                lun("null-512", BackendKind.NULL, 1L << 40, 512, 4096, Optional.empty()),
                lun("file-16k", BackendKind.FILE, 16L << 20, 16384, 65536,
                        Optional.of(new FileBackendConfig(img, true, false)))));
        TargetServer server = new TargetServer(config);
        server.start();
        try {
            assertThat(server.state()).isEqualTo(TargetServer.State.RUNNING);
            assertThat(server.portals()).containsExactly(
                    new Portal(Portal.Service.ISCSI, LOOPBACK, iscsi),
                    new Portal(Portal.Service.NVME_TCP, LOOPBACK, nvme));
            assertThat(server.luns()).extracting(Lun::name).containsExactly("ram-4k", "null-512", "file-16k");
            assertThat(server.luns().get(2).device().geometry().blockCount()).isEqualTo(1024);
            assertThat(Files.size(img)).isEqualTo(16L << 20);
            // Each portal speaks its protocol: garbage gets the connection closed (after an iSCSI Reject
            // or NVMe/TCP C2HTermReq at most), never a hang.
            for (int port : new int[] {iscsi, nvme}) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(LOOPBACK, port), 5_000);
                    s.setSoTimeout(20_000);
                    byte[] garbage = new byte[256];
                    java.util.Arrays.fill(garbage, (byte) 0xFF);
                    s.getOutputStream().write(garbage);
                    InputStream in = s.getInputStream();
                    assertThat(in.readAllBytes().length).as("bytes before close").isLessThan(512);
                }
            }
        } finally {
            server.stop();
        }
        assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
        // the ports are free again
        try (ServerSocket again = new ServerSocket()) {
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(LOOPBACK, iscsi));
        }
        server.stop(); // idempotent
    }

    @Test
    void pollModeServesOnSpinningEventLoops() throws Exception {
        int nvme = freePort();
        BlocktargetConfig base = config(0, nvme, 0, List.of(lun("ram-4k", BackendKind.RAM, 1L << 20, 4096, 4096,
                Optional.empty())));
        BlocktargetConfig config = new BlocktargetConfig(base.server().withEventLoops(1).withPoll(true),
                base.luns(), List.of());
        TargetServer server = new TargetServer(config);
        server.start();
        try {
            assertThat(server.threading()).isEqualTo("native transport, 1 event loop, polling");
            assertAnswersIcReq(nvme);
        } finally {
            server.stop();
        }
        assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
    }

    @Test
    void pollWindowServesOnEventLoopsThatPollAfterWork() throws Exception {
        int nvme = freePort();
        BlocktargetConfig base = config(0, nvme, 0, List.of(lun("ram-4k", BackendKind.RAM, 1L << 20, 4096, 4096,
                Optional.empty())));
        BlocktargetConfig config = new BlocktargetConfig(base.server().withEventLoops(1).withPollWindow(100_000),
                base.luns(), List.of());
        TargetServer server = new TargetServer(config);
        server.start();
        try {
            assertThat(server.threading()).isEqualTo("native transport, 1 event loop, polling 100 us after work");
            assertAnswersIcReq(nvme);
        } finally {
            server.stop();
        }
        assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
    }

    @Test
    void adaptivePollingIsTheDefaultAndAnIdleEventLoopSleeps() throws Exception {
        int nvme = freePort();
        BlocktargetConfig base = config(0, nvme, 0, List.of(lun("ram-4k", BackendKind.RAM, 1L << 20, 4096, 4096,
                Optional.empty())));
        BlocktargetConfig config = new BlocktargetConfig(base.server().withEventLoops(1), base.luns(), List.of());
        TargetServer server = new TargetServer(config);
        server.start();
        try {
            assertThat(server.threading()).isEqualTo("native transport, 1 event loop, adaptive polling");
            assertAnswersIcReq(nvme);   // some work, then nothing: the loop must go back to epoll_wait and block
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().contains("eventloop") && t.isAlive()).toList();
            assertThat(loops).isNotEmpty();
            long before = loops.stream().mapToLong(t -> threads.getThreadCpuTime(t.threadId())).sum();
            long wallBefore = System.nanoTime();
            Thread.sleep(400);   // the measurement window itself, not a wait for something to happen
            long used = loops.stream().mapToLong(t -> threads.getThreadCpuTime(t.threadId())).sum() - before;
            long wall = System.nanoTime() - wallBefore;
            // a loop that spins would use the whole window; a sleeping one wakes only for timers
            assertThat(used).as("event-loop CPU over %d ms idle", wall / 1_000_000).isLessThan(wall / 10);
        } finally {
            server.stop();
        }
    }

    /** An NVMe/TCP ICReq (§3.6.2.2: type 0, HLEN 128, PLEN 128, PFV 0, no digests, MAXR2T 0) gets an ICResp. */
    private static void assertAnswersIcReq(int nvmePort) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(LOOPBACK, nvmePort), 5_000);
            s.setSoTimeout(20_000);
            byte[] icReq = new byte[128];
            icReq[2] = (byte) 128;
            icReq[4] = (byte) 128;
            s.getOutputStream().write(icReq);
            byte[] icResp = s.getInputStream().readNBytes(128);
            assertThat(icResp).hasSize(128);
            assertThat(icResp[0]).as("PDU type ICResp").isEqualTo((byte) 0x01);
        }
    }

    @Test
    void portInUseIsAClearStartFailureAndNothingLeaks() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            int port = taken.getLocalPort();
            TargetServer server = new TargetServer(config(port, 0, 0,
                    List.of(lun("ram-512", BackendKind.RAM, 1L << 20, 512, 4096, Optional.empty()))));
            assertThatThrownBy(server::start)
                    .isInstanceOf(ServerStartException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + " (iSCSI): ");
            assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
        }
    }

    @Test
    void backendThatCannotOpenNamesTheLun() {
        Path missing = dir.resolve("no-such-dir").resolve("disk.img");
        TargetServer server = new TargetServer(config(0, 0, 0, List.of(
                lun("broken", BackendKind.FILE, 1L << 20, 4096, 4096,
                        Optional.of(new FileBackendConfig(missing, false, false))))));
        assertThatThrownBy(server::start)
                .isInstanceOf(ServerStartException.class)
                .hasMessageContaining("cannot open the file backend of LUN broken");
        assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
    }

    @Test
    void allPortsZeroServesNothingButStarts() throws Exception {
        TargetServer server = new TargetServer(config(0, 0, 0,
                List.of(lun("ram-512", BackendKind.RAM, 1L << 20, 512, 4096, Optional.empty()))));
        server.start();
        assertThat(server.portals()).isEmpty();
        server.stop();
        assertThat(server.state()).isEqualTo(TargetServer.State.STOPPED);
    }

    /** issue 29: each portal listens for its protocols; a port 0 turns that protocol off on that portal only. */
    @Test
    void everyPortalListensForItsProtocols() throws Exception {
        int iscsi1 = freePort();
        int nvme1 = freePort();
        int nvme2 = freePort();
        BlocktargetConfig base = config(0, 0, 0, List.of(lun("ram-512", BackendKind.RAM, 1L << 20, 512, 4096,
                Optional.empty())));
        BlocktargetConfig config = new BlocktargetConfig(base.server().withPortals(List.of(
                new io.blocktarget.config.PortalConfig("a", LOOPBACK, iscsi1, nvme1),
                new io.blocktarget.config.PortalConfig("b", LOOPBACK, 0, nvme2))), base.luns(), List.of());
        TargetServer server = new TargetServer(config);
        server.start();
        try {
            assertThat(server.portals()).containsExactly(
                    new Portal(Portal.Service.ISCSI, LOOPBACK, iscsi1),
                    new Portal(Portal.Service.NVME_TCP, LOOPBACK, nvme1),
                    new Portal(Portal.Service.NVME_TCP, LOOPBACK, nvme2));
            assertAnswersIcReq(nvme1);
            assertAnswersIcReq(nvme2);
        } finally {
            server.stop();
        }
    }
}
