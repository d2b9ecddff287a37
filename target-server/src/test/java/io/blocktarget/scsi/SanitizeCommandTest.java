package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.ten;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SANITIZE (SBC-4 §4.11, §5.30): real erasure on the RAM disk, the parameter checks, the read-only and
 * reservation rules, and — with a backend whose unmaps are held until the test releases them — the
 * in-progress state with its progress indication and the failed state.
 */
class SanitizeCommandTest {
    private static final int OVERWRITE = 0x01, BLOCK_ERASE = 0x02, CRYPTO_ERASE = 0x03, EXIT_FAILURE_MODE = 0x1F;
    private static final int IMMED = 0x80, AUSE = 0x20, READ_10 = 0x28, WRITE_10 = 0x2A;

    static byte[] sanitize(int flagsAndSa, int length) {
        return cdb(0x48, flagsAndSa, 0, 0, 0, 0, 0, length >> 8, length, 0);
    }

    static byte[] overwriteList(int byte0, byte... pattern) {
        byte[] list = new byte[4 + pattern.length];
        list[0] = (byte) byte0;
        list[2] = (byte) (pattern.length >> 8);
        list[3] = (byte) pattern.length;
        System.arraycopy(pattern, 0, list, 4, pattern.length);
        return list;
    }

    @Test
    void blockEraseAndCryptographicEraseFreeEveryChunkAndReadZeros() {
        for (int sa : new int[] {BLOCK_ERASE, CRYPTO_ERASE}) {
            try (Scsi.Unit u = Scsi.Unit.ram("erase", 4096, 4096, 4 << 20)) {
                u.run(ten(WRITE_10, 0, 0, 1024), Scsi.pattern(sa, 1024 * 4096)).assertGood();
                assertThat(u.ram().allocatedBytes()).isEqualTo(4 << 20);
                u.run(sanitize(sa, 0), null).assertGood();
                assertThat(u.ram().allocatedBytes()).as("sa %d", sa).isZero();
                assertThat(u.run(ten(READ_10, 0, 0, 1024), null).data()).isEqualTo(new byte[1024 * 4096]);
            }
        }
    }

    @Test
    void overwriteRepeatsThePatternInEveryBlockAndInvertsBetweenPasses() {
        try (Scsi.Unit u = Scsi.Unit.ram("ow", 512, 512, 1 << 20)) {
            byte[] list = overwriteList(0x80 | 2, (byte) 0xA5, (byte) 0x0F, (byte) 0x01); // INVERT, 2 passes
            Scsi.Reply r = u.run(sanitize(OVERWRITE, list.length), list).assertGood();
            assertThat(r.transferLength()).isEqualTo(list.length);
            byte[] block = new byte[512];
            for (int i = 0; i < 512; i++) {
                block[i] = (byte) ~new byte[] {(byte) 0xA5, 0x0F, 0x01}[i % 3]; // the last (second) pass is inverted
            }
            byte[] all = u.run(ten(READ_10, 0, 0, 2048), null).data();
            for (int lba = 0; lba < 2048; lba += 511) {
                assertThat(Arrays.copyOfRange(all, lba * 512, lba * 512 + 512)).as("lba %d", lba).isEqualTo(block);
            }
            // a zero pattern is a write-zeroes: the memory goes back to the budget
            assertThat(u.ram().allocatedBytes()).isEqualTo(1 << 20);
            byte[] zeros = overwriteList(1, (byte) 0);
            u.run(sanitize(OVERWRITE, zeros.length), zeros).assertGood();
            assertThat(u.ram().allocatedBytes()).isZero();
            assertThat(u.run(ten(READ_10, 0, 7, 1), null).data()).isEqualTo(new byte[512]);
        }
    }

    @Test
    void parameterErrors() {
        try (Scsi.Unit u = Scsi.Unit.ram("owerr", 512, 512, 1 << 20)) {
            u.run(sanitize(BLOCK_ERASE, 4), new byte[4]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sanitize(EXIT_FAILURE_MODE, 1), new byte[1]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sanitize(OVERWRITE, 4), new byte[4]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sanitize(OVERWRITE, 517), new byte[517]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            byte[] full = overwriteList(1, new byte[512]);                               // LBS + 4: allowed
            u.run(sanitize(OVERWRITE, full.length), full).assertGood();
            byte[] noCount = overwriteList(0, (byte) 1);
            u.run(sanitize(OVERWRITE, noCount.length), noCount).assertCheck(0x5, 0x26, 0x00).assertParameterField(0, 4);
            byte[] test = overwriteList(0x41, (byte) 1);
            u.run(sanitize(OVERWRITE, test.length), test).assertCheck(0x5, 0x26, 0x00).assertParameterField(0, 6);
            byte[] ok = overwriteList(1, (byte) 1);
            u.run(sanitize(OVERWRITE, ok.length), new byte[2]).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sanitize(0x04, 0), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4);
            u.run(sanitize(EXIT_FAILURE_MODE, 0), null).assertGood();                  // nothing to exit
        }
    }

    @Test
    void readOnlyUnitIsDataProtectAndOtherNexusesMeetReservationConflict() {
        try (Scsi.Unit ro = Scsi.Unit.of(new RamBlockDevice("ro", new BlockGeometry(512, 512, 64), true,
                new MemoryBudget(1 << 20)))) {
            ro.run(sanitize(BLOCK_ERASE, 0), null).assertCheck(0x7, 0x27, 0x00);
        }
        try (Scsi.Unit u = Scsi.Unit.ram("pr", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            Scsi.run(u.target(), A, 0, ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24),
                    ReservationsTest.params(0, 0xAAL, 0)).assertGood();
            Scsi.run(u.target(), A, 0, ReservationsTest.prOut(ReservationsTest.RESERVE, ReservationsTest.WE, 24),
                    ReservationsTest.params(0xAAL, 0, 0)).assertGood();
            Scsi.Reply conflict = Scsi.run(u.target(), B, 0, sanitize(BLOCK_ERASE, 0), null);
            assertThat(conflict.status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            u.run(sanitize(BLOCK_ERASE, 0), null).assertGood();                         // the holder may
        }
        try (Scsi.Unit u = Scsi.Unit.ram("r6", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            u.run(cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();                         // RESERVE(6) by A
            assertThat(Scsi.run(u.target(), B, 0, sanitize(BLOCK_ERASE, 0), null).status())
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        }
    }

    /** 4 GiB, 512-byte blocks: an erase sweeps it in four 1 GiB unmaps, each held until released. */
    private static Held held() {
        return new Held(new RamBlockDevice("held", new BlockGeometry(512, 512, (4L << 30) / 512), false,
                new MemoryBudget(1 << 20)));
    }

    /** Fixed-format sense returned by REQUEST SENSE: key, ASC, ASCQ, and the SKS bytes 15-17. */
    private static int[] requestSense(Scsi.Unit u) {
        byte[] s = u.run(Scsi.requestSense(false, 18), null).assertGood().data();
        return new int[] {s[2] & 0x0F, s[12] & 0xFF, s[13] & 0xFF, (s[15] & 0xFF) << 16 | (s[16] & 0xFF) << 8 | s[17] & 0xFF};
    }

    @Test
    void immedReturnsAtOnceThenCommandsAreNotReadyWithProgressUntilTheEraseEnds() {
        Held device = held();
        try (Scsi.Unit u = Scsi.Unit.of(device)) {
            u.run(ten(WRITE_10, 0, 0, 8), Scsi.pattern(9, 4096)).assertGood();
            device.holding = true;
            u.run(sanitize(IMMED | BLOCK_ERASE, 0), null).assertGood();
            assertThat(device.held).hasSize(1);
            Scsi.Reply read = u.run(ten(READ_10, 0, 0, 1), null).assertCheck(0x2, 0x04, 0x1B);
            assertThat(read.senseKeySpecific()).isEqualTo(0x80_0000);                   // SKSV, progress 0
            u.run(Scsi.testUnitReady(), null).assertCheck(0x2, 0x04, 0x1B);
            u.run(sanitize(BLOCK_ERASE, 0), null).assertCheck(0x2, 0x04, 0x1B);
            u.run(Scsi.inquiry(false, 0, 96), null).assertGood();
            u.run(Scsi.reportLuns(64), null).assertGood();
            assertThat(requestSense(u)).containsExactly(0x2, 0x04, 0x1B, 0x80_0000);
            device.releaseOne();
            assertThat(requestSense(u)).containsExactly(0x2, 0x04, 0x1B, 0x80_4000);    // 1/4 done
            device.releaseOne();
            device.releaseOne();
            assertThat(requestSense(u)).containsExactly(0x2, 0x04, 0x1B, 0x80_C000);
            device.releaseOne();
            assertThat(device.held).isEmpty();
            assertThat(requestSense(u)).containsExactly(0x0, 0x00, 0x00, 0);            // NO SENSE
            assertThat(u.run(ten(READ_10, 0, 0, 8), null).assertGood().data()).isEqualTo(new byte[4096]);
        }
    }

    @Test
    void withoutImmedTheCommandCompletesWhenTheEraseDoes() {
        Held device = held();
        try (Scsi.Unit u = Scsi.Unit.of(device)) {
            device.holding = true;
            java.util.concurrent.CompletableFuture<Scsi.Reply> sanitize =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> u.run(sanitize(BLOCK_ERASE, 0), null));
            while (device.heldCount() == 0) {
                Thread.onSpinWait();
            }
            assertThat(sanitize).isNotDone();
            for (int i = 0; i < 4; i++) {
                while (device.heldCount() == 0) {
                    Thread.onSpinWait();
                }
                device.releaseOne();
            }
            sanitize.join().assertGood();
        }
    }

    @Test
    void aFailedSanitizeRefusesMediumAccessUntilOneSucceedsOrExitFailureModeWhenAllowed() {
        Held device = held();
        try (Scsi.Unit u = Scsi.Unit.of(device)) {
            device.holding = true;
            u.run(sanitize(IMMED | BLOCK_ERASE, 0), null).assertGood();
            device.failOne();
            u.run(ten(READ_10, 0, 0, 1), null).assertCheck(0x3, 0x31, 0x03);            // MEDIUM ERROR, SANITIZE FAILED
            u.run(ten(WRITE_10, 0, 0, 1), new byte[512]).assertCheck(0x3, 0x31, 0x03);
            u.run(Scsi.testUnitReady(), null).assertGood();
            u.run(sanitize(EXIT_FAILURE_MODE, 0), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4); // AUSE was 0
            device.holding = false;
            u.run(sanitize(BLOCK_ERASE, 0), null).assertGood();                         // a successful one clears it
            u.run(ten(READ_10, 0, 0, 1), null).assertGood();
            device.holding = true;
            u.run(sanitize(AUSE | IMMED | CRYPTO_ERASE, 0), null).assertGood();
            device.failOne();
            u.run(ten(READ_10, 0, 0, 1), null).assertCheck(0x3, 0x31, 0x03);
            u.run(sanitize(EXIT_FAILURE_MODE, 0), null).assertGood();
            u.run(ten(READ_10, 0, 0, 1), null).assertGood();
            // without IMMED the failure is the command's own status
            java.util.concurrent.CompletableFuture<Scsi.Reply> failing =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> u.run(sanitize(BLOCK_ERASE, 0), null));
            while (device.heldCount() == 0) {
                Thread.onSpinWait();
            }
            device.failOne();
            failing.join().assertCheck(0x3, 0x31, 0x03);
            u.run(ten(READ_10, 0, 0, 1), null).assertCheck(0x3, 0x31, 0x03);
        }
    }

    @Test
    void theCopyManagerOfAnotherUnitMeetsTheSanitizeState() {
        Held device = held();
        RamBlockDevice other = Scsi.ram("xc-src", 512, 512, 1 << 20);
        ScsiTarget target = Scsi.target(other, device);
        try {
            Scsi.ready(target, A, 0);
            Scsi.ready(target, A, 1);
            byte[][] cscds = new byte[2][];
            for (int lun = 0; lun < 2; lun++) {
                byte[] vpd = Scsi.run(target, A, lun, Scsi.inquiry(true, 0x83, 512), null).assertGood().data();
                cscds[lun] = ExtendedCopyTest.cscd(Arrays.copyOfRange(vpd, 8, 24), 512);
            }
            byte[] into = ExtendedCopyTest.list(0, 0x18, cscds, ExtendedCopyTest.segment(0, 1, 1, 0, 0));
            byte[] from = ExtendedCopyTest.list(0, 0x18, cscds, ExtendedCopyTest.segment(1, 0, 1, 0, 0));
            device.holding = true;
            Scsi.run(target, A, 1, sanitize(IMMED | BLOCK_ERASE, 0), null).assertGood();
            // LU 0's copy manager may neither write into nor read from LU 1 while it is sanitized
            Scsi.run(target, A, 0, ExtendedCopyTest.xcopy(into.length), into).assertCheck(0x2, 0x04, 0x1B);
            Scsi.run(target, A, 0, ExtendedCopyTest.xcopy(from.length), from).assertCheck(0x2, 0x04, 0x1B);
            device.failOne();
            Scsi.run(target, A, 0, ExtendedCopyTest.xcopy(into.length), into).assertCheck(0x3, 0x31, 0x03);
            device.holding = false;
            Scsi.run(target, A, 1, sanitize(BLOCK_ERASE, 0), null).assertGood();
            Scsi.run(target, A, 0, ExtendedCopyTest.xcopy(into.length), into).assertGood();
        } finally {
            other.close();
            device.close();
        }
    }

    @Test
    void eraseAndOverwriteReachTheFileOfAFileBackedUnit(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("s.img");
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (Scsi.Unit u = Scsi.Unit.of(FileBlockDevice.open("file", path, new BlockGeometry(4096, 4096, 64),
                new FileBlockDevice.Options(true, false, false), io))) {
            u.run(ten(WRITE_10, 0, 0, 64), Scsi.pattern(4, 64 * 4096)).assertGood();
            u.run(Scsi.ten(0x35, 0, 0, 0), null).assertGood();                        // SYNCHRONIZE CACHE
            u.run(sanitize(BLOCK_ERASE, 0), null).assertGood();
            assertThat(Files.readAllBytes(path)).isEqualTo(new byte[64 * 4096]);     // on disk, not just reads
            byte[] list = overwriteList(3, (byte) 0x5A, (byte) 0xC3);
            u.run(sanitize(OVERWRITE, list.length), list).assertGood();
            byte[] expected = new byte[64 * 4096];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = (byte) ((i & 1) == 0 ? 0x5A : 0xC3);
            }
            u.run(Scsi.ten(0x35, 0, 0, 0), null).assertGood();
            assertThat(Files.readAllBytes(path)).isEqualTo(expected);
            assertThat(u.run(ten(READ_10, 0, 63, 1), null).data()).isEqualTo(Arrays.copyOf(expected, 4096));
        } finally {
            io.shutdown();
        }
    }

    /**
     * After BLOCK ERASE (and CRYPTOGRAPHIC ERASE) the Block Device Characteristics VPD's promise holds — WABEREQ /
     * WACEREQ 01b: reads complete with GOOD status (zeros, LBPRZ = 1) — and GET LBA STATUS reports the whole medium
     * deallocated, the first and last blocks written before included.
     */
    @Test
    void afterAnEraseReadsAreGoodAndEveryBlockIsDeallocated() {
        for (int sa : new int[] {BLOCK_ERASE, CRYPTO_ERASE}) {
            try (Scsi.Unit u = Scsi.Unit.ram("wabereq", 4096, 16384, 64 << 20)) {
                long blocks = u.device().geometry().blockCount();
                byte[] b1 = u.run(Scsi.inquiry(true, 0xB1, 64), null).assertGood().data();
                assertThat((b1[7] >> (sa == BLOCK_ERASE ? 6 : 4)) & 0x3).as("WABEREQ / WACEREQ").isEqualTo(1);
                u.run(Scsi.sixteen(0x8A, 0, 0, 256), Scsi.pattern(1, 256 * 4096)).assertGood();
                u.run(Scsi.sixteen(0x8A, 0, blocks - 256, 256), Scsi.pattern(2, 256 * 4096)).assertGood();
                u.run(sanitize(sa, 0), null).assertGood();
                assertThat(u.run(Scsi.sixteen(0x88, 0, 0, 256), null).assertGood().data())
                        .isEqualTo(new byte[256 * 4096]);
                assertThat(u.run(Scsi.sixteen(0x88, 0, blocks - 256, 256), null).assertGood().data())
                        .isEqualTo(new byte[256 * 4096]);
                assertThat(u.run(GetLbaStatusTest.getLbaStatus(0, 256), null).assertGood().data())
                        .isEqualTo(GetLbaStatusTest.data(20, 0, blocks, 1));                  // one extent, deallocated
            }
        }
    }

    private static final long SECOND = 1_000_000_000L;

    /** A unit with {@code sanitize-duration: 10s} on a manual clock; A and B past their POWER ON. */
    private static ScsiTarget paced(RamBlockDevice device, ManualClock clock) {
        ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, device.name(),
                device, new io.blocktarget.block.lun.LunState(device.name(), null, java.util.Optional.empty(), clock),
                io.blocktarget.config.LunFeatures.NONE.withKnobs(io.blocktarget.config.DeviceKnobs.DEFAULTS
                        .withSanitizeDurationNanos(java.util.Optional.of(10 * SECOND)))))).get(Scsi.TARGET);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        return target;
    }

    private static int[] requestSense(ScsiTarget target, ItNexus nexus) {
        byte[] s = Scsi.run(target, nexus, 0, Scsi.requestSense(false, 18), null).assertGood().data();
        return new int[] {s[2] & 0x0F, s[12] & 0xFF, s[13] & 0xFF, (s[15] & 0xFF) << 16 | (s[16] & 0xFF) << 8 | s[17] & 0xFF};
    }

    @Test
    void aSanitizeDurationKeepsTheUnitNotReadyWithProgressUntilItHasPassed() {
        ManualClock pacer = new ManualClock();
        RamBlockDevice device = Scsi.ram("paced", 4096, 4096, 4 << 20);
        ScsiTarget target = paced(device, pacer);
        try {
            Scsi.run(target, A, 0, ten(WRITE_10, 0, 0, 1), Scsi.pattern(3, 4096)).assertGood();
            Scsi.run(target, A, 0, sanitize(IMMED | BLOCK_ERASE, 0), null).assertGood();
            assertThat(requestSense(target, B)).containsExactly(0x2, 0x04, 0x1B, 0x80_0000);  // swept, no time yet
            pacer.advanceNanos(10 * SECOND / 4);
            assertThat(requestSense(target, B)).containsExactly(0x2, 0x04, 0x1B, 0x80_4000);  // a quarter
            Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x2, 0x04, 0x1B);
            Scsi.run(target, A, 0, ten(READ_10, 0, 0, 1), null).assertCheck(0x2, 0x04, 0x1B);
            pacer.advanceNanos(10 * SECOND / 2);
            assertThat(requestSense(target, A)).containsExactly(0x2, 0x04, 0x1B, 0x80_C000);
            pacer.advanceNanos(10 * SECOND / 4 - 1);
            Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x2, 0x04, 0x1B);  // 1 ns short
            pacer.advanceNanos(1);
            assertThat(pacer.pending()).isZero();
            Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
            assertThat(Scsi.run(target, A, 0, ten(READ_10, 0, 0, 1), null).assertGood().data()).isEqualTo(new byte[4096]);
            // without IMMED the command's own status waits for the duration
            java.util.concurrent.CompletableFuture<Scsi.Reply> waiting = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> Scsi.run(target, A, 0, sanitize(CRYPTO_ERASE, 0), null));
            while (pacer.pending() == 0) {
                Thread.onSpinWait();
            }
            assertThat(waiting).isNotDone();
            pacer.advanceNanos(10 * SECOND);
            waiting.join().assertGood();
        } finally {
            device.close();
        }
    }

    /**
     * SBC-4 §4.11: the operation survives what ends the command — ABORT TASK, a logical unit reset, the loss of the
     * nexus that sent it. Each function completes at once (it does not wait for the medium), the unit stays NOT READY,
     * SANITIZE IN PROGRESS for every nexus — a nexus that comes back meets its unit attention first (SAM-5 §5.14) —
     * and becomes ready when the duration has passed.
     */
    @Test
    void theOperationGoesOnThroughAbortResetAndNexusLoss() {
        for (TaskManagementFunction function : new TaskManagementFunction[] {TaskManagementFunction.ABORT_TASK,
                TaskManagementFunction.LOGICAL_UNIT_RESET, TaskManagementFunction.TARGET_RESET, null}) {
            ManualClock pacer = new ManualClock();
            RamBlockDevice device = Scsi.ram("survives", 4096, 4096, 4 << 20);
            ScsiTarget target = paced(device, pacer);
            try {
                java.util.concurrent.CompletableFuture<Scsi.Reply> command = java.util.concurrent.CompletableFuture
                        .supplyAsync(() -> Scsi.run(target, A, 0, sanitize(BLOCK_ERASE, 0), null));
                while (pacer.pending() == 0) {
                    Thread.onSpinWait();
                }
                java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
                if (function == null) {
                    target.nexusLost(A);
                    done.set(true);
                } else {
                    ItNexus requester = function == TaskManagementFunction.ABORT_TASK ? A : B;
                    target.taskManagement(function, requester, 0, 1, () -> done.set(true));
                }
                assertThat(done).as("%s completes without waiting for the medium", function).isTrue();
                command.join().assertCheck(0x2, 0x04, 0x1B);     // ended (the transport would send nothing)
                assertThat(target.unit(0).tasksInExecution()).isZero();
                for (ItNexus n : List.of(A, B)) {
                    Scsi.Reply r = Scsi.run(target, n, 0, Scsi.testUnitReady(), null);
                    if (r.senseKey() == 0x6) {                       // a reset's or a new nexus's unit attention
                        r = Scsi.run(target, n, 0, Scsi.testUnitReady(), null);
                    }
                    r.assertCheck(0x2, 0x04, 0x1B);
                }
                pacer.advanceNanos(10 * SECOND);
                Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
                assertThat(device.allocatedBytes()).isZero();
            } finally {
                device.close();
            }
        }
    }

    /** A RAM disk whose unmaps wait in a queue while {@link #holding}; the test completes them. */
    static final class Held implements BlockDevice {
        private final RamBlockDevice ram;
        volatile boolean holding;
        final Queue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final Queue<IoCallback<Void>> callbacks = new java.util.concurrent.ConcurrentLinkedQueue<>();

        Held(RamBlockDevice ram) {
            this.ram = ram;
        }

        int heldCount() {
            return held.size();
        }

        void releaseOne() {
            callbacks.poll();
            held.poll().run();
        }

        void failOne() {
            held.poll();
            callbacks.poll().complete(null, new BlockIoException(BlockError.WRITE_ERROR, "held unmap failed"));
        }

        @Override
        public String name() {
            return ram.name();
        }

        @Override
        public BlockGeometry geometry() {
            return ram.geometry();
        }

        @Override
        public boolean readOnly() {
            return false;
        }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            ram.read(lba, blockCount, callback);
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            ram.write(lba, data, fua, callback);
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            ram.flush(callback);
        }

        @Override
        public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
            if (!holding) {
                ram.unmap(ranges, callback);
                return;
            }
            callbacks.add(callback);
            held.add(() -> ram.unmap(ranges, callback));
        }

        @Override
        public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
            ram.writeZeroes(lba, blockCount, callback);
        }

        @Override
        public void close() {
            ram.close();
        }
    }
}
