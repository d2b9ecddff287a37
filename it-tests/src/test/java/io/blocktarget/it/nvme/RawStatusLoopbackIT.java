package io.blocktarget.it.nvme;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.server.FaultRules;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Any NVMe status a fault rule names reaches a Java NVMe/TCP host over loopback exactly (issue 11): SCT / SC pairs
 * blocktarget has no row for — 3/02h Asymmetric Access Inaccessible (path related), 7/FFh vendor specific, 1/C0h
 * command specific, 0/FFh generic — with the rule's DNR, CRD and M in the CapsuleResp's CQE (NVMe Base 2.x §4.2.3,
 * Status Field in CQE bytes 14..15: DNR 15, M 14, CRD 13:12, SCT 11:9, SC 8:1, phase 0), and the Error
 * Information log entry (Get Log Page 01h, Base §5.16.1.2) with that Status Field and the first LBA in the range.
 */
@Tag("loopback")
class RawStatusLoopbackIT {
    private static final int LBS = 4096;
    private static final String NQN = "nqn.2026-11.io.blocktarget:odd";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static int statusField(NvmeTcpTestHost.Reply r) {
        Cqe cqe = r.cqe();
        assertThat(cqe.phase()).as("phase tag: 0 on fabrics").isZero();
        return cqe.status().encode(0);
    }

    @Test
    void theRulesStatusFieldIsOnTheWireAndInTheErrorLog() throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        int nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: 0\nnvme-port: "
                + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: off\n");
        Files.writeString(config.resolve("luns.d/odd.yaml"), """
                backend: ram
                size: 64MiB
                logical-block-size: 4KiB
                faults:
                  - { id: path, ops: [read], lba: 100-199, action: status, nvme-status: 3/02, nvme-dnr: false }
                  - { id: vendor, lba: 200, action: status, nvme-status: 7/ff, nvme-dnr: true, nvme-crd: 1, nvme-more: true }
                  - { id: cmd, ops: [write], lba: 300, action: status, nvme-status: 1/c0, nvme-dnr: true }
                """);
        BlocktargetConfig loaded = ConfigLoader.load(config);
        TargetServer server = new TargetServer(loaded, Optional.of(config));
        server.start();
        try {
            LunFaults faults = server.controlPlane().faults("odd").orElseThrow();
            try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
                NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
                NvmeTcpTestHost.require(connected, "admin Connect");
                admin.enable();
                int cntlid = connected.cqe().dw0() & 0xFFFF;
                try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                    NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                    NvmeTcpTestHost.require(io.read(1, 90, 10, 10 * LBS), "read before the range");

                    NvmeTcpTestHost.Reply path = io.read(1, 95, 10, 10 * LBS);
                    assertThat(statusField(path)).as("3/02h, DNR clear").isEqualTo(0x0604);
                    int pathCid = path.cqe().cid();
                    NvmeTcpTestHost.Reply log = admin.getLogPage(1, 0, 64);
                    NvmeTcpTestHost.require(log, "Error Information log");
                    ByteBuffer entry = ByteBuffer.wrap(log.data()).order(ByteOrder.LITTLE_ENDIAN);
                    assertThat(entry.getLong(0)).as("Error Count").isEqualTo(1);
                    assertThat(entry.getShort(8) & 0xFFFF).as("SQID").isEqualTo(1);
                    assertThat(entry.getShort(10) & 0xFFFF).as("CID").isEqualTo(pathCid);
                    assertThat(entry.getShort(12) & 0xFFFF).as("Status Field").isEqualTo(0x0604);
                    assertThat(entry.getLong(16)).as("LBA: first in the range").isEqualTo(100);
                    assertThat(entry.getInt(24)).as("NSID").isEqualTo(1);

                    assertThat(statusField(io.read(1, 200, 1, LBS))).as("7/FFh, DNR, M, CRD 1").isEqualTo(0xDFFE);
                    assertThat(statusField(io.write(1, 300, 1, new byte[LBS]))).as("1/C0h, DNR")
                            .isEqualTo(0x8380);
                    NvmeTcpTestHost.require(io.read(1, 300, 1, LBS), "the write rule leaves reads alone");

                    // a rule added at runtime, read the way the control API reads its body
                    ActiveRule generic = faults.add(FaultRules.of(ConfigLoader.readFaultRule(
                            "{\"lba\": \"400\", \"action\": \"status\", \"nvme-status\": \"0/ff\"}",
                            faults.nextId())));
                    assertThat(statusField(io.read(1, 400, 1, LBS))).as("0/FFh: no row, DNR clear")
                            .isEqualTo(0x01FE);
                    assertThat(generic.hits()).isEqualTo(1);
                    faults.remove(generic.rule().id());
                    NvmeTcpTestHost.require(io.read(1, 400, 1, LBS), "read after the rule is gone");
                }
            }
        } finally {
            server.stop();
        }
    }
}
