package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static org.assertj.core.api.Assertions.assertThat;

/** COMPARE AND WRITE (SBC-4 §5.3): compare, write, miscompare offset, limits, atomicity. */
class CompareAndWriteTest {

    static byte[] caw(long lba, int blocks) {
        byte[] c = Scsi.sixteen(0x89, 0, lba, 0);
        c[13] = (byte) blocks;
        return c;
    }

    @Test
    void matchWritesAndMismatchReportsTheOffsetAndWritesNothing() {
        try (Scsi.Unit u = Scsi.Unit.ram("caw", 512, 512, 1 << 20)) {
            byte[] old = Scsi.pattern(1, 1024);
            byte[] fresh = Scsi.pattern(2, 1024);
            u.run(ten(0x2A, 0, 8, 2), old).assertGood();
            Scsi.Reply ok = u.run(caw(8, 2), ReadWriteTest.concat(old, fresh)).assertGood();
            assertThat(ok.transferLength()).isEqualTo(2048);
            assertThat(u.run(ten(0x28, 0, 8, 2), null).data()).isEqualTo(fresh);
            byte[] stale = old.clone();
            Scsi.Reply miss = u.run(caw(8, 2), ReadWriteTest.concat(stale, Scsi.pattern(3, 1024)))
                    .assertCheck(0xE, 0x1D, 0x00);
            int firstDiff = 0;
            while (stale[firstDiff] == fresh[firstDiff]) {
                firstDiff++;
            }
            assertThat(miss.information()).isEqualTo(firstDiff);
            assertThat(u.run(ten(0x28, 0, 8, 2), null).data()).isEqualTo(fresh);
        }
    }

    @Test
    void limitsAndErrors() {
        try (Scsi.Unit u = Scsi.Unit.ram("cawerr", 65536, 65536, 16 << 20)) {
            Scsi.run(u.target(), Scsi.A, 0, caw(0, 0), null, 0).assertGood(); // zero blocks, no data-out: GOOD
            u.run(caw(0, 65), new byte[130 * 65536]).assertCheck(0x5, 0x24, 0x00).assertCdbField(13, 7);
            u.run(caw(255, 2), new byte[4 * 65536]).assertCheck(0x5, 0x21, 0x00);
            u.run(caw(0, 1), new byte[65536]).assertCheck(0x5, 0x0E, 0x03);
            byte[] fua = caw(0, 1);
            fua[1] = 0x08;
            u.run(fua, new byte[2 * 65536]).assertGood();
        }
    }

    /** Two initiators increment a counter in block 0 with read + COMPARE AND WRITE; no increment is lost. */
    @Test
    void concurrentIncrementsNeverLoseAnUpdate() throws Exception {
        try (Scsi.Unit u = Scsi.Unit.ram("counter", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            int perThread = 300;
            CyclicBarrier start = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Integer>> misses = new ArrayList<>();
                for (ItNexus nexus : List.of(A, B)) {
                    misses.add(pool.submit(() -> {
                        start.await();
                        int retries = 0;
                        for (int done = 0; done < perThread; ) {
                            byte[] current = run(u.target(), nexus, 0, ten(0x28, 0, 0, 1), null).assertGood().data();
                            long value = ByteBuffer.wrap(current).getLong();
                            byte[] next = new byte[512];
                            ByteBuffer.wrap(next).putLong(value + 1);
                            Scsi.Reply r = run(u.target(), nexus, 0, caw(0, 1), ReadWriteTest.concat(current, next));
                            if (r.status() == io.blocktarget.protocol.scsi.ScsiStatus.GOOD) {
                                done++;
                            } else {
                                r.assertCheck(0xE, 0x1D, 0x00);
                                retries++;
                            }
                        }
                        return retries;
                    }));
                }
                for (Future<Integer> f : misses) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            byte[] end = u.run(ten(0x28, 0, 0, 1), null).data();
            assertThat(ByteBuffer.wrap(end).getLong()).isEqualTo(2L * perThread);
        }
    }

    /**
     * A WRITE to the same block is in flight (its file I/O held back): COMPARE AND WRITE must wait for
     * it rather than compare against the old contents, then compare against what it wrote.
     */
    @Test
    void compareAndWriteWaitsForAnOverlappingWriteInFlight(@TempDir Path dir) throws Exception {
        HeldExecutor io = new HeldExecutor();
        try (BlockDevice device = FileBlockDevice.open("cawfile", dir.resolve("d.img"), new BlockGeometry(4096, 4096, 16),
                new FileBlockDevice.Options(true, false, false), io)) {
            ScsiTarget target = Scsi.target(device);
            Scsi.ready(target, A, 0);
            Scsi.ready(target, B, 0);
            byte[] x = Scsi.pattern(10, 4096);
            byte[] y = Scsi.pattern(11, 4096);
            io.hold();
            CompletableFuture<Scsi.Reply> write = Scsi.start(target, A, 0, ten(0x2A, 0, 3, 1), x);
            io.awaitHeld();                                        // the WRITE's I/O is held: it holds block 3
            CompletableFuture<Scsi.Reply> cas = Scsi.start(target, B, 0, caw(3, 1), ReadWriteTest.concat(x, y));
            assertThat(cas).as("start returned: the CAW waits for the range lock").isNotDone();
            assertThat(io.submittedWhileHeld()).isZero();          // CAW did not even start reading
            io.release();
            write.get(10, TimeUnit.SECONDS).assertGood();
            cas.get(10, TimeUnit.SECONDS).assertGood();
            assertThat(run(target, A, 0, ten(0x28, 0, 3, 1), null).data()).isEqualTo(y);
            // and a write overlapping a COMPARE AND WRITE in flight waits for it
            io.hold();
            CompletableFuture<Scsi.Reply> cas2 = Scsi.start(target, A, 0, caw(3, 1), ReadWriteTest.concat(y, x));
            io.awaitHeld();                                             // CAW's read is held
            CompletableFuture<Scsi.Reply> write2 = Scsi.start(target, B, 0, ten(0x2A, 0, 3, 1), y);
            assertThat(write2).as("start returned: the WRITE waits for the range lock").isNotDone();
            assertThat(io.submittedWhileHeld()).isZero();
            io.release();
            cas2.get(10, TimeUnit.SECONDS).assertGood();
            write2.get(10, TimeUnit.SECONDS).assertGood();
            assertThat(run(target, A, 0, ten(0x28, 0, 3, 1), null).data()).isEqualTo(y);
        } finally {
            io.release();
        }
    }

    /** Runs I/O on fresh threads, except that while held the first task waits and later ones are counted. */
    static final class HeldExecutor implements Executor {
        private final Object lock = new Object();
        private Runnable held;
        private boolean holding;
        private int submittedWhileHeld;
        private final List<Runnable> queued = new ArrayList<>();

        void hold() {
            synchronized (lock) {
                holding = true;
                submittedWhileHeld = 0;
            }
        }

        void awaitHeld() throws InterruptedException {
            synchronized (lock) {
                while (held == null) {
                    lock.wait(10_000);
                }
            }
        }

        int submittedWhileHeld() {
            synchronized (lock) {
                return submittedWhileHeld;
            }
        }

        void release() {
            List<Runnable> run = new ArrayList<>();
            synchronized (lock) {
                holding = false;
                if (held != null) {
                    run.add(held);
                    held = null;
                }
                run.addAll(queued);
                queued.clear();
            }
            run.forEach(r -> Thread.ofPlatform().start(r));
        }

        @Override
        public void execute(Runnable task) {
            synchronized (lock) {
                if (holding) {
                    if (held == null) {
                        held = task;
                        lock.notifyAll();
                    } else {
                        submittedWhileHeld++;
                        queued.add(task);
                    }
                    return;
                }
            }
            Thread.ofPlatform().start(task);
        }
    }
}
