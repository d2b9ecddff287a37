package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 {@code session:} knobs of an NVMe subsystem end to end over NVMe/TCP, from a config directory: Identify
 * Controller MDTS / IOCCSZ / MAXCMD and CAP.MQES follow the knobs, Connect refuses an I/O queue beyond the count and
 * an SQSIZE beyond the size, a write at MDTS goes through R2T by R2T and one block more is Invalid Field (Base
 * §5.17.2.1); a subsystem without knobs keeps the server's values.
 */
@Tag("loopback")
class SessionKnobsNvmeLoopbackIT {
    private static final String KNOB = "nqn.2026-11.io.blocktarget:knob";
    private static final String PLAIN = "nqn.2026-11.io.blocktarget:plain";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** SCT and SC as "SCT/SC" hex: command-specific codes of Connect and NVM I/O overlap (82h). */
    private static String status(NvmeTcpTestHost.Reply r) {
        return Integer.toHexString(r.cqe().status().sct()) + "/" + Integer.toHexString(r.cqe().status().sc());
    }

    private static String status(NvmeStatus s) {
        return Integer.toHexString(s.sct().code()) + "/" + Integer.toHexString(s.sc());
    }

    @Test
    void theKnobSubsystemAdvertisesAndEnforcesItsValues() throws Exception {
        int port = freePort();
        Files.createDirectories(tmp.resolve("luns.d"));
        Files.writeString(tmp.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: 0\nnvme-port: " + port
                + "\ndiscovery-port: 0\n");
        Files.writeString(tmp.resolve("luns.d/knob.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: {iscsi: false}\nsession: {mdts: 64KiB, in-capsule-data: 8KiB, io-queues: 1,"
                + " queue-size: 32}\n");
        Files.writeString(tmp.resolve("luns.d/plain.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: {iscsi: false}\n");
        TargetServer server = new TargetServer(ConfigLoader.load(tmp), Optional.of(tmp));
        server.start();
        try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(port, false, false);
             NvmeTcpTestHost io = NvmeTcpTestHost.open(port, false, false);
             NvmeTcpTestHost second = NvmeTcpTestHost.open(port, false, false);
             NvmeTcpTestHost plain = NvmeTcpTestHost.open(port, false, false)) {
            NvmeTcpTestHost.Reply connected = admin.connect(KNOB, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
            NvmeTcpTestHost.require(connected, "admin Connect");
            int cntlid = connected.cqe().dw0() & 0xFFFF;
            admin.enable();
            IdentifyController id = admin.identifyController();
            assertThat(id.mdts()).as("MDTS: 2^4 x 4 KiB").isEqualTo(4);
            assertThat(id.ioccsz()).as("IOCCSZ: 4 + 8192 / 16").isEqualTo(516);
            assertThat(id.maxcmd()).isEqualTo(32);
            assertThat(admin.propertyGet(ControllerRegister.CAP) & 0xFFFF).as("CAP.MQES").isEqualTo(31);

            assertThat(status(io.connect(KNOB, 1, 32, cntlid, 0, 0)))
                    .as("SQSIZE 32 = 33 entries").isEqualTo(status(NvmeStatus.CONNECT_INVALID_PARAMETERS));
            NvmeTcpTestHost.require(io.connect(KNOB, 1, 31, cntlid, 0, 0), "I/O Connect at the size");
            assertThat(status(second.connect(KNOB, 2, 31, cntlid, 0, 0)))
                    .as("a second I/O queue").isEqualTo(status(NvmeStatus.CONNECT_INVALID_PARAMETERS));

            byte[] data = new byte[64 * 1024];
            new Random(7).nextBytes(data);
            NvmeTcpTestHost.require(io.write(1, 0, 16, data), "Write at MDTS");
            NvmeTcpTestHost.Reply back = io.read(1, 0, 16, data.length);
            NvmeTcpTestHost.require(back, "Read at MDTS");
            assertThat(Arrays.equals(back.data(), data)).isTrue();
            assertThat(status(io.write(1, 0, 17, new byte[17 * 4096]))).as("one block past MDTS")
                    .isEqualTo(status(NvmeStatus.INVALID_FIELD));
            assertThat(status(io.read(1, 0, 17, 17 * 4096))).isEqualTo(status(NvmeStatus.INVALID_FIELD));
            // the queue works on after the refusals
            NvmeTcpTestHost.require(io.read(1, 0, 1, 4096), "Read after");

            // a runtime change (file edited, reloaded): the connected controller keeps its MDTS, a new one gets 128 KiB
            Files.writeString(tmp.resolve("luns.d/knob.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                    + "export: {iscsi: false}\nsession: {mdts: 128KiB, in-capsule-data: 8KiB, io-queues: 1,"
                    + " queue-size: 32}\n");
            assertThat(server.controlPlane().reload().retuned()).containsExactly("knob");
            assertThat(admin.identifyController().mdts()).as("kept").isEqualTo(4);
            assertThat(status(io.write(1, 0, 17, new byte[17 * 4096]))).isEqualTo(status(NvmeStatus.INVALID_FIELD));
            try (NvmeTcpTestHost fresh = NvmeTcpTestHost.open(port, false, false)) {
                NvmeTcpTestHost.require(fresh.connect(KNOB, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "new Connect");
                fresh.enable();
                assertThat(fresh.identifyController().mdts()).isEqualTo(5);
            }

            NvmeTcpTestHost.require(plain.connect(PLAIN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "plain Connect");
            plain.enable();
            IdentifyController other = plain.identifyController();
            assertThat(other.mdts()).isEqualTo(8);
            assertThat(other.ioccsz()).isEqualTo(4 + 256 * 1024 / 16);
            assertThat(other.maxcmd()).isEqualTo(1024);
        } finally {
            server.stop();
        }
    }
}
