package io.blocktarget.it.nvme;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.server.FaultRules;
import io.blocktarget.server.TargetServer;
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
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault rules end to end over loopback (issue 11 item 2): a LUN file's faults: list, read by a real server, makes a
 * Java iSCSI initiator and a Java NVMe/TCP host see the statuses the rules name exactly where they say — MEDIUM
 * ERROR / UNRECOVERED READ ERROR with INFORMATION = the first bad LBA, NVMe Unrecovered Read Error — a no-response
 * rule holds a command until ABORT TASK / LOGICAL UNIT RESET (iSCSI) or Abort (NVMe) releases it, the target
 * answers those correctly and keeps serving, and a rule added at runtime counts its hits.
 */
@Tag("loopback")
class FaultsLoopbackIT {
    private static final int LBS = 16384;
    private static final String IQN = "iqn.2026-11.io.blocktarget:faulty";
    private static final String NQN = "nqn.2026-11.io.blocktarget:faulty";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static byte[] read16(long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) 0x88).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    /** Sense key, ASC, ASCQ and INFORMATION (VALID set) of fixed-format sense data (SPC-5 §4.4.3). */
    private static List<Long> sense(byte[] s) {
        assertThat(s[0] & 0x7F).as("fixed format, current").isEqualTo(0x70);
        assertThat(s[0] & 0x80).as("VALID: INFORMATION holds the LBA").isEqualTo(0x80);
        long info = ByteBuffer.wrap(s, 3, 4).getInt() & 0xFFFF_FFFFL;
        return List.of((long) (s[2] & 0xF), (long) (s[12] & 0xFF), (long) (s[13] & 0xFF), info);
    }

    @Test
    void statusesAtTheRangeAndHeldCommandsReleasedByTheInitiatorsRecovery() throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        int iscsiPort = freePort();
        int nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: off\n");
        Files.writeString(config.resolve("luns.d/faulty.yaml"), """
                backend: ram
                size: 128MiB
                logical-block-size: 16KiB
                faults:
                  - { id: bad, ops: [read], lba: 1000-1099, action: medium-error }
                  - { id: hang, lba: 5000, action: no-response }
                """);
        BlocktargetConfig loaded = ConfigLoader.load(config);
        TargetServer server = new TargetServer(loaded, Optional.of(config));
        server.start();
        try {
            LunFaults faults = server.controlPlane().faults("faulty").orElseThrow();
            try (IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400002L)) {
                iscsi.login(IQN, null);
                iscsi.clearUnitAttention();
                assertThat(iscsi.command(0, read16(990, 10), 10 * LBS, null).status()).isZero();
                IscsiTestInitiator.Result bad = iscsi.command(0, read16(995, 10), 10 * LBS, null);
                assertThat(bad.status()).as("CHECK CONDITION").isEqualTo(0x02);
                assertThat(sense(bad.sense())).containsExactly(3L, 0x11L, 0L, 1000L);
                assertThat(iscsi.command(0, read16(1100, 4), 4 * LBS, null).status()).isZero();

                // no response: Linux's error handler sends ABORT TASK, then LOGICAL UNIT RESET
                int refCmdSN = iscsi.cmdSN();
                int held = iscsi.startCommand(0, read16(5000, 1), LBS, false);
                assertThat(iscsi.taskManagement(TmfFunction.ABORT_TASK, 0, held, refCmdSN))
                        .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
                assertThat(faults.holds().size()).isZero();
                iscsi.startCommand(0, read16(5000, 1), LBS, false);
                assertThat(iscsi.taskManagement(TmfFunction.LOGICAL_UNIT_RESET, 0, Bhs.RESERVED_TAG, 0))
                        .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
                assertThat(faults.holds().size()).isZero();
                // SAM-5 §6.3.3: the requester meets BUS DEVICE RESET FUNCTION OCCURRED too, then reads go on
                IscsiTestInitiator.Result afterReset = iscsi.command(0, read16(4999, 1), LBS, null);
                assertThat(afterReset.status()).as("unit attention after the reset").isEqualTo(0x02);
                assertThat(afterReset.sense()[12] & 0xFF).isEqualTo(0x29);
                assertThat(afterReset.sense()[13] & 0xFF).isEqualTo(0x03);
                assertThat(iscsi.command(0, read16(4999, 1), LBS, null).status()).isZero();
                iscsi.logout();
            }

            try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
                NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
                NvmeTcpTestHost.require(connected, "admin Connect");
                admin.enable();
                int cntlid = connected.cqe().dw0() & 0xFFFF;
                try (NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, false, false)) {
                    NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                    NvmeTcpTestHost.require(io.read(1, 990, 10, 10 * LBS), "read before the range");
                    assertThat(io.read(1, 995, 10, 10 * LBS).is(NvmeStatus.UNRECOVERED_READ_ERROR)).isTrue();
                    NvmeTcpTestHost.Reply log = admin.getLogPage(1, 0, 64);
                    NvmeTcpTestHost.require(log, "Error Information log");
                    assertThat(ByteBuffer.wrap(log.data(), 16, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong())
                            .as("the entry's LBA: first in the range").isEqualTo(1000);

                    // no response: Linux's nvme-tcp timeout handler aborts (or resets the controller)
                    io.send(new CapsuleCmd(new ReadWriteCommand(NvmOpcode.READ, 0x77, 1, 5000, 0, false, false, 0, 0,
                            SglDescriptor.transportDataBlock(LBS)).toSqe()));
                    // the Abort comes on another connection: first make sure the target holds the read (a later
                    // command of the same queue completes only after the earlier one was dispatched and held)
                    NvmeTcpTestHost.require(io.read(1, 990, 1, LBS), "a later read on the same queue");
                    NvmeTcpTestHost.Reply abort = admin.execute(new AbortCommand(0, 1, 0x77).toSqe(), null, 0);
                    NvmeTcpTestHost.require(abort, "Abort");
                    assertThat(abort.cqe().dw0() & 1).as("DW0 bit 0 = 0: aborted").isZero();
                    NvmeTcpPdu aborted = io.read();
                    assertThat(aborted).isInstanceOf(CapsuleResp.class);
                    assertThat(((CapsuleResp) aborted).cqe().cid()).isEqualTo(0x77);
                    assertThat(((CapsuleResp) aborted).cqe().status())
                            .isEqualTo(NvmeStatus.ABORTED_BY_REQUEST.toCqeStatus());
                    NvmeTcpTestHost.require(io.read(1, 4999, 1, LBS), "read after the abort");

                    // a rule added at runtime acts at once and counts its hits
                    ActiveRule rule = faults.add(FaultRules.of(ConfigLoader.readFaultRule(
                            "{\"lba\": \"3000-3001\", \"action\": \"not-ready\"}", faults.nextId())));
                    assertThat(io.read(1, 3001, 1, LBS).is(NvmeStatus.NAMESPACE_NOT_READY)).isTrue();
                    assertThat(rule.hits()).isEqualTo(1);
                    faults.remove(rule.rule().id());
                    NvmeTcpTestHost.require(io.read(1, 3001, 1, LBS), "read after the rule is gone");
                }
            }
            assertThat(faults.rules()).extracting(r -> r.rule().id()).containsExactly("bad", "hang");
            assertThat(faults.rules().getFirst().hits()).isEqualTo(2);
            assertThat(faults.rules().get(1).hits()).isEqualTo(3);
        } finally {
            server.stop();
        }
    }
}
