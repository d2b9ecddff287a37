package io.blocktarget.it.nvme;

import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fused Compare and Write over NVMe/TCP end to end (Base §3.4.2, NVM Command Set §3.2.3; issue 28 item 10): two
 * capsules with FUSE = first / second, their data in the capsule or by R2T, through the in-process server's
 * transport, which pairs them, and the NVMe layer, which runs them as one. Before: every fused command was Invalid
 * Field in Command (FUSES 0).
 */
@Tag("loopback")
class FusedLoopbackIT {
    private static final int LBS = 4096;
    private static LoopbackNvmeServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackNvmeServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static Sqe rw(NvmOpcode opcode, long slba, int blocks, int fuse) {
        Sqe s = new ReadWriteCommand(opcode, 0, 1, slba, blocks - 1, false, false, 0, 0, null).toSqe();
        return new Sqe(s.opcode(), fuse, s.psdt(), s.cid(), s.nsid(), s.cdw2(), s.cdw3(), s.mptr(), s.dptr(),
                s.cdw10(), s.cdw11(), s.cdw12(), s.cdw13(), s.cdw14(), s.cdw15());
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static NvmeTcpTestHost[] connect() throws Exception {
        NvmeTcpTestHost admin = NvmeTcpTestHost.open(server.ioPort, false, false);
        NvmeTcpTestHost.require(admin.connect(LoopbackNvmeServer.nqn(LBS), 0, 31, ConnectData.CNTLID_DYNAMIC, 120_000, 0),
                "admin connect");
        admin.enable();
        NvmeTcpTestHost io = NvmeTcpTestHost.open(server.ioPort, false, false);
        NvmeTcpTestHost.require(io.connect(LoopbackNvmeServer.nqn(LBS), 1, 127, admin.identifyController().cntlid(),
                0, 0), "I/O connect");
        return new NvmeTcpTestHost[] {admin, io};
    }

    @Test
    void compareAndWriteInTheCapsuleAndByR2t() throws Exception {
        NvmeTcpTestHost[] hosts = connect();
        try (NvmeTcpTestHost admin = hosts[0]; NvmeTcpTestHost io = hosts[1]) {
            assertThat(admin.identifyController().fuses() & 1).as("FUSES: Compare and Write").isEqualTo(1);
            for (int blocks : new int[] {2, 128}) {                   // 8 KiB in the capsule, 512 KiB by R2T
                long slba = blocks == 2 ? 100 : 1024;
                byte[] old = pattern(blocks * LBS, blocks);
                NvmeTcpTestHost.require(io.write(1, slba, blocks, old), "write");
                byte[] next = pattern(blocks * LBS, blocks + 1);
                Cqe[] ok = io.fused(rw(NvmOpcode.COMPARE, slba, blocks, Sqe.FUSE_FIRST), old,
                        rw(NvmOpcode.WRITE, slba, blocks, Sqe.FUSE_SECOND), next);
                assertThat(ok[0].status().sc()).as("compare, %d blocks", blocks).isZero();
                assertThat(ok[1].status().sc()).as("write, %d blocks", blocks).isZero();
                assertThat(io.read(1, slba, blocks, blocks * LBS).data()).isEqualTo(next);
                Cqe[] miss = io.fused(rw(NvmOpcode.COMPARE, slba, blocks, Sqe.FUSE_FIRST), old,
                        rw(NvmOpcode.WRITE, slba, blocks, Sqe.FUSE_SECOND), pattern(blocks * LBS, 99));
                assertThat(miss[0].status()).isEqualTo(NvmeStatus.COMPARE_FAILURE.toCqeStatus());
                assertThat(miss[1].status()).isEqualTo(NvmeStatus.ABORTED_FAILED_FUSED.toCqeStatus());
                assertThat(io.read(1, slba, blocks, blocks * LBS).data()).isEqualTo(next);
            }
        }
    }

    @Test
    void aFusedCommandWithoutItsOtherHalfIsAborted() throws Exception {
        NvmeTcpTestHost[] hosts = connect();
        try (NvmeTcpTestHost admin = hosts[0]; NvmeTcpTestHost io = hosts[1]) {
            NvmeTcpTestHost.Reply second = io.execute(rw(NvmOpcode.WRITE, 7, 1, Sqe.FUSE_SECOND), new byte[LBS], 0);
            assertThat(second.cqe().status()).isEqualTo(NvmeStatus.ABORTED_MISSING_FUSED.toCqeStatus());
            // a first followed by a plain Write: the first is missing its second, the Write runs
            Cqe[] pair = io.fused(rw(NvmOpcode.COMPARE, 7, 1, Sqe.FUSE_FIRST), new byte[LBS],
                    rw(NvmOpcode.WRITE, 7, 1, Sqe.FUSE_NONE), pattern(LBS, 5));
            assertThat(pair[0].status()).isEqualTo(NvmeStatus.ABORTED_MISSING_FUSED.toCqeStatus());
            assertThat(pair[1].status().sc()).isZero();
            assertThat(io.read(1, 7, 1, LBS).data()).isEqualTo(pattern(LBS, 5));
        }
    }
}
