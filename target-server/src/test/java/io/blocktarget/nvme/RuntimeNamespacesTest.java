package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.HoldingDevice;
import io.blocktarget.block.Io;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Namespaces and subsystems that come and go at runtime (issue 9 item 3): Namespace Attribute Changed notices with
 * the Changed Namespace List (Base §5.2, §5.16.1.5), the active namespace list (CNS 02h) and Identify Namespace
 * following, a discovery log change (GENCTR + 1, AEI F0h) for a new or removed subsystem, Invalid Namespace or Format
 * for a removed or draining namespace, and a removed subsystem's controllers torn down.
 */
class RuntimeNamespacesTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:runtime";
    private static final String OTHER = "nqn.2026-11.io.blocktarget:runtime-other";
    private static final int NS_CHANGED_DW0 = 0x02 | 0x00 << 8 | 0x04 << 16;
    private static final int DISCOVERY_CHANGED_DW0 = 0x02 | 0xF0 << 8 | 0x70 << 16;

    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "one", TestSupport.ram("one", 4096, 4096, 64))),
            List.of(new NvmePort(1, "127.0.0.1", 4420)), NvmeLimits.DEFAULT, new ManualClock(), Map.of());

    private record Completed(NvmeStatus status, int dw0) {
    }

    private final List<Completed> events = new CopyOnWriteArrayList<>();

    private void aer(TestHost host) {
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), host.nextCid(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> events.add(new Completed(status, dw0)));
    }

    private static List<Integer> idList(Reply r) {
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] b = r.bytes();
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i + 3 < b.length; i += 4) {
            int id = b[i] & 0xFF | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
            if (id == 0) {
                break;
            }
            ids.add(id);
        }
        return ids;
    }

    private static List<Integer> activeNamespaces(TestHost host) {
        return idList(host.identify(IdentifyCommand.CNS_ACTIVE_NAMESPACES, 0, 0));
    }

    private static long nsze(TestHost host, int nsid) {
        ByteBuf data = host.identifyData(IdentifyCommand.CNS_NAMESPACE, nsid);
        try {
            return data.getLongLE(0);
        } finally {
            data.release();
        }
    }

    private TestHost hostWithNotices(String nqn, int bits) {
        TestHost host = TestHost.enabled(target, nqn);
        assertThat(host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, bits).status()).isEqualTo(NvmeStatus.SUCCESS);
        aer(host);
        return host;
    }

    private static long genctr(TestHost discovery) {
        Reply header = discovery.getLogPage(0x70, 0, 0, 1024, false);
        try {
            return header.data().getLongLE(0);
        } finally {
            header.release();
        }
    }

    @Test
    void aNamespaceAddedToASubsystemIsANoticeAndJoinsTheActiveList() {
        TestHost host = hostWithNotices(NQN, 1 << 8);
        assertThat(activeNamespaces(host)).containsExactly(1);

        target.attachNamespace(new NamespaceSpec(NQN, 7, "seven", TestSupport.ram("seven", 16384, 16384, 32)), Set.of());

        assertThat(events).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));
        assertThat(idList(host.getLogPage(0x04, 0, 0, 4096, false))).containsExactly(7);
        assertThat(activeNamespaces(host)).containsExactly(1, 7);
        assertThat(nsze(host, 7)).isEqualTo(32);
        assertThat(target.nsids(NQN)).containsExactly(1L, 7L);
        assertThatThrownBy(() -> target.attachNamespace(new NamespaceSpec(NQN, 7, "again",
                TestSupport.ram("again", 512, 512, 8)), Set.of())).isInstanceOf(IllegalArgumentException.class);
        host.admin.close();
    }

    @Test
    void aResizeIsANoticeAndIdentifyReportsTheNewSize() throws Exception {
        BlockDevice device = TestSupport.ram("grow", 4096, 4096, 64);
        target.attachNamespace(new NamespaceSpec(NQN, 2, "grow", device), Set.of());
        TestHost host = hostWithNotices(NQN, 1 << 8);
        assertThat(nsze(host, 2)).isEqualTo(64);
        Io.<Void>await(cb -> device.resize(256, cb));
        target.namespaceChanged(NQN, 2);
        assertThat(events).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));
        assertThat(nsze(host, 2)).isEqualTo(256);
        assertThat(idList(host.getLogPage(0x04, 0, 0, 4096, false))).containsExactly(2);
        host.admin.close();
    }

    @Test
    void aRemovedNamespaceIsInvalidAndTheOthersHearOfIt() {
        target.attachNamespace(new NamespaceSpec(NQN, 2, "two", TestSupport.ram("two", 4096, 4096, 64)), Set.of());
        TestHost host = hostWithNotices(NQN, 1 << 8);
        NvmeQueue io = host.connectIo(1);

        assertThat(target.detachNamespace(NQN, 2)).isTrue();
        assertThat(target.detachNamespace(NQN, 2)).isFalse();

        assertThat(events).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));
        assertThat(activeNamespaces(host)).containsExactly(1);
        Reply read = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, 9, 2, 0, 1, 4096, false), null);
        assertThat(read.status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        read.release();
        Reply ok = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, 10, 1, 0, 1, 4096, false), null);
        assertThat(ok.status()).isEqualTo(NvmeStatus.SUCCESS);
        ok.release();
        host.admin.close();
    }

    @Test
    void aNewSubsystemChangesTheDiscoveryLogAndTheLastNamespaceTakesItAway() {
        TestHost discovery = hostWithNotices(DiscoveryLog.DISCOVERY_NQN, 1 << 31);
        long before = genctr(discovery);   // read without RAE: re-arms the notice
        aer(discovery);
        events.clear();

        target.attachNamespace(new NamespaceSpec(OTHER, 1, "other", TestSupport.ram("other", 512, 4096, 64)), Set.of());
        assertThat(events).containsExactly(new Completed(NvmeStatus.SUCCESS, DISCOVERY_CHANGED_DW0));
        assertThat(genctr(discovery)).isEqualTo(before + 1);
        assertThat(target.subsystemNqns()).containsExactly(DiscoveryLog.DISCOVERY_NQN, NQN, OTHER);
        Reply log = discovery.getLogPage(0x70, 0, 0, 3072, false);
        assertThat(log.data().getLongLE(8)).as("NUMREC").isEqualTo(2);
        log.release();

        TestConnection connection = new TestConnection();
        TestHost host = TestHost.connect(target, OTHER, 0, connection);
        assertThat(target.controllers()).extracting(NvmeSubsystems.ControllerInfo::subsystemNqn)
                .contains(OTHER, DiscoveryLog.DISCOVERY_NQN);

        aer(discovery);
        assertThat(target.detachNamespace(OTHER, 1)).isTrue();
        assertThat(target.subsystemNqns()).containsExactly(DiscoveryLog.DISCOVERY_NQN, NQN);
        assertThat(connection.terminations).hasSize(1);   // its controller torn down, connection closed
        assertThat(target.controllers()).extracting(NvmeSubsystems.ControllerInfo::subsystemNqn).doesNotContain(OTHER);
        assertThat(events).hasSize(2).last().isEqualTo(new Completed(NvmeStatus.SUCCESS, DISCOVERY_CHANGED_DW0));
        assertThat(genctr(discovery)).isEqualTo(before + 2);
        // a Connect to it now names SUBNQN as the invalid field, DNR clear: the subsystem may come back
        assertThat(TestSupport.connect(target, 0, 31, 0, 0xFFFF, OTHER, TestSupport.HOST_NQN, new TestConnection())
                .status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS_RETRYABLE);
        assertThat(host.cntlid).isPositive();
        discovery.admin.close();
    }

    @Test
    void aDrainingNamespaceRefusesNewCommandsAndWaitsForAHeldOne() throws Exception {
        HoldingDevice holding = new HoldingDevice(TestSupport.ram("held", 4096, 4096, 64));
        LunState state = new LunState("held");
        target.attachNamespace(new NamespaceSpec(NQN, 3, "held", holding, state), Set.of());
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue io = host.connectIo(1);

        CompletableFuture<Reply> held = new CompletableFuture<>();
        io.submit(TestHost.rw(NvmOpcode.READ, 1, 3, 0, 1, 4096, false), null,
                (status, dw0, dw1, data) -> held.complete(new Reply(status, dw0, dw1, data)));
        assertThat(holding.heldCount()).isEqualTo(1);
        assertThat(state.inFlight().count()).isEqualTo(1);

        CompletableFuture<Void> drained = state.inFlight().drain();
        Reply refused = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, 2, 3, 0, 1, 4096, false), null);
        assertThat(refused.status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        assertThat(drained).isNotDone();

        holding.releaseAll();
        drained.get(5, TimeUnit.SECONDS);
        Reply r = held.get(5, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r.bytes()).hasSize(4096);
        host.admin.close();
    }

    @Test
    void allowedHostsChangeForNewConnectsOnly() {
        TestHost connected = TestHost.enabled(target, NQN);
        target.allowHosts(NQN, Set.of("nqn.2026-11.com.example:someone-else"));
        assertThat(TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, TestSupport.HOST_NQN, new TestConnection())
                .status()).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(activeNamespaces(connected)).containsExactly(1);   // a connected host keeps its controller
        target.allowHosts(NQN, Set.of());
        assertThat(TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, TestSupport.HOST_NQN, new TestConnection())
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        connected.admin.close();
    }

    @Test
    void aControllerCanBeDroppedByTheControlPlane() {
        TestConnection connection = new TestConnection();
        TestHost host = TestHost.connect(target, NQN, 0, connection);
        assertThat(target.controllers()).extracting(NvmeSubsystems.ControllerInfo::cntlid).contains(host.cntlid);
        assertThat(target.dropController(NQN, host.cntlid + 100, "test")).isFalse();
        assertThat(target.dropController("nqn.2026-11.io.blocktarget:nope", host.cntlid, "test")).isFalse();
        assertThat(target.dropController(NQN, host.cntlid, "test")).isTrue();
        assertThat(connection.terminations).hasSize(1);
        assertThat(target.controllers()).isEmpty();
    }

    @Test
    void aCommandRacingADropGetsAPathErrorWithoutDnr() {
        TestHost host = TestHost.enabled(target, NQN);
        TestConnection io = new TestConnection();
        NvmeQueue q1 = host.tryConnectIo(1, 31, io).queue();
        assertThat(host.read(q1, 1, 0, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(target.dropController(NQN, host.cntlid, "test")).isTrue();
        assertThat(io.terminations).hasSize(1);
        // read before the transport closed the connection: Internal Path Error, no DNR, so Linux's native multipath
        // retries it on another path (Command Sequence Error with DNR failed it to the application)
        Reply late = host.read(q1, 1, 0, 1, 4096);
        assertThat(late.status()).isEqualTo(NvmeStatus.INTERNAL_PATH_ERROR);
        assertThat(late.status().dnr()).isFalse();
        q1.close();
        host.admin.close();
    }
}
