package io.blocktarget.server;

import io.blocktarget.block.file.UringFileBlockDevice;
import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ControlConfig;
import io.blocktarget.config.FileBackendConfig;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.control.ControlServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Which transport the server picks, and that what runs on it still works: an O_DIRECT file LUN puts the event loops
 * on io_uring (said in the start-up line), where NVMe/TCP answers and the control API listens on its Unix socket
 * (which Vert.x 5.0's own io_uring transport refuses); poll mode and -Dblocktarget.io-uring=off keep epoll and say
 * that O_DIRECT I/O takes worker threads, and why.
 */
@Tag("loopback")
class UringTransportTest {
    private static final String LOOPBACK = "127.0.0.1";

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        }
    }

    private BlocktargetConfig config(int nvme, boolean directIo, boolean poll) {
        LunConfig lun = new LunConfig("direct", null, BackendKind.FILE, 16L << 20, 4096, 4096, Optional.empty(),
                Optional.of(new NvmeExport(ServerConfig.DEFAULT_NQN_PREFIX + "direct", 1)), false,
                Optional.of(new FileBackendConfig(dir.resolve("direct.img"), true, directIo)), AccessConfig.OPEN);
        ServerConfig server = new ServerConfig(null, LOOPBACK, 0, nvme, 0, 64L << 20,
                ServerConfig.DEFAULT_IQN_PREFIX, ServerConfig.DEFAULT_NQN_PREFIX).withEventLoops(2).withPoll(poll);
        return new BlocktargetConfig(server, List.of(lun), List.of());
    }

    /** NVMe/TCP ICReq (NVMe/TCP §3.6.2.2) in, ICResp out: the portal serves on whichever transport. */
    private static void icReqIsAnswered(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(LOOPBACK, port), 5_000);
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
    void anODirectLunRunsTheLoopsOnIoUringWithTheControlSocketServed() throws Exception {
        assumeTrue(UringFileBlockDevice.unavailability().isEmpty(), "io_uring unavailable here");
        int nvme = freePort();
        TargetServer server = new TargetServer(config(nvme, true, false));
        server.start();
        try {
            assertThat(server.threading())
                    .isEqualTo("io_uring transport, 2 event loops, O_DIRECT file I/O on the event loops' io_uring");
            icReqIsAnswered(nvme);
            Path socket = dir.resolve("control.sock");
            ControlServer control = ControlServer.start(server.vertx(), server.controlPlane(),
                    new ControlConfig(Optional.of(socket), Optional.empty(), Optional.empty()));
            try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                channel.connect(UnixDomainSocketAddress.of(socket));
                channel.write(ByteBuffer.wrap("GET /v1/luns HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer answer = ByteBuffer.allocate(65536);
                while (channel.read(answer) >= 0 && answer.hasRemaining()) {
                    // read to end of stream
                }
                String response = new String(answer.array(), 0, answer.position(), StandardCharsets.US_ASCII);
                assertThat(response).startsWith("HTTP/1.1 200").contains("\"direct\"");
            } finally {
                control.close();
            }
        } finally {
            server.stop();
        }
    }

    @Test
    void withoutAnODirectLunTheTransportStaysAsItWas() throws Exception {
        int nvme = freePort();
        TargetServer server = new TargetServer(config(nvme, false, false));
        server.start();
        try {
            assertThat(server.threading()).isEqualTo("native transport, 2 event loops, adaptive polling");
            icReqIsAnswered(nvme);
        } finally {
            server.stop();
        }
    }

    @Test
    void pollModeKeepsEpollAndSaysWhereODirectIoGoes() throws Exception {
        int nvme = freePort();
        TargetServer server = new TargetServer(config(nvme, true, true));
        server.start();
        try {
            assertThat(server.threading()).isEqualTo("native transport, 2 event loops, polling, O_DIRECT file I/O on"
                    + " worker threads (io_uring: poll mode runs on epoll)");
            icReqIsAnswered(nvme);
        } finally {
            server.stop();
        }
    }

    @Test
    void switchedOffIoUringKeepsEpollAndSaysSo() throws Exception {
        int nvme = freePort();
        String old = System.getProperty(UringFileBlockDevice.PROPERTY);
        System.setProperty(UringFileBlockDevice.PROPERTY, "off");
        TargetServer server = new TargetServer(config(nvme, true, false));
        try {
            server.start();
            assertThat(server.threading()).isEqualTo("native transport, 2 event loops, adaptive polling, O_DIRECT file"
                    + " I/O on worker threads (io_uring: turned off (-Dblocktarget.io-uring=off))");
            icReqIsAnswered(nvme);
        } finally {
            server.stop();
            if (old == null) {
                System.clearProperty(UringFileBlockDevice.PROPERTY);
            } else {
                System.setProperty(UringFileBlockDevice.PROPERTY, old);
            }
        }
    }
}
