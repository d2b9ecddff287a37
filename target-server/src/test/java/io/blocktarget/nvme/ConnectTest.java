package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Connect (Base §6.3) on admin and I/O queues: the dynamic controller model and every refusal with IATTR/IPO. */
class ConnectTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:a";
    private static final String LOCKED = "nqn.2026-11.io.blocktarget:locked";
    /** IATTR bit 0 (DW0 bit 16): the bad field is in the Connect data. */
    private static final int IN_DATA = 1 << 16;

    private final ManualClock clock = new ManualClock();
    private final NvmeTarget target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "a", TestSupport.ram("a", 512, 512, 64)),
                    new NamespaceSpec(LOCKED, 1, "l", TestSupport.ram("l", 512, 512, 64))),
            List.of(), NvmeLimits.DEFAULT, clock,
            Map.of(LOCKED, Set.of("nqn.2026-11.org.example:only-this-host")));

    private ConnectResult admin(String subnqn, String hostnqn, int sqsize, int cntlid) {
        return TestSupport.connect(target, 0, sqsize, 0, cntlid, subnqn, hostnqn, new TestConnection());
    }

    /**
     * Connect Invalid Parameters naming SUBNQN, with DNR clear: a subsystem can be added at runtime, so a host's
     * reconnect may succeed later (a Linux host gives a controller up on DNR: blktests nvme/061, whose target
     * teardown and setup removes and adds the subsystem while the port stays).
     */
    @Test
    void unknownSubsystemNamesSubnqnInTheDataAndMayBeRetried() {
        ConnectResult r = admin("nqn.2026-11.io.blocktarget:nope", TestSupport.HOST_NQN, 31, 0xFFFF);
        assertThat(r.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS_RETRYABLE);
        assertThat(r.status().toCqeStatus().sct()).isEqualTo(1);
        assertThat(r.status().toCqeStatus().sc()).isEqualTo(0x82);
        assertThat(r.status().dnr()).isFalse();
        assertThat(r.dw0()).isEqualTo(IN_DATA | 256); // IATTR 1, IPO 256 (SUBNQN)
        assertThat(r.queue()).isNull();
        // a malformed field of the same Connect keeps DNR: sending it again cannot succeed
        ConnectResult bad = admin(NQN, "host1", 31, 0xFFFF);
        assertThat(bad.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(bad.status().dnr()).isTrue();
    }

    @Test
    void malformedHostNqnNamesHostnqn() {
        for (String bad : List.of("host1", "nqn.26-11.x", "nqn.2026-11.", "iqn.2026-11.org.example:x")) {
            ConnectResult r = admin(NQN, bad, 31, 0xFFFF);
            assertThat(r.status()).as(bad).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
            assertThat(r.dw0()).as(bad).isEqualTo(IN_DATA | 512); // IPO 512 (HOSTNQN)
        }
    }

    /**
     * Issue 10 item 8a: SPDK's host (spdk_nvme_perf) sends an empty HOSTNQN unless told otherwise. A subsystem open
     * to any host takes it (admin and I/O queues, and discovery), as SPDK's target does; a subsystem with an
     * allow-list refuses it with Connect Invalid Host (Base §6.3, SCT 1h SC 84h), not Invalid Parameters.
     */
    @Test
    void emptyHostNqnIsAnyHostsDecision() {
        ConnectResult admin = admin(NQN, "", 31, 0xFFFF);
        assertThat(admin.status()).isEqualTo(NvmeStatus.SUCCESS);
        int cntlid = admin.queue().cntlid();
        assertThat(TestSupport.submit(admin.queue(), new PropertyCommand(1,
                FabricsCommandType.PROPERTY_SET,
                ControllerRegister.CC, TestHost.CC_ENABLE).toSqe(), null).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        ConnectResult io = TestSupport.connect(target, 1, 127, 0, cntlid, NQN, "", new TestConnection());
        assertThat(io.status()).isEqualTo(NvmeStatus.SUCCESS);
        // the I/O queue's host must be the admin queue's: a named host may not join the empty one's controller
        ConnectResult other = TestSupport.connect(target, 2, 127, 0, cntlid, NQN, TestSupport.HOST_NQN,
                new TestConnection());
        assertThat(other.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        io.queue().close();
        admin.queue().close();

        ConnectResult discovery = admin(DiscoveryLog.DISCOVERY_NQN, "", 31, 0xFFFF);
        assertThat(discovery.status()).isEqualTo(NvmeStatus.SUCCESS);
        discovery.queue().close();

        ConnectResult locked = admin(LOCKED, "", 31, 0xFFFF);
        assertThat(locked.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(locked.status().dnr()).isTrue();
        assertThat(locked.dw0()).isZero();
        assertThat(locked.queue()).isNull();
    }

    @Test
    void allowedHostsRestrictASubsystem() {
        assertThat(admin(LOCKED, TestSupport.HOST_NQN, 31, 0xFFFF).status()).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        ConnectResult ok = admin(LOCKED, "nqn.2026-11.org.example:only-this-host", 31, 0xFFFF);
        assertThat(ok.status()).isEqualTo(NvmeStatus.SUCCESS);
        ok.queue().close();
    }

    @Test
    void adminQueueRules() {
        // static controller IDs are not offered: CNTLID must be FFFFh
        ConnectResult fixed = admin(NQN, TestSupport.HOST_NQN, 31, 1);
        assertThat(fixed.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(fixed.dw0()).isEqualTo(IN_DATA | 16);
        // SQSIZE beyond CAP.MQES (1023): IATTR 0, IPO 44
        ConnectResult big = admin(NQN, TestSupport.HOST_NQN, 1024, 0xFFFF);
        assertThat(big.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(big.dw0()).isEqualTo(44);
    }

    @Test
    void controllerIdsAreUniqueAndReusedAfterTeardown() {
        Set<Integer> ids = new HashSet<>();
        List<ConnectResult> all = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ConnectResult r = admin(NQN, TestSupport.HOST_NQN, 31, 0xFFFF);
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
            assertThat(ids.add(r.queue().cntlid())).isTrue();
            assertThat(r.queue().cntlid()).isBetween(1, 0xFFEF);
            all.add(r);
        }
        all.forEach(r -> r.queue().close());
        // a closed controller is gone: its CNTLID no longer takes I/O queues
        ConnectResult io = TestSupport.connect(target, 1, 31, 0, all.getFirst().queue().cntlid(), NQN,
                TestSupport.HOST_NQN, new TestConnection());
        assertThat(io.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(io.dw0()).isEqualTo(IN_DATA | 16);
    }

    @Test
    void ioQueueRules() {
        TestHost host = TestHost.enabled(target, NQN);
        Reply granted = host.setFeature(FeatureId.NUMBER_OF_QUEUES, 1 | 1 << 16); // two I/O queues
        assertThat(granted.dw0()).isEqualTo(1 | 1 << 16);
        NvmeQueue q1 = host.connectIo(1);
        assertThat(q1.cntlid()).isEqualTo(host.cntlid);
        // the same QID twice
        ConnectResult twice = host.tryConnectIo(1, 31, new TestConnection());
        assertThat(twice.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(twice.dw0()).isEqualTo(42); // IATTR 0, IPO 42 (QID)
        // beyond the number granted
        ConnectResult three = host.tryConnectIo(3, 31, new TestConnection());
        assertThat(three.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(three.dw0()).isEqualTo(42);
        NvmeQueue q2 = host.connectIo(2);
        // unknown controller
        ConnectResult unknown = TestSupport.connect(target, 1, 31, 0, 0xFFEF, NQN, TestSupport.HOST_NQN,
                new TestConnection());
        assertThat(unknown.dw0()).isEqualTo(IN_DATA | 16);
        // another host may not attach to this controller
        ConnectResult stranger = TestSupport.connect(target, 2, 31, 0, host.cntlid, NQN,
                "nqn.2026-11.org.example:other", new TestConnection());
        assertThat(stranger.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        // Number of Queues cannot change once I/O queues exist
        assertThat(host.setFeature(FeatureId.NUMBER_OF_QUEUES, 3 | 3 << 16).status())
                .isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);

        // Disconnect frees QID 2 for a new connection; the disconnected queue takes nothing more
        assertThat(host.disconnect(q2).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(q2, 1, 0, 1, 512).status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        NvmeQueue again = host.connectIo(2);
        // closing an I/O queue's connection frees its QID too
        q1.close();
        NvmeQueue q1b = host.connectIo(1);
        Reply read = host.read(q1b, 1, 0, 1, 512);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        read.release();

        // the admin queue going away takes the I/O queues with it
        TestConnection ioConnection = new TestConnection();
        host.disconnect(again);
        NvmeQueue q2c = host.tryConnectIo(2, 31, ioConnection).queue();
        host.admin.close();
        assertThat(ioConnection.terminations).hasSize(1);
        assertThat(host.adminConnection.terminations).isEmpty();
        // a command read before that connection closed: a path error without DNR (a multipath host retries it)
        assertThat(host.read(q2c, 1, 0, 1, 512).status()).isEqualTo(NvmeStatus.INTERNAL_PATH_ERROR);
    }

    @Test
    void discoveryControllerHasNoIoQueues() {
        TestHost host = TestHost.enabled(target, "nqn.2014-08.org.nvmexpress.discovery");
        ConnectResult io = host.tryConnectIo(1, 31, new TestConnection());
        assertThat(io.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(io.dw0()).isEqualTo(42);
        host.admin.close();
    }
}
