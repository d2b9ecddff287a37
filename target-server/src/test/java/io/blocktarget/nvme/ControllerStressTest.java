package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A jcstress-style stress test of {@link Controller}: in each round, one enabled controller sees its four I/O
 * queues connect from four threads (as four event loops do), Keep Alive from a fifth, and its teardown — the admin
 * connection closing, or the keep-alive timer expiring on the clock's thread — at the same time. Invariants per
 * round: a Connect either succeeds or is refused with a Connect status, never both, never an exception; every queue
 * that was accepted is terminated exactly once by the teardown (none survives a dead controller, none is told
 * twice); a refused one is never told; the dead controller takes no command and its CNTLID no Connect; and the
 * survivor controller of another host is never touched. Bounded: a fixed number of rounds.
 */
@Tag("stress")
class ControllerStressTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:stress";
    private static final int ROUNDS = 400;
    private static final int QUEUES = 4;
    private final ManualClock clock = new ManualClock();
    private final NvmeTarget target = NvmeTargets.create(
            List.of(new NamespaceSpec(NQN, 1, "stress", TestSupport.ram("stress", 512, 512, 64))),
            List.of(), NvmeLimits.DEFAULT, clock);
    private final ExecutorService pool = Executors.newFixedThreadPool(QUEUES + 2);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private record Attempt(TestConnection connection, io.blocktarget.nvme.ConnectResult result) {
    }

    @Test
    void queueConnectsKeepAliveAndTeardownRaceWithoutLosingOrDoublingATermination() throws Exception {
        TestHost survivor = TestHost.enabled(target, NQN);
        Random random = new Random(0xC0FFEE);
        for (int round = 0; round < ROUNDS; round++) {
            boolean byExpiry = round % 2 == 1;
            TestHost host = TestHost.connect(target, NQN, byExpiry ? 1000 : 0);
            assertThat(host.propertySet(io.blocktarget.protocol.nvme.ControllerRegister.CC, TestHost.CC_ENABLE))
                    .isEqualTo(NvmeStatus.SUCCESS);
            assertThat(host.setFeature(FeatureId.NUMBER_OF_QUEUES, (QUEUES - 1) | (QUEUES - 1) << 16).status())
                    .isEqualTo(NvmeStatus.SUCCESS);
            int spin = random.nextInt(2000);
            CyclicBarrier start = new CyclicBarrier(QUEUES + 2);
            List<Future<Attempt>> connects = new ArrayList<>();
            for (int q = 1; q <= QUEUES; q++) {
                int qid = q;
                connects.add(pool.submit(() -> {
                    TestConnection c = new TestConnection();
                    start.await(10, TimeUnit.SECONDS);
                    return new Attempt(c, host.tryConnectIo(qid, 31, c));
                }));
            }
            Future<?> keepAlive = pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int i = 0; i < 3; i++) {
                    NvmeStatus s = host.keepAlive().status();
                    // after the teardown: Internal Path Error while the queue is being terminated, then Command
                    // Sequence Error once the transport closed it
                    assertThat(s).isIn(NvmeStatus.SUCCESS, NvmeStatus.INTERNAL_PATH_ERROR,
                            NvmeStatus.COMMAND_SEQUENCE_ERROR);
                }
                return null;
            });
            Future<?> teardown = pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int i = 0; i < spin; i++) {
                    Thread.onSpinWait();
                }
                if (byExpiry) {
                    clock.advanceMillis(1000);   // the keep-alive timer fires on this thread
                } else {
                    host.admin.close();        // the transport saw the admin connection drop
                }
                return null;
            });
            keepAlive.get(30, TimeUnit.SECONDS);
            teardown.get(30, TimeUnit.SECONDS);
            if (byExpiry) {
                // a Keep Alive may have restarted the timer just before: let it run out for good
                clock.advanceMillis(1000);
                assertThat(host.adminConnection.terminations).as("round %d: admin told once", round).hasSize(1);
                host.admin.close();
            }
            for (Future<Attempt> f : connects) {
                Attempt a = f.get(30, TimeUnit.SECONDS);
                if (a.result().status() == NvmeStatus.SUCCESS) {
                    assertThat(a.connection().terminations).as("round %d: accepted queue %d terminated once",
                            round, a.result().queue().qid()).hasSize(1);
                    // terminated, its connection not closed yet: a path error without DNR (retry elsewhere)
                    assertThat(host.read(a.result().queue(), 1, 0, 1, 512).status())
                            .as("round %d: a dead controller takes no command", round)
                            .isEqualTo(NvmeStatus.INTERNAL_PATH_ERROR);
                    a.result().queue().close();
                } else {
                    assertThat(a.result().status()).isIn(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                            NvmeStatus.COMMAND_SEQUENCE_ERROR);
                    assertThat(a.connection().terminations).as("round %d: refused queue never told", round)
                            .isEmpty();
                }
            }
            assertThat(host.tryConnectIo(1, 31, new TestConnection()).status())
                    .as("round %d: the CNTLID is gone", round).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        }
        assertThat(survivor.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(survivor.adminConnection.terminations).isEmpty();
    }
}
