package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Keep Alive (Base §3.9, §5.24) on a fake clock: expiry tears one controller down and nothing else. */
class KeepAliveTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:ka";
    private final ManualClock clock = new ManualClock();
    private final NvmeTarget target = NvmeTargets.create(
            List.of(new NamespaceSpec(NQN, 1, "ka", TestSupport.ram("ka", 512, 512, 64))),
            List.of(), NvmeLimits.DEFAULT, clock);

    private TestHost enabled(long kato) {
        TestHost host = TestHost.connect(target, NQN, kato);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        return host;
    }

    @Test
    void expiryTerminatesEveryConnectionOfTheControllerOnly() {
        TestHost doomed = enabled(5000);
        TestConnection io1 = new TestConnection();
        TestConnection io2 = new TestConnection();
        NvmeQueue q1 = doomed.tryConnectIo(1, 31, io1).queue();
        doomed.tryConnectIo(2, 31, io2);
        TestHost survivor = enabled(5000);

        clock.advanceMillis(4000);
        assertThat(survivor.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        clock.advanceMillis(1000); // doomed reaches KATO; survivor was refreshed at 4 s
        assertThat(doomed.adminConnection.terminations).hasSize(1).allMatch(r -> r.contains("keep-alive"));
        assertThat(io1.terminations).hasSize(1);
        assertThat(io2.terminations).hasSize(1);
        assertThat(survivor.adminConnection.terminations).isEmpty();

        // the dead controller takes no more commands (a path error without DNR: a multipath host retries elsewhere)
        // and its CNTLID is gone
        Reply late = doomed.read(q1, 1, 0, 1, 512);
        assertThat(late.status()).isEqualTo(NvmeStatus.INTERNAL_PATH_ERROR);
        assertThat(late.status().dnr()).isFalse();
        assertThat(doomed.tryConnectIo(3, 31, new TestConnection()).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        // the transport closing the queues afterwards is harmless
        doomed.admin.close();
        q1.close();

        clock.advanceMillis(3999); // refreshed at 4 s: expires at 9 s
        assertThat(survivor.adminConnection.terminations).isEmpty();
        clock.advanceMillis(1);
        assertThat(survivor.adminConnection.terminations).hasSize(1);
    }

    @Test
    void keepAliveRestartsTheTimer() {
        TestHost host = enabled(1000);
        for (int i = 0; i < 10; i++) {
            clock.advanceMillis(500); // Linux sends Keep Alive every KATO / 2
            assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        }
        assertThat(host.adminConnection.terminations).isEmpty();
        // other commands do not count as keep-alive (no Traffic Based Keep Alive)
        for (int i = 0; i < 3; i++) {
            clock.advanceMillis(400);
            host.identify(0x01, 0, 0).release();
        }
        assertThat(host.adminConnection.terminations).hasSize(1);
    }

    @Test
    void katoZeroDisablesTheTimerAndSetFeaturesChangesIt() {
        TestHost host = enabled(0);
        assertThat(clock.pending()).isZero();
        clock.advanceMillis(3_600_000);
        assertThat(host.adminConnection.terminations).isEmpty();
        // Set Features Keep Alive Timer: 250 ms rounds up to the 100 ms granularity (KAS)
        assertThat(host.setFeature(FeatureId.KEEP_ALIVE_TIMER, 250).status()).isEqualTo(NvmeStatus.SUCCESS);
        Reply kato = host.getFeature(FeatureId.KEEP_ALIVE_TIMER, 0, 0);
        assertThat(kato.dw0()).isEqualTo(300);
        clock.advanceMillis(299);
        assertThat(host.adminConnection.terminations).isEmpty();
        clock.advanceMillis(1);
        assertThat(host.adminConnection.terminations).hasSize(1);
    }

    @Test
    void connectKatoIsRoundedToTheGranularity() {
        TestHost host = enabled(1050);
        assertThat(host.getFeature(FeatureId.KEEP_ALIVE_TIMER, 0, 0).dw0()).isEqualTo(1100);
        host.admin.close();
        assertThat(clock.pending()).isZero(); // closing cancels the timer
    }

    @Test
    void discoveryControllerWithoutKatoStillExpires() {
        TestHost host = TestHost.connect(target, "nqn.2014-08.org.nvmexpress.discovery", 0);
        clock.advanceMillis(119_999);
        assertThat(host.adminConnection.terminations).isEmpty();
        clock.advanceMillis(1);
        assertThat(host.adminConnection.terminations).hasSize(1);
    }
}
