package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.blocktarget.scsi.Scsi.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Four initiators hammer overlapping blocks of one file-backed LUN (completions on worker threads)
 * with writes, COMPARE AND WRITE, UNMAP, WRITE SAME and reads: every command completes exactly once
 * with an expected status, nothing deadlocks, and every range lease is returned.
 */
class ConcurrencyTest {

    @Test
    void mixedCommandsFromFourNexusesOnOverlappingBlocks(@TempDir Path dir) throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(3);
        ExecutorService initiators = Executors.newFixedThreadPool(4);
        try (BlockDevice device = FileBlockDevice.open("mixed", dir.resolve("d.img"), new BlockGeometry(4096, 4096, 64),
                new FileBlockDevice.Options(true, false, false), io)) {
            ScsiTarget target = Scsi.target(device);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                ItNexus nexus = new ItNexus("iqn.2026-11.test:stress,i,0x00000000000" + t, Scsi.TARGET + ",t,0x0001", 1);
                long seed = t;
                results.add(initiators.submit(() -> hammer(target, nexus, new Random(seed))));
            }
            int good = 0;
            for (Future<Integer> f : results) {
                good += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(good).isGreaterThan(4 * 150);
            LogicalUnit unit = target.unit(0);
            assertThat(unit.rangeLockHeld()).isZero();
        } finally {
            initiators.shutdownNow();
            io.shutdown();
        }
    }

    private static int hammer(ScsiTarget target, ItNexus nexus, Random random) {
        Scsi.ready(target, nexus, 0);
        int good = 0;
        for (int i = 0; i < 200; i++) {
            int lba = random.nextInt(8);
            int blocks = 1 + random.nextInt(3);
            Scsi.Reply r = switch (random.nextInt(5)) {
                case 0 -> run(target, nexus, 0, Scsi.ten(0x2A, 0, lba, blocks), Scsi.pattern(i, blocks * 4096));
                case 1 -> run(target, nexus, 0, CompareAndWriteTest.caw(lba, 1), new byte[2 * 4096]);
                case 2 -> {
                    byte[] list = ProvisioningTest.unmapList(lba, blocks);
                    yield run(target, nexus, 0, ProvisioningTest.unmapCdb(0, list.length), list);
                }
                case 3 -> run(target, nexus, 0, Scsi.ten(0x41, 0, lba, blocks), Scsi.pattern(i, 4096));
                default -> run(target, nexus, 0, Scsi.ten(0x28, 0, lba, blocks), null);
            };
            if (r.status() == ScsiStatus.GOOD) {
                good++;
            } else {
                r.assertCheck(0xE, 0x1D, 0x00);   // only COMPARE AND WRITE may miscompare
            }
        }
        return good;
    }
}
