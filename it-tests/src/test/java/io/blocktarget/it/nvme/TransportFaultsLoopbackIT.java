package io.blocktarget.it.nvme;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.server.FaultRules;
import io.blocktarget.server.TargetServer;
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
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Partial transfers and connection faults end to end over loopback (issue 11 item 2), with the Java iSCSI initiator
 * and NVMe/TCP host against a real server: what the initiator sees (the U-bit residual, C2HData short of the request
 * and Data Transfer Error, a closed connection, a connection that stops answering until the rule goes, a wrong
 * digest, AsyncEvent 1, a controller torn down by its own keep-alive timeout) — and that another session on the same
 * server reads on meanwhile.
 */
@Tag("loopback")
class TransportFaultsLoopbackIT {
    private static final int LBS = 4096;
    private static final String IQN = "iqn.2026-11.io.blocktarget:xf";
    private static final String NQN = "nqn.2026-11.io.blocktarget:xf";

    @TempDir
    Path tmp;
    private int iscsiPort;
    private int nvmePort;
    private TargetServer server;
    private LunFaults faults;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @BeforeEach
    void start() throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        iscsiPort = freePort();
        nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: off\n");
        Files.writeString(config.resolve("luns.d/xf.yaml"), """
                backend: ram
                size: 64MiB
                logical-block-size: 4KiB
                faults:
                  - { id: short, ops: [read], lba: 100, action: partial-transfer, transfer-blocks: 2 }
                  - { id: short-cc, ops: [read], lba: 110, action: partial-transfer, scsi-status: check-condition }
                """);
        BlocktargetConfig loaded = ConfigLoader.load(config);
        server = new TargetServer(loaded, Optional.of(config));
        server.start();
        faults = server.controlPlane().faults("xf").orElseThrow();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private ActiveRule add(String json) throws Exception {
        return faults.add(FaultRules.of(ConfigLoader.readFaultRule(json, faults.nextId())));
    }

    private IscsiTestInitiator iscsi(long isid) throws Exception {
        IscsiTestInitiator i = IscsiTestInitiator.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), isid);
        i.login(IQN, null);
        i.clearUnitAttention();
        return i;
    }

    private static byte[] read16(long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) 0x88).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    private static void good(IscsiTestInitiator i, long lba) throws IOException {
        assertThat(i.command(0, read16(lba, 1), LBS, null).status()).as("read LBA %d", lba).isZero();
    }

    @Test
    void iscsiPartialReadsReportTheResidual() throws Exception {
        try (IscsiTestInitiator a = iscsi(0x400101L)) {
            IscsiTestInitiator.Result r = a.command(0, read16(100, 8), 8 * LBS, null);
            assertThat(r.status()).isZero();
            assertThat(r.data()).hasSize(2 * LBS);
            assertThat(r.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
            assertThat(r.residualCount()).isEqualTo(6L * LBS);
            IscsiTestInitiator.Result cc = a.command(0, read16(108, 4), 4 * LBS, null);
            assertThat(cc.status()).as("CHECK CONDITION").isEqualTo(0x02);
            assertThat(cc.data()).as("the first half, LBA 108-109, before the status").hasSize(2 * LBS);
            assertThat(cc.sense()[2] & 0xF).isEqualTo(0x3);
            assertThat(ByteBuffer.wrap(cc.sense(), 3, 4).getInt()).as("INFORMATION").isEqualTo(110);
            assertThat(cc.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
            assertThat(cc.residualCount()).isEqualTo(2L * LBS);
            a.logout();
        }
    }

    @Test
    void iscsiDropClosesOneSessionAndTheOtherReadsOn() throws Exception {
        add("{\"id\": \"drop\", \"ops\": [\"read\"], \"lba\": \"200\", \"trigger\": \"first\", \"count\": 1,"
                + " \"action\": \"drop-connection\"}");
        try (IscsiTestInitiator a = iscsi(0x400201L); IscsiTestInitiator b = iscsi(0x400202L)) {
            a.startCommand(0, read16(200, 1), LBS, false);
            assertThatThrownBy(() -> a.receive()).as("closed, no response").isInstanceOf(IOException.class);
            good(b, 200);
            b.logout();
        }
        try (IscsiTestInitiator again = iscsi(0x400201L)) {
            good(again, 200); // the initiator's recovery: log in again, retry
            again.logout();
        }
        assertThat(faults.holds().size()).isZero();
    }

    @Test
    void iscsiStallHoldsOneSessionUntilTheRuleIsRemoved() throws Exception {
        ActiveRule stall = add("{\"id\": \"stall\", \"ops\": [\"read\"], \"lba\": \"300\", \"trigger\": \"first\","
                + " \"count\": 1, \"action\": \"stall-connection\"}");
        try (IscsiTestInitiator a = iscsi(0x400301L); IscsiTestInitiator b = iscsi(0x400302L)) {
            int held = a.startCommand(0, read16(300, 1), LBS, false);
            // a's command reaches the LUN on its own connection's event loop: wait until the rule has hit it (a
            // bounded wait for a condition; nothing else tells from outside)
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (stall.hits() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(stall.hits()).isEqualTo(1);
            good(b, 301); // another session on the same server is not stalled
            good(b, 302);
            faults.remove("stall");
            TargetPdu late = a.receive(); // everything held back arrives now
            try {
                assertThat(late).isInstanceOf(DataIn.class);
                assertThat(((DataIn) late).itt()).isEqualTo(held);
            } finally {
                late.release();
            }
            good(a, 303);
            a.logout();
            b.logout();
        }
    }

    @Test
    void iscsiSessionReinstatementClosesAStalledConnection() throws Exception {
        // what iscsid does when its NOP-Out ping times out on a stalled connection: it logs in again with the same
        // ISID and TSIH 0 (RFC 7143 §6.3.5 session reinstatement); the target closes the old connection at once —
        // dropping the response the stall held back — although the rule (until removed) still stalls it
        ActiveRule stall = add("{\"id\": \"stall2\", \"ops\": [\"read\"], \"lba\": \"320\", \"trigger\": \"first\","
                + " \"count\": 1, \"action\": \"stall-connection\"}");
        try (IscsiTestInitiator a = iscsi(0x400331L)) {
            a.startCommand(0, read16(320, 1), LBS, false);
            long deadline = System.nanoTime() + 10_000_000_000L; // bounded wait for the rule to hit (see above)
            while (stall.hits() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(stall.hits()).isEqualTo(1);
            try (IscsiTestInitiator again = iscsi(0x400331L)) {
                good(again, 320); // the retried read on the new session
                // closed (EOF or reset), not a read timeout of a socket left open behind the stall
                assertThatThrownBy(a::receive).isInstanceOf(IOException.class)
                        .isNotInstanceOf(java.net.SocketTimeoutException.class);
                again.logout();
            }
        }
        assertThat(faults.rules()).extracting(r -> r.rule().id()).contains("stall2");
        assertThat(faults.holds().size()).isZero();
    }

    @Test
    void iscsiAsyncLogoutAsksTheSessionToLogOut() throws Exception {
        add("{\"id\": \"bye\", \"ops\": [\"read\"], \"lba\": \"400\", \"trigger\": \"first\", \"count\": 1,"
                + " \"action\": \"async-logout\", \"logout-within\": 3}");
        try (IscsiTestInitiator a = iscsi(0x400401L)) {
            a.startCommand(0, read16(400, 1), LBS, false);
            boolean data = false;
            AsyncMessage async = null;
            while (!data || async == null) {
                TargetPdu p = a.receive();
                try {
                    if (p instanceof DataIn) {
                        data = true;
                    } else if (p instanceof AsyncMessage m) {
                        async = m;
                    }
                } finally {
                    if (!(p instanceof AsyncMessage)) {
                        p.release();
                    }
                }
            }
            assertThat(async.asyncEvent()).isEqualTo(AsyncEvent.LOGOUT_REQUEST);
            assertThat(async.parameter3()).isEqualTo(3);
            async.release();
            a.logout(); // RFC 7143 §11.9.1: the initiator logs out; the target accepts
        }
        try (IscsiTestInitiator again = iscsi(0x400401L)) {
            good(again, 400);
            again.logout();
        }
    }

    /** The controllers' CNTLIDs by admin connection (for the I/O queue's Connect). */
    private final java.util.Map<NvmeTcpTestHost, Integer> cntlids = new java.util.HashMap<>();

    private NvmeTcpTestHost admin(long kato) throws Exception {
        NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false);
        NvmeTcpTestHost.Reply connected = admin.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, kato, 0);
        NvmeTcpTestHost.require(connected, "admin Connect");
        admin.enable();
        cntlids.put(admin, connected.cqe().dw0() & 0xFFFF);
        return admin;
    }

    private NvmeTcpTestHost io(NvmeTcpTestHost admin, boolean digests) throws Exception {
        NvmeTcpTestHost io = NvmeTcpTestHost.open(nvmePort, digests, digests);
        NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlids.get(admin), 0, 0), "I/O Connect");
        return io;
    }

    @Test
    void nvmePartialReadIsShortDataAndDataTransferError() throws Exception {
        try (NvmeTcpTestHost admin = admin(0); NvmeTcpTestHost io = io(admin, false)) {
            NvmeTcpTestHost.Reply r = io.read(1, 100, 8, 8 * LBS);
            assertThat(r.is(NvmeStatus.DATA_TRANSFER_ERROR)).as("%s", r.cqe().status()).isTrue();
            assertThat(r.data()).as("C2HData of the first 2 blocks only").hasSize(2 * LBS);
        }
    }

    @Test
    void nvmeDropAndDigestAndTheOtherQueueReadsOn() throws Exception {
        add("{\"id\": \"drop\", \"ops\": [\"read\"], \"lba\": \"500\", \"trigger\": \"first\", \"count\": 1,"
                + " \"action\": \"drop-connection\"}");
        add("{\"id\": \"hd\", \"ops\": [\"read\"], \"lba\": \"600\", \"action\": \"corrupt-digest\","
                + " \"digest\": \"header\"}");
        try (NvmeTcpTestHost admin = admin(0); NvmeTcpTestHost plain = io(admin, false)) {
            try (NvmeTcpTestHost other = admin(0); NvmeTcpTestHost digests = io(other, true)) {
                assertThatThrownBy(() -> digests.read(1, 600, 1, LBS)).as("a wrong HDGST")
                        .hasMessageContaining("DIGEST");
            }
            NvmeTcpTestHost.require(plain.read(1, 600, 1, LBS), "no digest: not applicable");
            assertThat(faults.rules().get(3).notApplicable()).isEqualTo(1);
            plain.send(new CapsuleCmd(new ReadWriteCommand(NvmOpcode.READ, 0x42, 1, 500, 0, false, false, 0, 0,
                    SglDescriptor.transportDataBlock(LBS)).toSqe()));
            assertThatThrownBy(plain::read).as("dropped: closed, no completion").isInstanceOf(IOException.class);
            NvmeTcpTestHost.require(admin.keepAlive(), "the admin queue of the same controller is another socket");
        }
        assertThat(faults.holds().size()).isZero();
    }

    @Test
    void nvmeKeepAliveStallLetsTheControllersKatoExpire() throws Exception {
        add("{\"id\": \"ka\", \"trigger\": \"first\", \"count\": 1, \"action\": \"keep-alive-stall\"}");
        try (NvmeTcpTestHost stalled = admin(3000); NvmeTcpTestHost healthy = admin(0)) {
            stalled.send(new CapsuleCmd(Sqe.of(AdminOpcode.KEEP_ALIVE.code(), 0x18, 0,
                    SglDescriptor.transportDataBlock(0))));
            // no completion; the target's KATO (3 s) expires and it ends the controller: the held Keep Alive ends
            // as aborted with it, then the connection closes
            io.blocktarget.protocol.nvmetcp.NvmeTcpPdu ended = stalled.read();
            assertThat(ended).isInstanceOf(io.blocktarget.protocol.nvmetcp.CapsuleResp.class);
            io.blocktarget.protocol.nvme.Cqe cqe = ((io.blocktarget.protocol.nvmetcp.CapsuleResp) ended).cqe();
            assertThat(cqe.cid()).isEqualTo(0x18);
            assertThat(cqe.status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST.toCqeStatus());
            assertThatThrownBy(stalled::read).isInstanceOf(IOException.class);
            NvmeTcpTestHost.require(healthy.keepAlive(), "another controller's Keep Alive");
        }
        assertThat(faults.holds().size()).isZero();
        assertThat(faults.rules().get(2).hits()).isEqualTo(1);
    }
}
