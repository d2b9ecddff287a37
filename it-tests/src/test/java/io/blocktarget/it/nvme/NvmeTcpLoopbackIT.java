package io.blocktarget.it.nvme;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.IdentifyNamespace;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.blocktarget.transport.nvmetcp.NvmeTcpTransport;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN.md §8 tier 4: the Java NVMe/TCP host against the in-process server over loopback — ICReq, Connect,
 * properties, Identify, I/O at every LBA format, in-capsule vs R2T writes, digests, several I/O queues,
 * keep-alive expiry, discovery, and bad input that ends one connection while the others carry on.
 */
@Tag("loopback")
class NvmeTcpLoopbackIT {
    private static LoopbackNvmeServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackNvmeServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Connected and enabled admin queue of a fresh controller for the RAM namespace of {@code lbs}. */
    static NvmeTcpTestHost admin(int lbs, boolean digests, long katoMillis) throws IOException {
        return admin(LoopbackNvmeServer.nqn(lbs), digests, katoMillis);
    }

    static NvmeTcpTestHost admin(String subnqn, boolean digests, long katoMillis) throws IOException {
        NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, digests, digests);
        NvmeTcpTestHost.Reply r = host.connect(subnqn, 0, 31, ConnectData.CNTLID_DYNAMIC, katoMillis, 0);
        NvmeTcpTestHost.require(r, "admin Connect");
        host.enable();
        return host;
    }

    static NvmeTcpTestHost ioQueue(int lbs, int cntlid, int qid, boolean digests) throws IOException {
        return ioQueue(LoopbackNvmeServer.nqn(lbs), cntlid, qid, digests);
    }

    static NvmeTcpTestHost ioQueue(String subnqn, int cntlid, int qid, boolean digests) throws IOException {
        NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, digests, digests);
        NvmeTcpTestHost.require(host.connect(subnqn, qid, 127, cntlid, 0, 0), "I/O Connect");
        host.inCapsuleLimit = 16 * 1024;
        return host;
    }

    static int cntlid(NvmeTcpTestHost admin) throws IOException {
        return admin.identifyController().cntlid();
    }

    static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void adminBringUpReportsTheTransportLimits() throws Exception {
        try (NvmeTcpTestHost host = admin(4096, false, 5000)) {
            long cap = host.propertyGet(ControllerRegister.CAP);
            assertThat(cap & 0xFFFF).as("CAP.MQES").isGreaterThan(0);
            IdentifyController id = host.identifyController();
            assertThat(id.ioccsz()).as("IOCCSZ").isEqualTo((64 + 256 * 1024) / 16);
            assertThat(id.icdoff()).isZero();
            assertThat(id.sgls()).isNotZero();
            IdentifyNamespace ns = host.identifyNamespace(1);
            assertThat(ns.lbs()).isEqualTo(4096);
            assertThat(ns.nsze()).isEqualTo(LoopbackNvmeServer.NAMESPACE_BYTES / 4096);
            assertThat(host.keepAlive().ok()).isTrue();
        }
    }

    @Test
    void writesUpToIoccszTravelInTheCapsule() throws Exception {
        try (NvmeTcpTestHost admin = admin(4096, false, 5000);
             NvmeTcpTestHost io = ioQueue(4096, cntlid(admin), 1, false)) {
            int ioccszBytes = (int) admin.identifyController().ioccsz() * 16 - 64;
            assertThat(ioccszBytes).as("in-capsule data the target accepts").isEqualTo(256 * 1024);
            io.inCapsuleLimit = ioccszBytes;   // the host may now send 256 KiB without waiting for an R2T
            byte[] data = pattern(ioccszBytes, 77);
            assertThat(io.write(1, 64, ioccszBytes / 4096, data).ok()).isTrue();
            assertThat(io.read(1, 64, ioccszBytes / 4096, ioccszBytes).data()).isEqualTo(data);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    void ioAtEveryLbaFormat(int lbs) throws Exception {
        try (NvmeTcpTestHost admin = admin(lbs, false, 5000);
             NvmeTcpTestHost io = ioQueue(lbs, cntlid(admin), 1, false)) {
            assertThat(admin.identifyNamespace(1).lbs()).isEqualTo(lbs);
            // one block in-capsule where it fits, and 512 KiB by R2T (several H2CData, C2HData split on read)
            int small = lbs <= 16 * 1024 ? lbs : 0;
            if (small > 0) {
                byte[] one = pattern(small, lbs);
                assertThat(io.write(1, 3, 1, one).ok()).isTrue();
                assertThat(io.read(1, 3, 1, lbs).data()).isEqualTo(one);
            }
            byte[] big = pattern(512 * 1024, lbs + 1);
            long slba = 1024L * 1024 / lbs;
            assertThat(io.write(1, slba, big.length / lbs, big).ok()).isTrue();
            NvmeTcpTestHost.Reply back = io.read(1, slba, big.length / lbs, big.length);
            assertThat(back.ok()).isTrue();
            assertThat(back.data()).isEqualTo(big);
            // beyond the namespace: a command error, the queue lives on
            long nsze = LoopbackNvmeServer.NAMESPACE_BYTES / lbs;
            assertThat(io.read(1, nsze, 1, lbs).is(NvmeStatus.LBA_OUT_OF_RANGE)).isTrue();
            assertThat(io.read(1, 3, 1, lbs).ok()).isTrue();
        }
    }

    @Test
    void inCapsuleAndR2TWritesOfTheSameDataAgree() throws Exception {
        try (NvmeTcpTestHost admin = admin(512, false, 5000);
             NvmeTcpTestHost io = ioQueue(512, cntlid(admin), 1, false)) {
            byte[] data = pattern(8192, 99);
            assertThat(io.write(1, 0, 16, data).ok()).isTrue();
            io.inCapsuleLimit = 0;   // the same write by R2T
            assertThat(io.write(1, 100, 16, data).ok()).isTrue();
            assertThat(io.read(1, 0, 16, 8192).data()).isEqualTo(io.read(1, 100, 16, 8192).data());
        }
    }

    @Test
    void digestsOnEveryPdu() throws Exception {
        try (NvmeTcpTestHost admin = admin(4096, true, 5000);
             NvmeTcpTestHost io = ioQueue(4096, cntlid(admin), 1, true)) {
            byte[] small = pattern(12 * 1024, 7);
            assertThat(io.write(1, 0, 3, small).ok()).isTrue();
            byte[] big = pattern(1 << 20, 8);
            assertThat(io.write(1, 16, 256, big).ok()).isTrue();
            assertThat(io.read(1, 16, 256, big.length).data()).isEqualTo(big);
            assertThat(io.read(1, 0, 3, small.length).data()).isEqualTo(small);
        }
    }

    @Test
    void severalIoQueuesShareOneController() throws Exception {
        try (NvmeTcpTestHost admin = admin(4096, false, 5000)) {
            assertThat(admin.setFeature(0x07, 3 | 3 << 16).ok()).isTrue();   // Number of Queues: 4 SQ + 4 CQ
            int cntlid = cntlid(admin);
            List<NvmeTcpTestHost> queues = new ArrayList<>();
            try {
                for (int qid = 1; qid <= 4; qid++) {
                    queues.add(ioQueue(4096, cntlid, qid, false));
                }
                for (int i = 0; i < queues.size(); i++) {
                    assertThat(queues.get(i).write(1, 64L * i, 16, pattern(65536, i)).ok()).isTrue();
                }
                for (int i = 0; i < queues.size(); i++) {
                    // read what another queue wrote
                    NvmeTcpTestHost reader = queues.get((i + 1) % queues.size());
                    assertThat(reader.read(1, 64L * i, 16, 65536).data()).isEqualTo(pattern(65536, i));
                }
            } finally {
                for (NvmeTcpTestHost q : queues) {
                    q.close();
                }
            }
        }
    }

    @Test
    void keepAliveExpiryClosesEveryQueueOfTheController() throws Exception {
        // No real-time deadline that a loaded machine can miss: the lower bound is exact (the server's timer starts
        // after this client's clock), the upper one is far above KATO yet below the socket timeout (15 s), so a
        // timer that never fires fails here instead of in the read.
        long start = System.nanoTime();
        try (NvmeTcpTestHost admin = admin(4096, false, 500);
             NvmeTcpTestHost io = ioQueue(4096, cntlid(admin), 1, false)) {
            assertThat(admin.closedByController()).isTrue();
            assertThat(io.closedByController()).isTrue();
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).as("ms until teardown").isGreaterThanOrEqualTo(500).isLessThan(12_000);
        }
    }

    @Test
    void keepAliveCommandsKeepTheControllerPastKato() throws Exception {
        // Keep Alive every ~100 ms for more than twice KATO: a Keep Alive that did not restart the timer tears the
        // controller down at KATO and a later one fails. KATO is 3 s so that only a client stall of 3 s between two
        // Keep Alives (reported below) could end it; Linux sends one every KATO / 2.
        long katoMs = 3000;
        try (NvmeTcpTestHost admin = admin(4096, false, katoMs)) {
            long start = System.nanoTime();
            long last = start;
            long maxGapMs = 0;
            int sent = 0;
            while (System.nanoTime() - start < 2 * katoMs * 1_000_000 + 500_000_000L) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // pacing, not synchronisation
                long now = System.nanoTime();
                maxGapMs = Math.max(maxGapMs, (now - last) / 1_000_000);
                last = now;
                assertThat(admin.keepAlive().ok()).as("Keep Alive %d (largest gap so far %d ms, KATO %d ms)", sent,
                        maxGapMs, katoMs).isTrue();
                sent++;
            }
            assertThat(admin.getLogPage(0x02, 0, 512).ok()).as("still served after %d Keep Alives", sent).isTrue();
        }
    }

    @Test
    void discoveryLogOnTheDiscoveryPort() throws Exception {
        try (NvmeTcpTestHost host = NvmeTcpTestHost.open(server.discoveryPort, false, false)) {
            NvmeTcpTestHost.require(host.connect(NvmeTcpTransport.DISCOVERY_NQN, 0, 31, ConnectData.CNTLID_DYNAMIC,
                    0, 0), "discovery Connect");
            host.enable();
            NvmeTcpTestHost.Reply header = host.getLogPage(GetLogPageCommand.LID_DISCOVERY, 0, 1024);
            assertThat(header.ok()).isTrue();
            long numrec = Unpooled.wrappedBuffer(header.data()).getLongLE(8);
            assertThat(numrec).isGreaterThanOrEqualTo(LoopbackNvmeServer.BLOCK_SIZES.length);
            // the entries, read in 1024-byte chunks as Linux does for large logs
            List<DiscoveryLog.Entry> entries = new ArrayList<>();
            for (int i = 0; i < numrec; i++) {
                NvmeTcpTestHost.Reply e = host.getLogPage(GetLogPageCommand.LID_DISCOVERY,
                        DiscoveryLog.HEADER_SIZE + (long) i * DiscoveryLog.ENTRY_SIZE, DiscoveryLog.ENTRY_SIZE);
                assertThat(e.ok()).isTrue();
                entries.add(DiscoveryLog.Entry.get(Unpooled.wrappedBuffer(e.data()), 0));
            }
            assertThat(entries).anySatisfy(e -> {
                assertThat(e.subnqn()).isEqualTo(LoopbackNvmeServer.nqn(16384));
                assertThat(e.trsvcid().trim()).isEqualTo(String.valueOf(server.ioPort));
                assertThat(e.traddr().trim()).isEqualTo("127.0.0.1");
                assertThat(e.trtype()).isEqualTo(DiscoveryLog.Entry.TRTYPE_TCP);
            });
        }
        // the discovery port serves only the discovery subsystem; the I/O port serves discovery too
        try (NvmeTcpTestHost host = NvmeTcpTestHost.open(server.discoveryPort, false, false)) {
            NvmeTcpTestHost.Reply r = host.connect(LoopbackNvmeServer.nqn(4096), 0, 31, ConnectData.CNTLID_DYNAMIC,
                    5000, 0);
            assertThat(r.is(NvmeStatus.CONNECT_INVALID_PARAMETERS)).isTrue();
            assertThat(r.cqe().dw0()).isEqualTo(1 << 16 | ConnectData.OFFSET_SUBNQN);
        }
        try (NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, false, false)) {
            assertThat(host.connect(NvmeTcpTransport.DISCOVERY_NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0).ok())
                    .isTrue();
        }
    }

    @Test
    void fileBackedCompletionsComeBackToTheConnection() throws Exception {
        try (NvmeTcpTestHost admin = admin(LoopbackNvmeServer.FILE_NQN, false, 5000)) {
            try (NvmeTcpTestHost io = ioQueue(LoopbackNvmeServer.FILE_NQN, cntlid(admin), 1, true)) {
                byte[] all = pattern(64 * 32 * 1024, 21);
                // MDTS is 1 MiB: two writes
                int half = all.length / 2;
                assertThat(io.write(1, 0, half / 4096, java.util.Arrays.copyOf(all, half)).ok()).isTrue();
                assertThat(io.write(1, half / 4096, half / 4096, java.util.Arrays.copyOfRange(all, half, all.length))
                        .ok()).isTrue();
                byte[][] back = io.pipelinedReads(1, 64, 8, 4096);
                for (int i = 0; i < back.length; i++) {
                    assertThat(back[i]).isEqualTo(java.util.Arrays.copyOfRange(all, i * 32768, (i + 1) * 32768));
                }
            }
        }
    }

    @Test
    void sqFlowControlDisabledReadsEndWithTheSuccessFlag() throws Exception {
        try (NvmeTcpTestHost admin = admin(4096, false, 5000);
             NvmeTcpTestHost io = NvmeTcpTestHost.open(server.ioPort, false, false)) {
            NvmeTcpTestHost.Reply c = io.connect(LoopbackNvmeServer.nqn(4096), 1, 127, cntlid(admin), 0,
                    ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL);
            assertThat(c.ok()).isTrue();
            assertThat(c.cqe().sqhd()).isEqualTo(0xFFFF);
            byte[] data = pattern(8192, 3);
            assertThat(io.write(1, 8, 2, data).ok()).isTrue();
            assertThat(io.read(1, 8, 2, 8192).data()).isEqualTo(data);
        }
    }

    @Test
    void malformedPdusAndGarbageEndOnlyTheirConnection() throws Exception {
        try (NvmeTcpTestHost admin = admin(4096, false, 5000);
             NvmeTcpTestHost io = ioQueue(4096, cntlid(admin), 1, false)) {
            byte[] data = pattern(4096, 5);
            assertThat(io.write(1, 0, 1, data).ok()).isTrue();

            // random garbage instead of an ICReq
            try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), server.ioPort)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(pattern(4096, 6));
                assertThat(s.getInputStream().readAllBytes().length).isLessThanOrEqualTo(152);
            }
            // H2CData for an R2T that was never sent
            try (NvmeTcpTestHost bad = ioQueue(4096, cntlid(admin), 2, false)) {
                bad.send(new H2CData(1, 77, 0, true, Unpooled.wrappedBuffer(new byte[512])));
                TermReq t = bad.awaitTermination();
                assertThat(t).isNotNull();
                assertThat(t.fes()).isEqualTo(1);
                assertThat(t.fei()).isEqualTo(10);
            }
            // a data PDU that leaves its R2T
            try (NvmeTcpTestHost bad = ioQueue(4096, cntlid(admin), 3, false)) {
                bad.send(new CapsuleCmd(Sqe.of(0x01, 9, 1, SglDescriptor.transportDataBlock(8192), 0, 0, 1)));
                R2T r2t = (R2T) bad.read();
                bad.send(new H2CData(9, r2t.ttag(), 4096, false, Unpooled.wrappedBuffer(new byte[4096])));
                assertThat(bad.awaitTermination().fes()).isEqualTo(4);
            }
            // a header that claims 4 GiB
            try (NvmeTcpTestHost bad = ioQueue(4096, cntlid(admin), 4, false)) {
                bad.sendRaw(new byte[]{0x06, 0x04, 24, 24, -1, -1, -1, -1});
                assertThat(bad.awaitTermination()).isNotNull();
            }
            // the healthy controller never noticed
            assertThat(io.read(1, 0, 1, 4096).data()).isEqualTo(data);
            assertThat(admin.keepAlive().ok()).isTrue();
        }
    }
}
