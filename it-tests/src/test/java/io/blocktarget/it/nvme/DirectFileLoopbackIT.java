package io.blocktarget.it.nvme;

import io.blocktarget.block.file.UringFileBlockDevice;
import io.blocktarget.it.ProcessOutput;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An O_DIRECT file LUN (issue 15 deliverable 2) served by a real blocktarget process over iSCSI and NVMe/TCP, on a
 * file of the disk file system (tmpfs refuses O_DIRECT): with io_uring the event loops submit the LUN's reads, writes
 * and fsyncs on their own rings; with {@code -Dblocktarget.io-uring=off} the same LUN takes worker threads. Both ways
 * every byte written — plain, FUA, through either protocol, small and large — reads back through both protocols and
 * is in the file itself after a flush, and the start-up line says which path is in use.
 */
@Tag("loopback")
class DirectFileLoopbackIT {
    private static final int LBS = 4096;
    private static final String IQN = "iqn.2026-11.io.blocktarget:direct";
    private static final String NQN = "nqn.2026-11.io.blocktarget:direct";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static byte[] cdb16(int opcode, int flags, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) flags).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] fileBytes(Path file, long lba, int length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            byte[] b = new byte[length];
            raf.seek(lba * LBS);
            raf.readFully(b);
            return b;
        }
    }

    @ParameterizedTest(name = "io_uring {0}")
    @ValueSource(strings = {"on", "off"})
    void directFileLunServesBothProtocolsWithVerify(String ioUring) throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        Path image = tmp.resolve("direct.img");
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\nevent-loops: 2\ncontrol-socket: off\n");
        Files.writeString(config.resolve("luns.d/direct.yaml"), "backend: file\npath: " + image + "\ncreate: true\n"
                + "direct-io: true\nsize: 64MiB\nlogical-block-size: 4KiB\nexport:\n  iscsi: { target: \"" + IQN
                + "\", lun: 0 }\n  nvme: { subsystem: \"" + NQN + "\", nsid: 1 }\n");
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                "-Dio.netty.leakDetection.level=paranoid", "-Dblocktarget.io-uring=" + ioUring, "-jar",
                Path.of(System.getProperty("blocktarget.jar")).toAbsolutePath().toString(),
                "serve", "--config", config.toString()));
        Path log = tmp.resolve("server-" + ioUring + ".log");
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ProcessOutput output = ProcessOutput.follow(server, log);
        try {
            output.await(line -> line.startsWith("portals: "), Duration.ofSeconds(60)); // printed once they listen
            output.await(line -> line.contains("serving 1 LUNs"), Duration.ofSeconds(60));
            String started = output.text();
            if (ioUring.equals("on") && UringFileBlockDevice.unavailability().isEmpty()) {
                assertThat(started).as(started).contains("io_uring transport, 2 event loops, "
                        + "O_DIRECT file I/O on the event loops' io_uring");
            } else if (ioUring.equals("on")) {   // this machine has no io_uring (seccomp, sysctl, kernel)
                assertThat(started).as(started).contains("O_DIRECT file I/O on worker threads (io_uring: ");
            } else {
                assertThat(started).as(started).contains("native transport, 2 event loops, adaptive polling,"
                        + " O_DIRECT file I/O on worker threads (io_uring: turned off (-Dblocktarget.io-uring=off))");
            }
            try (IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400001L);
                 NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
                iscsi.login(IQN, null, "MaxBurstLength", "1048576", "FirstBurstLength", "262144");
                iscsi.clearUnitAttention();
                NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
                NvmeTcpTestHost.require(connected, "admin Connect");
                admin.enable();
                int cntlid = connected.cqe().dw0() & 0xFFFF;
                try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                    NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                    for (int round = 0; round < 6; round++) {
                        int blocks = round % 2 == 0 ? 1 : 32 + round;   // 4 KiB and > 128 KiB transfers
                        long lba = 1000L * round + 3;
                        byte[] viaIscsi = pattern(blocks * LBS, round);
                        // WRITE(16), FUA on odd rounds (SBC-4 §5.52: byte 1 bit 3)
                        int flags = round % 2 == 1 ? 0x08 : 0;
                        assertThat(iscsi.command(0, cdb16(0x8A, flags, lba, blocks), 0, viaIscsi).status()).isZero();
                        NvmeTcpTestHost.Reply read = io.read(1, lba, blocks, blocks * LBS);
                        NvmeTcpTestHost.require(read, "NVMe Read");
                        assertThat(read.data()).isEqualTo(viaIscsi);
                        IscsiTestInitiator.Result back = iscsi.command(0, cdb16(0x88, 0, lba, blocks), blocks * LBS,
                                null);
                        assertThat(back.status()).isZero();
                        assertThat(back.data()).isEqualTo(viaIscsi);

                        byte[] viaNvme = pattern(blocks * LBS, 100 + round);
                        long lba2 = lba + 500;
                        NvmeTcpTestHost.require(io.execute(new ReadWriteCommand(NvmOpcode.WRITE, 0, 1, lba2,
                                blocks - 1, round % 2 == 1, false, 0, 0, null).toSqe(), viaNvme, 0), "NVMe Write");
                        IscsiTestInitiator.Result r = iscsi.command(0, cdb16(0x88, 0, lba2, blocks), blocks * LBS,
                                null);
                        assertThat(r.status()).isZero();
                        assertThat(r.data()).isEqualTo(viaNvme);
                        // SYNCHRONIZE CACHE(10) then NVMe Flush: both answer through the group commit
                        assertThat(iscsi.command(0, new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, null).status())
                                .isZero();
                        NvmeTcpTestHost.require(io.execute(Sqe.of(NvmOpcode.FLUSH.code(), 0, 1, null), null, 0),
                                "NVMe Flush");
                        // the bytes are in the file itself, not only somewhere in the target
                        assertThat(fileBytes(image, lba, blocks * LBS)).isEqualTo(viaIscsi);
                        assertThat(fileBytes(image, lba2, blocks * LBS)).isEqualTo(viaNvme);
                    }
                }
                iscsi.logout();
            }
            // The file backend's worker pool starts its threads on first use: none may exist when every read,
            // write and flush above went through the event loops' rings; the worker path must have made some.
            boolean ring = ioUring.equals("on") && UringFileBlockDevice.unavailability().isEmpty();
            assertThat(threadNames(server.pid())).as("threads of the server")
                    .matches(names -> names.stream().anyMatch(n -> n.startsWith("bt1-file-io-")) != ring);
        } finally {
            server.toHandle().destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String text = output.awaitEnd(Duration.ofSeconds(30));
            assertThat(server.exitValue()).as(text).isZero();
            assertThat(text).doesNotContain("LEAK", "Exception in thread", "SEVERE");
        }
    }

    /** The native names of a process's threads (HotSpot sets them from the Java names, cut to 15 bytes). */
    private static List<String> threadNames(long pid) throws IOException {
        List<String> names = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    names.add(Files.readString(task.resolve("comm")).strip());
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return names;
    }
}
