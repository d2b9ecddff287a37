package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.AccessState;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.NvmeStatus.StatusCodeType;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asymmetric Namespace Access (NVMe Base 2.x §8.1.1) over two ports: Identify Controller's CMIC / OAES / ANATT /
 * ANACAP / ANAGRPMAX / NANAGRPID / MNAN and each namespace's ANAGRPID byte for byte, the ANA log page (§5.16.1.12)
 * with and without RGO as each port sees it, the ANA statuses on I/O, the change notice once per controller of the
 * changed port, and the group limit at the limit and past it.
 */
class AnaTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:ana";
    /** AET 2h notice, AEI 03h Asymmetric Namespace Access Change, LID 0Ch. */
    private static final int ANA_CHANGED_DW0 = 0x02 | 0x03 << 8 | 0x0C << 16;

    private final ManualClock clock = new ManualClock();
    private final LunState one = state("one", AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED);
    private final LunState two = state("two", AccessState.NON_OPTIMIZED, AccessState.OPTIMIZED);
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "one", TestSupport.ram("one", 512, 512, 64), one),
                    new NamespaceSpec(NQN, 7, "two", TestSupport.ram("two", 512, 512, 64), two)),
            List.of(new NvmePort(1, "127.0.0.1", 4420), new NvmePort(2, "127.0.0.1", 4421)), NvmeLimits.DEFAULT,
            clock, Map.of());

    private LunState state(String name, AccessState port1, AccessState port2) {
        LunState s = new LunState(name, null, Optional.empty(), clock);
        s.paths().install(List.of(port1, port2), change -> { });
        return s;
    }

    /** A host connected and enabled through the port listening on {@code tcpPort}. */
    private TestHost host(int tcpPort) {
        TestHost host = TestHost.connect(target, NQN, 0, new TestConnection("127.0.0.1", tcpPort));
        assertThat(host.propertySet(io.blocktarget.protocol.nvme.ControllerRegister.CC, TestHost.CC_ENABLE))
                .isEqualTo(NvmeStatus.SUCCESS);
        return host;
    }

    private static Reply anaLog(TestHost host, int lsp, int length, boolean rae) {
        return host.admin(new GetLogPageCommand(host.nextCid(), -1, GetLogPageCommand.LID_ANA, lsp, rae,
                length / 4 - 1, 0, 0, false, 0, SglDescriptor.transportDataBlock(length)).toSqe());
    }

    private static String hex(String spaced) {
        return spaced.replace(" ", "");
    }

    @Test
    void identifyControllerAdvertisesAnaByteForByte() {
        TestHost host = host(4420);
        ByteBuf id = host.identifyData(1, 0);
        try {
            assertThat((int) id.getUnsignedByte(76)).as("CMIC: multi-port, multi-controller, ANA reporting").isEqualTo(0x0B);
            assertThat(id.getIntLE(92) & 1 << 11).as("OAES bit 11: ANA change notices").isNotZero();
            assertThat(ByteBufUtil.hexDump(id, 342, 10)).as("ANATT, ANACAP, ANAGRPMAX, NANAGRPID")
                    .isEqualTo(hex("ff 5f 40000000 40000000"));
            assertThat(ByteBufUtil.hexDump(id, 540, 4)).as("MNAN").isEqualTo("40000000");
        } finally {
            id.release();
        }
    }

    @Test
    void eachNamespaceIsItsOwnGroupInIdentifyNamespace() {
        TestHost host = host(4420);
        for (int[] nsGroup : new int[][] {{1, 1}, {7, 2}}) {
            ByteBuf ns = host.identifyData(0, nsGroup[0]);
            ByteBuf independent = host.identifyData(8, nsGroup[0]);
            try {
                assertThat(ns.getIntLE(92)).as("ANAGRPID of NSID %d", nsGroup[0]).isEqualTo(nsGroup[1]);
                assertThat(independent.getIntLE(4)).as("CNS 08h ANAGRPID").isEqualTo(nsGroup[1]);
            } finally {
                ns.release();
                independent.release();
            }
        }
    }

    @Test
    void theLogPageIsWhatEachPortSeesByteForByte() {
        String port1 = hex("0200000000000000 0200 000000000000"   // CHANGE COUNT 2 (two groups), 2 descriptors
                + " 01000000 01000000 0000000000000000 01" + "00".repeat(15) + " 01000000"   // group 1: NSID 1 optimized
                + " 02000000 01000000 0000000000000000 02" + "00".repeat(15) + " 07000000"); // group 2: NSID 7 non-opt
        assertThat(HexFormat.of().formatHex(anaLog(host(4420), 0, 88, false).bytes())).isEqualTo(port1);
        Reply rgo = anaLog(host(4421), 1, 80, false);
        assertThat(rgo.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(HexFormat.of().formatHex(rgo.bytes())).isEqualTo(hex("0200000000000000 0200 000000000000"
                + " 01000000 00000000 0000000000000000 02" + "00".repeat(15)    // RGO: no NSIDs; port 2's states
                + " 02000000 00000000 0000000000000000 01" + "00".repeat(15)));
    }

    @Test
    void everyStateHasItsAnaStateAndItsIoStatus() {
        TestHost host = host(4420);
        var io = host.connectIo(1);
        Object[][] expected = {
                {AccessState.OPTIMIZED, 0x1, null},
                {AccessState.NON_OPTIMIZED, 0x2, null},
                {AccessState.INACCESSIBLE, 0x3, 0x02},
                {AccessState.STANDBY, 0x3, 0x02},
                {AccessState.UNAVAILABLE, 0x3, 0x02},
                {AccessState.PERSISTENT_LOSS, 0x4, 0x01},
                {AccessState.TRANSITIONING, 0xF, 0x03}};
        for (Object[] e : expected) {
            one.paths().set(Map.of(1, (AccessState) e[0]), 0, null);
            byte[] log = anaLog(host, 0, 4096, false).bytes();
            assertThat(log[16 + 16] & 0x0F).as("ANA state of %s", e[0]).isEqualTo(e[1]);
            Reply read = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, host.nextCid(), 1, 0, 1, 512, false),
                    null);
            if (e[2] == null) {
                assertThat(read.status()).as("%s", e[0]).isEqualTo(NvmeStatus.SUCCESS);
            } else {
                assertThat(read.status().sct()).isEqualTo(StatusCodeType.PATH_RELATED);
                assertThat(read.status().sc()).as("%s", e[0]).isEqualTo(e[2]);
                assertThat(read.status().dnr()).as("retry on another path").isFalse();
            }
            read.release();
            // NSID 7 is optimized on this port whatever NSID 1 does
            Reply other = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, host.nextCid(), 7, 0, 1, 512, false),
                    null);
            assertThat(other.status()).as("NSID 7, non-optimized").isEqualTo(NvmeStatus.SUCCESS);
            other.release();
        }
    }

    private record Completed(NvmeStatus status, int dw0) {
    }

    private static void aer(TestHost host, List<Completed> into) {
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), host.nextCid(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> into.add(new Completed(status,
                dw0)));
    }

    private static long changeCount(TestHost host) {
        byte[] header = anaLog(host, 1, 16, true).bytes();
        return java.nio.ByteBuffer.wrap(header).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    @Test
    void aChangeNotifiesEachControllerOfThatPortOnceUntilTheLogIsRead() {
        TestHost a = host(4420);
        TestHost b = host(4421);
        List<Completed> onA = new CopyOnWriteArrayList<>();
        List<Completed> onB = new CopyOnWriteArrayList<>();
        for (TestHost h : List.of(a, b)) {
            assertThat(h.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 11).status())
                    .isEqualTo(NvmeStatus.SUCCESS);
            assertThat(h.getFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0, 0).dw0()).isEqualTo(1 << 11);
        }
        aer(a, onA);
        aer(b, onB);
        long before = changeCount(a);
        target.anaChanged(NQN, 1, Set.of(1));
        assertThat(onA).containsExactly(new Completed(NvmeStatus.SUCCESS, ANA_CHANGED_DW0));
        assertThat(onB).as("port 2 did not change").isEmpty();
        assertThat(changeCount(b)).as("the log's change count is the subsystem's").isEqualTo(before + 1);
        // masked until read without RAE
        aer(a, onA);
        target.anaChanged(NQN, 7, Set.of(1, 2));
        assertThat(onA).hasSize(1);
        assertThat(onB).hasSize(1);
        anaLog(a, 0, 4096, true).release();
        target.anaChanged(NQN, 7, Set.of(1));
        assertThat(onA).hasSize(1);
        anaLog(a, 0, 4096, false).release();
        target.anaChanged(NQN, 7, Set.of(1));
        assertThat(onA).hasSize(2);
        // an unknown namespace or subsystem is no change
        long now = changeCount(a);
        target.anaChanged(NQN, 3, Set.of(1));
        target.anaChanged(NQN + "x", 1, Set.of(1));
        assertThat(changeCount(a)).isEqualTo(now);
    }

    @Test
    void reservedLogSpecificBitsAreInvalidField() {
        TestHost host = host(4420);
        Reply r = anaLog(host, 0b10, 4096, false);
        assertThat(r.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        r.release();
    }

    @Test
    void groupsStopAtTheLimitAndAreReusedAfterDetach() {
        String nqn = "nqn.2026-11.io.blocktarget:many";
        List<NamespaceSpec> specs = new ArrayList<>();
        for (int nsid = 1; nsid <= Ana.MAX_GROUPS + 1; nsid++) {
            specs.add(new NamespaceSpec(nqn, nsid, "n" + nsid,
                    new NullBlockDevice("n" + nsid, new BlockGeometry(512, 512, 8), false)));
        }
        NvmeSubsystems many = NvmeSubsystems.of(specs, List.of(new NvmePort(1, "127.0.0.1", 4420)),
                NvmeLimits.DEFAULT, clock, Map.of());
        TestHost host = TestHost.enabled(many, nqn);
        ByteBuf last = host.identifyData(0, Ana.MAX_GROUPS);
        ByteBuf past = host.identifyData(0, Ana.MAX_GROUPS + 1);
        try {
            assertThat(last.getIntLE(92)).isEqualTo(Ana.MAX_GROUPS);
            assertThat(past.getIntLE(92)).as("no group left").isZero();
        } finally {
            last.release();
            past.release();
        }
        // the largest page: header + MAX_GROUPS x (32 + 4); the namespace without a group is not in it
        int size = 16 + Ana.MAX_GROUPS * 36;
        assertThat(size).as("what Linux allocates fits the smallest MDTS, 4 KiB").isLessThanOrEqualTo(4096);
        byte[] log = anaLog(host, 0, size, false).bytes();
        assertThat(log[8] & 0xFF | (log[9] & 0xFF) << 8).isEqualTo(Ana.MAX_GROUPS);
        assertThat(many.detachNamespace(nqn, 5)).isTrue();
        many.attachNamespace(new NamespaceSpec(nqn, 5000, "again",
                new NullBlockDevice("again", new BlockGeometry(512, 512, 8), false)));
        ByteBuf again = host.identifyData(0, 5000);
        try {
            assertThat(again.getIntLE(92)).as("the lowest free group").isEqualTo(5);
        } finally {
            again.release();
        }
    }

    @Test
    void aControllerIsOnThePortOfItsLocalAddressAndPort() {
        NvmeSubsystems ports = NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420),
                new NvmePort(2, "0.0.0.0", 4421), new NvmePort(3, "::1", 4420)), NvmeLimits.DEFAULT, clock, Map.of());
        assertThat(ports.portIdOf(new TestConnection("127.0.0.1", 4420))).isEqualTo(1);
        assertThat(ports.portIdOf(new TestConnection("192.0.2.7", 4421))).as("wildcard").isEqualTo(2);
        assertThat(ports.portIdOf(new TestConnection("0:0:0:0:0:0:0:1", 4420))).as("IPv6 spelled out").isEqualTo(3);
        assertThat(ports.portIdOf(new TestConnection("127.0.0.2", 4420))).as("no such listener").isZero();
        assertThat(ports.portIdOf(new TestConnection("127.0.0.1", 4422))).isZero();
    }
}
