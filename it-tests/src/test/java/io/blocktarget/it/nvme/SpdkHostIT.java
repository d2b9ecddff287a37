package io.blocktarget.it.nvme;

import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What SPDK's host (spdk_nvme_perf) does that the Linux host does not (issue 10 item 8), end to end over loopback
 * against the in-process server: an empty HOSTNQN, the reuse at detach of its outstanding AER's CID, and Abort of
 * a write waiting for its data.
 */
@Tag("loopback")
class SpdkHostIT {
    private static LoopbackNvmeServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackNvmeServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static NvmeTcpTestHost open(String hostnqn, int qid, int cntlid) throws Exception {
        NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, false, false);
        host.hostnqn = hostnqn;
        NvmeTcpTestHost.require(host.connect(LoopbackNvmeServer.nqn(4096), qid, qid == 0 ? 31 : 127, cntlid,
                qid == 0 ? 5000 : 0, 0), "Connect QID " + qid);
        if (qid == 0) {
            host.enable();
        }
        return host;
    }

    @Test
    void emptyHostNqnConnectsAndDoesIo() throws Exception {
        try (NvmeTcpTestHost admin = open("", 0, ConnectData.CNTLID_DYNAMIC);
             NvmeTcpTestHost io = open("", 1, admin.identifyController().cntlid())) {
            byte[] data = NvmeTcpLoopbackIT.pattern(8192, 1);
            NvmeTcpTestHost.require(io.write(1, 16, 2, data), "write");
            assertThat(io.read(1, 16, 2, 8192).data()).isEqualTo(data);
        }
    }

    @Test
    void reusedAerCidAtDetachIsToleratedAndShutdownCompletes() throws Exception {
        try (NvmeTcpTestHost admin = open("", 0, ConnectData.CNTLID_DYNAMIC)) {
            admin.send(new CapsuleCmd(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), 3, 0,
                    SglDescriptor.transportDataBlock(0))));
            // detach: the AER cancelled on the host side, CID 3 reused for the next admin command
            NvmeTcpTestHost.Reply keepAlive = admin.execute(Sqe.of(AdminOpcode.KEEP_ALIVE.code(), 0, 0,
                    SglDescriptor.transportDataBlock(0)), null, 0, 3);
            assertThat(keepAlive.ok()).isTrue();
            assertThat(keepAlive.cqe().cid()).isEqualTo(3);
            // and SPDK's shutdown (CC.SHN, then CSTS.SHST) completes on the same admin queue
            admin.propertySet(io.blocktarget.protocol.nvme.ControllerRegister.CC, NvmeTcpTestHost.CC_ENABLE | 1 << 14);
            long csts = admin.propertyGet(io.blocktarget.protocol.nvme.ControllerRegister.CSTS);
            assertThat(csts >> 2 & 3).as("CSTS.SHST complete").isEqualTo(2);
        }
    }

    @Test
    void abortOfAWriteWaitingForDataCompletesIt() throws Exception {
        try (NvmeTcpTestHost admin = open(NvmeTcpTestHost.HOSTNQN, 0, ConnectData.CNTLID_DYNAMIC);
             NvmeTcpTestHost io = open(NvmeTcpTestHost.HOSTNQN, 1, admin.identifyController().cntlid())) {
            Sqe write = new ReadWriteCommand(NvmOpcode.WRITE, 77, 1, 0, 1, false, false, 0, 0,
                    SglDescriptor.transportDataBlock(8192)).toSqe();
            io.send(new CapsuleCmd(write));
            R2T r2t = (R2T) io.read();
            assertThat(r2t.cccid()).isEqualTo(77);
            NvmeTcpTestHost.Reply abort = admin.execute(new AbortCommand(0, 1, 77).toSqe(), null, 0);
            assertThat(abort.ok()).isTrue();
            assertThat(abort.cqe().dw0() & 1).as("aborted").isZero();
            Cqe aborted = ((CapsuleResp) io.read()).cqe();
            assertThat(aborted.cid()).isEqualTo(77);
            assertThat(aborted.status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST.toCqeStatus());
            // the data the host had in flight for the R2T is drained, the queue goes on
            io.send(new H2CData(77, r2t.ttag(), 0, true, Unpooled.wrappedBuffer(new byte[8192])));
            byte[] data = NvmeTcpLoopbackIT.pattern(4096, 2);
            NvmeTcpTestHost.require(io.write(1, 0, 1, data), "write after the abort");
            assertThat(io.read(1, 0, 1, 4096).data()).isEqualTo(data);
            // an executing (completed) command is not aborted
            assertThat(admin.execute(new AbortCommand(0, 1, 77).toSqe(), null, 0).cqe().dw0() & 1).isEqualTo(1);
        }
    }
}
