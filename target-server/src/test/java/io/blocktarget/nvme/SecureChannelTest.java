package io.blocktarget.nvme;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code access.tls} as the NVMe layer sees it: TREQ and TSAS SECTYPE in the discovery log entries (NVMe/TCP
 * Transport: SECTYPE 02h TLS 1.3; TREQ bits 1:0 01b required, 10b not required) and the Connect check of a subsystem
 * that requires TLS.
 */
class SecureChannelTest {
    private static final String OFF = "nqn.2026-11.io.blocktarget:off";
    private static final String ALLOWED = "nqn.2026-11.io.blocktarget:allowed";
    private static final String REQUIRED = "nqn.2026-11.io.blocktarget:required";

    private final ManualClock clock = new ManualClock();
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(OFF, 1, "o", TestSupport.ram("o", 512, 512, 64)),
                    new NamespaceSpec(ALLOWED, 1, "a", TestSupport.ram("a", 512, 512, 64)),
                    new NamespaceSpec(REQUIRED, 1, "r", TestSupport.ram("r", 512, 512, 64))),
            List.of(new NvmePort(1, "127.0.0.1", 4420)), NvmeLimits.DEFAULT, clock, Map.of());

    SecureChannelTest() {
        target.secureChannel(ALLOWED, SecureChannel.NOT_REQUIRED);
        target.secureChannel(REQUIRED, SecureChannel.REQUIRED);
    }

    @Test
    void discoveryEntriesCarryTreqAndSectype() {
        TestHost host = TestHost.connect(target, DiscoveryLog.DISCOVERY_NQN, 0, new TestConnection("127.0.0.1", 8009));
        host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE);
        Reply page = host.getLogPage(0x70, 0, 0, 4 * 1024, false);
        ByteBuf p = page.data();
        assertThat(p.getLongLE(8)).isEqualTo(3);
        Map<String, int[]> seen = new java.util.HashMap<>();
        for (int k = 0; k < 3; k++) {
            int e = 1024 * (k + 1);
            String nqn = p.toString(e + 256, 256, StandardCharsets.US_ASCII).replace("\0", "");
            seen.put(nqn, new int[] {p.getUnsignedByte(e + 3), p.getUnsignedByte(e + 768)});
        }
        page.release();
        // TREQ bit 2 (SQ flow control disable allowed) stays set in every entry.
        assertThat(seen.get(OFF)).containsExactly(0x04, 0);
        assertThat(seen.get(ALLOWED)).containsExactly(0x06, 2);
        assertThat(seen.get(REQUIRED)).containsExactly(0x05, 2);
        host.admin.close();
    }

    @Test
    void aChangeAdvancesGenctrAndOnlyAChange() {
        TestHost host = TestHost.connect(target, DiscoveryLog.DISCOVERY_NQN, 0, new TestConnection("127.0.0.1", 8009));
        host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE);
        long before = genctr(host);
        target.secureChannel(REQUIRED, SecureChannel.REQUIRED);
        assertThat(genctr(host)).isEqualTo(before);
        target.secureChannel(OFF, SecureChannel.REQUIRED);
        assertThat(genctr(host)).isEqualTo(before + 1);
        host.admin.close();
    }

    private static long genctr(TestHost host) {
        Reply header = host.getLogPage(0x70, 0, 0, 1024, false);
        long genctr = header.data().getLongLE(0);
        header.release();
        return genctr;
    }

    @Test
    void aPlainConnectToASubsystemThatRequiresTlsIsRefusedAndClosed() {
        TestConnection plain = new TestConnection();
        ConnectResult refused = TestSupport.connect(target, 0, 31, 0, 0xFFFF, REQUIRED, TestSupport.HOST_NQN, plain);
        assertThat(refused.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(refused.queue()).isNull();
        assertThat(plain.terminations).containsExactly("plain connection to a subsystem that requires TLS");
        assertThat(target.controllers()).isEmpty();
        // I/O queues too (a host that somehow holds a CNTLID).
        TestConnection io = new TestConnection();
        assertThat(TestSupport.connect(target, 1, 127, 0, 1, REQUIRED, TestSupport.HOST_NQN, io).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(io.terminations).hasSize(1);
    }

    @Test
    void tlsConnectionsReachEverySubsystemAndPlainOnesTheOthers() {
        for (String nqn : List.of(OFF, ALLOWED)) {
            TestConnection plain = new TestConnection();
            TestHost host = TestHost.connect(target, nqn, 0, plain);
            assertThat(plain.terminations).isEmpty();
            host.admin.close();
        }
        TestConnection tls = new TestConnection();
        tls.security = ChannelSecurity.TLS13;
        TestHost host = TestHost.connect(target, REQUIRED, 0, tls);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(tls.terminations).isEmpty();
        // Another host's plain attempt changes nothing for the connected one.
        TestConnection plain = new TestConnection();
        assertThat(TestSupport.connect(target, 0, 31, 0, 0xFFFF, REQUIRED, TestSupport.HOST_NQN, plain).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(tls.terminations).isEmpty();
        host.admin.close();
    }

    @Test
    void aTlsConnectionConnectsOnlyTheHostAndSubsystemItsPskWasDerivedFor() {
        TestConnection tls = new TestConnection();
        tls.security = ChannelSecurity.TLS13;
        tls.tls = new TlsSession(TestSupport.HOST_NQN, ALLOWED);
        ConnectResult other = TestSupport.connect(target, 0, 31, 0, 0xFFFF, REQUIRED, TestSupport.HOST_NQN, tls);
        assertThat(other.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        assertThat(tls.terminations).containsExactly("Connect for another host or subsystem than the TLS PSK's");
        TestConnection otherHost = new TestConnection();
        otherHost.security = ChannelSecurity.TLS13;
        otherHost.tls = new TlsSession("nqn.2014-08.org.nvmexpress:uuid:someone-else", ALLOWED);
        assertThat(TestSupport.connect(target, 0, 31, 0, 0xFFFF, ALLOWED, TestSupport.HOST_NQN, otherHost).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_HOST);
        TestConnection right = new TestConnection();
        right.security = ChannelSecurity.TLS13;
        right.tls = new TlsSession(TestSupport.HOST_NQN, ALLOWED);
        TestHost host = TestHost.connect(target, ALLOWED, 0, right);
        assertThat(right.terminations).isEmpty();
        host.admin.close();
    }
}
