package io.blocktarget.it.nvme;

import io.blocktarget.it.ProcessOutput;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One LUN, two protocols (issue 4 item 5): a RAM LUN exported over iSCSI and NVMe/TCP by a real
 * blocktarget process serves the same bytes — written through one protocol, read through the other,
 * both ways, at a 16 KiB logical block on a 64 KiB physical block.
 */
@Tag("loopback")
class CrossProtocolIT {
    private static final int LBS = 16384;

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static byte[] cdb16(int opcode, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void writesThroughOneProtocolReadThroughTheOther() throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\n");
        Files.writeString(config.resolve("luns.d/both.yaml"),
                "backend: ram\nsize: 64MiB\nlogical-block-size: 16KiB\nphysical-block-size: 64KiB\n");
        String iqn = "iqn.2026-11.io.blocktarget:both";
        String nqn = "nqn.2026-11.io.blocktarget:both";

        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m", "-jar",
                Path.of(System.getProperty("blocktarget.jar")).toAbsolutePath().toString(),
                "serve", "--config", config.toString()));
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ProcessOutput output = ProcessOutput.follow(server, tmp.resolve("server.log"));
        try {
            output.await(line -> line.startsWith("portals: "), Duration.ofSeconds(60)); // printed once they listen
            byte[] viaIscsi = pattern(4 * LBS, 1);
            byte[] viaNvme = pattern(3 * LBS, 2);

            try (IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400001L);
                 NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
                iscsi.login(iqn, null);
                iscsi.clearUnitAttention();
                NvmeTcpTestHost.Reply connected = admin.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
                NvmeTcpTestHost.require(connected, "admin Connect");
                admin.enable();
                int cntlid = connected.cqe().dw0() & 0xFFFF;
                try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                    NvmeTcpTestHost.require(io.connect(nqn, 1, 127, cntlid, 0, 0), "I/O Connect");

                    // iSCSI WRITE(16) of 4 blocks at LBA 10 -> NVMe Read
                    assertThat(iscsi.command(0, cdb16(0x8A, 10, 4), 0, viaIscsi).status()).isZero();
                    NvmeTcpTestHost.Reply read = io.read(1, 10, 4, 4 * LBS);
                    NvmeTcpTestHost.require(read, "NVMe Read");
                    assertThat(read.data()).isEqualTo(viaIscsi);

                    // NVMe Write of 3 blocks at LBA 100 -> iSCSI READ(16)
                    NvmeTcpTestHost.require(io.write(1, 100, 3, viaNvme), "NVMe Write");
                    IscsiTestInitiator.Result r = iscsi.command(0, cdb16(0x88, 100, 3), 3 * LBS, null);
                    assertThat(r.status()).isZero();
                    assertThat(r.data()).isEqualTo(viaNvme);

                    // issue 10: NVMe Write Uncorrectable is device state — an iSCSI READ of those blocks fails with
                    // MEDIUM ERROR / UNRECOVERED READ ERROR (03h 11h/00h) until a write through either protocol
                    NvmeTcpTestHost.require(io.execute(new LbaRangeCommand(NvmOpcode.WRITE_UNCORRECTABLE, 0, 1, 101,
                            0, false, false).toSqe(), null, 0), "NVMe Write Uncorrectable");
                    IscsiTestInitiator.Result bad = iscsi.command(0, cdb16(0x88, 100, 3), 3 * LBS, null);
                    assertThat(bad.status()).as("CHECK CONDITION").isEqualTo(0x02);
                    assertThat(senseKeyAscAscq(bad.sense())).containsExactly(0x03, 0x11, 0x00);
                    assertThat(io.read(1, 101, 1, LBS).is(NvmeStatus.UNRECOVERED_READ_ERROR)).isTrue();
                    assertThat(iscsi.command(0, cdb16(0x8A, 101, 1), 0, pattern(LBS, 3)).status()).isZero();
                    IscsiTestInitiator.Result healed = iscsi.command(0, cdb16(0x88, 101, 1), LBS, null);
                    assertThat(healed.status()).isZero();
                    assertThat(healed.data()).isEqualTo(pattern(LBS, 3));
                }
                iscsi.logout();
            }
        } finally {
            server.toHandle().destroy();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String log = output.awaitEnd(Duration.ofSeconds(30));
            assertThat(server.exitValue()).as(log).isZero();
            assertThat(log).doesNotContain("LEAK", "Exception in thread");
        }
    }

    /** Sense key, ASC, ASCQ of fixed (70h/71h) or descriptor (72h/73h) sense data (SPC-5 §4.4). */
    private static List<Integer> senseKeyAscAscq(byte[] sense) {
        boolean descriptor = (sense[0] & 0x7E) == 0x72;
        return descriptor ? List.of(sense[1] & 0xF, sense[2] & 0xFF, sense[3] & 0xFF)
                : List.of(sense[2] & 0xF, sense[12] & 0xFF, sense[13] & 0xFF);
    }
}
