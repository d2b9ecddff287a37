package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Several I/O queues of one controller driven from different threads at once (as event loops do), over a
 * file backend that completes on its worker threads, plus the file-specific commands (FUA, flush).
 */
class ConcurrentQueuesTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:file";
    private final ManualClock clock = new ManualClock();
    private final ExecutorService io = Executors.newFixedThreadPool(2);
    private final ExecutorService loops = Executors.newFixedThreadPool(4);

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        io.shutdownNow();
        loops.shutdownNow();
    }

    private FileBlockDevice file(int lbs, long blocks) throws Exception {
        return FileBlockDevice.open("f", dir.resolve("f-" + lbs + ".img"), new BlockGeometry(lbs, lbs, blocks),
                new FileBlockDevice.Options(true, false, false), io);
    }

    private TestHost hostOf(BlockDevice device) {
        return TestHost.enabled(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "f", device)),
                List.of(), NvmeLimits.DEFAULT, clock), NQN);
    }

    @Test
    void fourQueuesWriteAndVerifyTheirOwnRanges() throws Exception {
        int lbs = 4096;
        FileBlockDevice device = file(lbs, 4096);
        TestHost host = hostOf(device);
        List<NvmeQueue> queues = new ArrayList<>();
        for (int qid = 1; qid <= 4; qid++) {
            queues.add(host.connectIo(qid));
        }
        List<Future<?>> done = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            NvmeQueue q = queues.get(k);
            long base = k * 1024L;
            done.add(loops.submit(() -> {
                Random random = new Random(base);
                for (int i = 0; i < 50; i++) {
                    int blocks = 1 + random.nextInt(8);
                    long slba = base + random.nextInt(1000);
                    byte[] data = new byte[blocks * lbs];
                    random.nextBytes(data);
                    Reply w = TestSupport.submit(q, TestHost.rw(NvmOpcode.WRITE, i, 1, slba, blocks, lbs, i % 5 == 0),
                            Unpooled.wrappedBuffer(data));
                    assertThat(w.status()).isEqualTo(NvmeStatus.SUCCESS);
                    Reply r = TestSupport.submit(q, TestHost.rw(NvmOpcode.READ, i, 1, slba, blocks, lbs, false), null);
                    assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
                    assertThat(r.bytes()).isEqualTo(data);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        Reply flush = host.io(queues.getFirst(), Sqe.of(NvmOpcode.FLUSH.code(), 1, 1,
                SglDescriptor.transportDataBlock(0)), null);
        assertThat(flush.status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
        device.close();
    }

    @Test
    void fileBackendWriteZeroesDeallocateAndClosedDevice() throws Exception {
        int lbs = 512;
        FileBlockDevice device = file(lbs, 256);
        TestHost host = hostOf(device);
        NvmeQueue q = host.connectIo(1);
        byte[] data = new byte[16 * lbs];
        Arrays.fill(data, (byte) 0x33);
        assertThat(host.write(q, 1, 0, data, lbs, true).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(q, new WriteZeroesCommand(1, 1, 4, 3, true, true, false).toSqe(), null).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        byte[] expected = data.clone();
        Arrays.fill(expected, 4 * lbs, 8 * lbs, (byte) 0);
        assertThat(host.read(q, 1, 0, 16, lbs).bytes()).isEqualTo(expected);
        // the LUN closes under the host: Namespace Not Ready, retryable
        device.close();
        Reply closed = host.read(q, 1, 0, 1, lbs);
        assertThat(closed.status()).isEqualTo(NvmeStatus.NAMESPACE_NOT_READY);
        assertThat(closed.status().dnr()).isFalse();
        host.admin.close();
    }

    @Test
    void concurrentConnectsGetDistinctControllerIds() throws Exception {
        NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "r",
                TestSupport.ram("r", 512, 512, 8))), List.of(), NvmeLimits.DEFAULT, clock);
        List<Future<ConnectResult>> results = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            results.add(loops.submit(() -> TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, TestSupport.HOST_NQN,
                    new TestSupport.TestConnection())));
        }
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        for (Future<ConnectResult> f : results) {
            ConnectResult r = f.get();
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
            assertThat(ids.add(r.queue().cntlid())).isTrue();
        }
        results.forEach(f -> {
            try {
                f.get().queue().close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void invalidConfigurationsAreRefused() {
        BlockDevice d = TestSupport.ram("x", 512, 512, 8);
        assertThatThrownBy(() -> NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "x", d),
                new NamespaceSpec(NQN, 1, "y", d)), List.of(), NvmeLimits.DEFAULT, clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NSID 1");
        assertThatThrownBy(() -> NvmeTargets.create(List.of(new NamespaceSpec(NQN, 0, "x", d)), List.of(),
                NvmeLimits.DEFAULT, clock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NvmeTargets.create(List.of(new NamespaceSpec(
                "nqn.2014-08.org.nvmexpress.discovery", 1, "x", d)), List.of(), NvmeLimits.DEFAULT, clock))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
