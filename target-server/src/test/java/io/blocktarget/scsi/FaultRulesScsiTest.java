package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault rules as a SCSI initiator meets them (issue 11): CHECK CONDITION with the sense a rule names and the
 * INFORMATION field = the first LBA in the range (SPC-5 §4.4.2.1), BUSY / TASK SET FULL statuses (SAM-5 §5.3.1), a
 * recoverable error, delays, held commands that task management and nexus loss release, and the device-level
 * outcomes (a flipped bit, a torn write).
 */
class FaultRulesScsiTest {
    private static final int LBS = 4096;
    private static final int READ_10 = 0x28;
    private static final int WRITE_10 = 0x2A;

    private final ManualClock clock = new ManualClock();
    private final LunState state = new LunState("faulty", null, java.util.Optional.empty(), clock);
    private final LunFaults faults = state.faults();
    private final BlockDevice ram = Scsi.ram("faulty", LBS, LBS, 2048L * LBS);
    private final BlockDevice device = FaultBlockDevice.wrap(ram, faults);
    private final ScsiTarget target = ScsiTargetDevices.createTargets(List.of(
            new LogicalUnitSpec(Scsi.TARGET, 0, "faulty", device, state))).get(Scsi.TARGET);

    FaultRulesScsiTest() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        target.attach(A, (scope, stopped) -> stopped.accept(0));
    }

    @AfterEach
    void tearDown() {
        assertThat(target.unit(0).tasksInExecution()).as("tasks left").isZero();
        assertThat(faults.holds().size()).as("held commands left").isZero();
        // issue 27: every exit path ran the task's completion function (the LUN step) once
        assertThat(state.inFlight().count()).as("commands left in flight").isZero();
        device.close();
    }

    private Scsi.Reply read(ItNexus nexus, long lba, int blocks) {
        return Scsi.run(target, nexus, 0, Scsi.ten(READ_10, 0, lba, blocks), null);
    }

    private Scsi.Reply write(long lba, byte[] data) {
        return Scsi.run(target, A, 0, Scsi.ten(WRITE_10, 0, lba, data.length / LBS), data);
    }

    private void add(String id, FaultMatch match, FaultTrigger trigger, FaultAction action) {
        faults.add(new FaultRule(id, match, trigger, action));
    }

    private static FaultAction fail(FaultStatus.Condition condition) {
        return new FaultAction.Fail(FaultStatus.of(condition));
    }

    @Test
    void mediumErrorOnARangeIsUnrecoveredReadErrorWithTheFirstBadLbaInInformation() {
        add("bad", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(1000, 1099), new FaultTrigger.Always(),
                fail(FaultStatus.Condition.MEDIUM_ERROR));
        read(A, 990, 10).assertGood();
        Scsi.Reply r = read(A, 995, 10).assertCheck(0x3, 0x11, 0x00);
        assertThat(r.information()).isEqualTo(1000);
        assertThat(read(A, 1099, 1).assertCheck(0x3, 0x11, 0x00).information()).isEqualTo(1099);
        read(A, 1100, 8).assertGood();
        write(1000, new byte[LBS]).assertGood(); // ops: read only
        assertThat(faults.rules().getFirst().hits()).isEqualTo(2);
    }

    @Test
    void mediumErrorOnAWriteIsWriteError() {
        add("w", FaultMatch.ANY.withLbas(5, 5), new FaultTrigger.Always(), fail(FaultStatus.Condition.MEDIUM_ERROR));
        assertThat(write(4, new byte[2 * LBS]).assertCheck(0x3, 0x0C, 0x00).information()).isEqualTo(5);
        assertThat(Scsi.run(target, A, 0, Scsi.ten(READ_10, 0, 4, 1), null).assertGood().data())
                .as("the write did not happen").isEqualTo(new byte[LBS]);
    }

    @Test
    void busyTaskSetFullNotReadyAndAbortedCommand() {
        add("b", FaultMatch.ANY.withLbas(1, 1), new FaultTrigger.Always(), fail(FaultStatus.Condition.BUSY));
        add("t", FaultMatch.ANY.withLbas(2, 2), new FaultTrigger.Always(), fail(FaultStatus.Condition.TASK_SET_FULL));
        add("n", FaultMatch.ANY.withLbas(3, 3), new FaultTrigger.Always(), fail(FaultStatus.Condition.NOT_READY));
        add("a", FaultMatch.ANY.withLbas(4, 4), new FaultTrigger.Always(), fail(FaultStatus.Condition.ABORTED));
        Scsi.Reply busy = read(A, 1, 1);
        assertThat(busy.status()).isEqualTo(ScsiStatus.BUSY);
        assertThat(busy.sense()).as("no sense data with BUSY").isNull();
        assertThat(read(A, 2, 1).status()).isEqualTo(ScsiStatus.TASK_SET_FULL);
        read(A, 3, 1).assertCheck(0x2, 0x04, 0x00);
        read(A, 4, 1).assertCheck(0xB, 0x00, 0x00);
    }

    @Test
    void explicitSenseIsSentAsGiven() {
        add("s", FaultMatch.ANY.withLbas(7, 8), new FaultTrigger.Always(),
                new FaultAction.Fail(new FaultStatus(FaultStatus.Condition.EXPLICIT, 0x4, 0x44, 0x00, -1, 0)));
        assertThat(read(A, 0, 8).assertCheck(0x4, 0x44, 0x00).information()).isEqualTo(7);
    }

    @Test
    void aRuleForOneInitiatorLeavesTheOtherAlone() {
        add("b-only", FaultMatch.ANY.withInitiator("iqn.2026-11.test:host-b"), new FaultTrigger.Always(),
                fail(FaultStatus.Condition.NOT_READY));
        read(A, 0, 1).assertGood();
        read(B, 0, 1).assertCheck(0x2, 0x04, 0x00);
    }

    /** Issue 13: a rule of kind zone-management fails ZBC OUT and REPORT ZONES (ZBC-2 §5) and leaves writes alone. */
    @Test
    void zoneManagementRulesSelectTheZbcCommands() {
        LunState zonedState = new LunState("zoned");
        BlockDevice zoned = FaultBlockDevice.wrap(new ZonedBlockDevice(Scsi.ram("zoned", LBS, LBS, 64L * LBS),
                ZoneLayout.of(16, 16)), zonedState.faults());
        ScsiTarget zonedTarget = ScsiTargetDevices.createTargets(List.of(
                new LogicalUnitSpec(Scsi.TARGET, 0, "zoned", zoned, zonedState))).get(Scsi.TARGET);
        Scsi.ready(zonedTarget, A, 0);
        zonedState.faults().add(new FaultRule("zm", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.ZONE_MANAGEMENT)),
                new FaultTrigger.Always(), fail(FaultStatus.Condition.NOT_READY)));
        byte[] reset = java.nio.ByteBuffer.allocate(16).put((byte) 0x94).put((byte) 0x04).putLong(16).array();
        byte[] report = java.nio.ByteBuffer.allocate(16).put((byte) 0x95).put((byte) 0x00).putLong(0).putInt(4096)
                .array();
        Scsi.run(zonedTarget, A, 0, reset, null).assertCheck(0x2, 0x04, 0x00);
        Scsi.run(zonedTarget, A, 0, report, null).assertCheck(0x2, 0x04, 0x00);
        Scsi.run(zonedTarget, A, 0, Scsi.ten(WRITE_10, 0, 16, 1), new byte[LBS]).assertGood();
        assertThat(zoned.zones().orElseThrow().zone(1).writePointer()).isEqualTo(17);
        zoned.close();
    }

    @Test
    void opcodeSelectsTheCommand() {
        add("r16", FaultMatch.ANY.withOpcodes(java.util.Set.of(0x88), java.util.Set.of()), new FaultTrigger.Always(),
                fail(FaultStatus.Condition.MEDIUM_ERROR));
        read(A, 0, 1).assertGood();
        Scsi.run(target, A, 0, Scsi.sixteen(0x88, 0, 0, 1), null).assertCheck(0x3, 0x11, 0x00);
    }

    @Test
    void oncePerLbaFailsTheFirstReadThenHeals() {
        add("once", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(1000, 1099),
                new FaultTrigger.OncePerLba(), fail(FaultStatus.Condition.MEDIUM_ERROR));
        assertThat(read(A, 1000, 100).assertCheck(0x3, 0x11, 0x00).information()).isEqualTo(1000);
        read(A, 1000, 100).assertGood();
    }

    @Test
    void firstNFailsNThenPasses() {
        add("first2", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)), new FaultTrigger.FirstN(2),
                fail(FaultStatus.Condition.MEDIUM_ERROR));
        read(A, 0, 1).assertCheck(0x3, 0x11, 0x00);
        read(A, 0, 1).assertCheck(0x3, 0x11, 0x00);
        read(A, 0, 1).assertGood();
    }

    @Test
    void aDelayedCommandCompletesNoSoonerThanTheDelay() {
        byte[] data = Scsi.pattern(9, LBS);
        write(3, data).assertGood();
        add("slow", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)), new FaultTrigger.Always(),
                new FaultAction.Delay(TimeUnit.MILLISECONDS.toNanos(200), 0));
        CompletableFuture<ScsiResponse> delayed = submit(A, 1, 3);
        assertThat(delayed).as("waits on the LUN's clock").isNotDone();
        assertThat(target.unit(0).tasksInExecution()).isEqualTo(1);
        clock.advance(199, TimeUnit.MILLISECONDS);
        assertThat(delayed).as("1 ms early").isNotDone();
        clock.advance(1, TimeUnit.MILLISECONDS);   // runs the command on this thread (a RAM disk completes inline)
        assertThat(delayed).isCompletedWithValueMatching(r -> r.status() == ScsiStatus.GOOD);
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aThrottledLunStartsCommandsNoFasterThanItsIops() {
        add("slow", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)), new FaultTrigger.Always(),
                new FaultAction.Throttle(10, 0));
        List<CompletableFuture<ScsiResponse>> reads = List.of(submit(A, 1, 0), submit(A, 2, 1), submit(A, 3, 2));
        assertThat(reads.get(0)).as("the first slot is free").isDone();
        assertThat(reads.get(1)).isNotDone();
        write(0, new byte[LBS]).assertGood(); // not a read: not throttled
        clock.advance(99, TimeUnit.MILLISECONDS);
        assertThat(reads.get(1)).as("10 IOPS: 100 ms apart").isNotDone();
        clock.advance(1, TimeUnit.MILLISECONDS);
        assertThat(reads.get(1)).isDone();
        assertThat(reads.get(2)).isNotDone();
        clock.advance(100, TimeUnit.MILLISECONDS);
        assertThat(reads).allSatisfy(r -> assertThat(r).isCompletedWithValueMatching(x -> x.status() == ScsiStatus.GOOD));
        assertThat(clock.pending()).isZero();
    }

    /** A command whose completion the test keeps. */
    private CompletableFuture<ScsiResponse> submit(ItNexus nexus, long tag, long lba) {
        CompletableFuture<ScsiResponse> done = new CompletableFuture<>();
        ByteBuf cdb = Unpooled.wrappedBuffer(Arrays.copyOf(Scsi.ten(READ_10, 0, lba, 1), 16));
        target.execute(ScsiCommand.of(nexus, 0, cdb, TaskAttribute.SIMPLE, tag, LBS, null), r -> {
            assertThat(done.complete(r)).as("completed once").isTrue();
            if (r.dataIn() != null) {
                r.dataIn().release();
            }
            if (r.senseData() != null) {
                r.senseData().release();
            }
        });
        cdb.release();
        return done;
    }

    @Test
    void noResponseHoldsTheCommandUntilAbortTaskReleasesIt() {
        add("hang", FaultMatch.ANY.withLbas(50, 50), new FaultTrigger.Always(), new FaultAction.NoResponse());
        CompletableFuture<ScsiResponse> held = submit(A, 7, 50);
        CompletableFuture<ScsiResponse> other = submit(A, 8, 50);
        assertThat(held).isNotDone();
        assertThat(faults.holds().size()).isEqualTo(2);
        assertThat(target.unit(0).tasksInExecution()).isEqualTo(2);
        AtomicInteger functionComplete = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.ABORT_TASK, A, 0, 7, functionComplete::incrementAndGet);
        assertThat(functionComplete).as("ABORT TASK answered").hasValue(1);
        assertThat(held).isDone();
        assertThat(other).as("tag 8 is still held").isNotDone();
        assertThat(faults.holds().size()).isEqualTo(1);
        read(A, 51, 1).assertGood();
        target.taskManagement(TaskManagementFunction.LOGICAL_UNIT_RESET, A, 0, TaskScope.ANY,
                functionComplete::incrementAndGet);
        assertThat(functionComplete).as("LOGICAL UNIT RESET answered").hasValue(2);
        assertThat(other).isDone();
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
    }

    @Test
    void nexusLossReleasesItsHeldCommands() {
        add("hang", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.NoResponse());
        CompletableFuture<ScsiResponse> a = submit(A, 1, 0);
        CompletableFuture<ScsiResponse> b = submit(B, 1, 0);
        target.nexusLost(A);
        assertThat(a).isDone();
        assertThat(b).isNotDone();
        target.nexusLost(B);
        assertThat(b).isDone();
    }

    @Test
    void corruptedReadDataDiffersInOneBit() {
        byte[] data = Scsi.pattern(3, 4 * LBS);
        write(100, data).assertGood();
        add("flip", FaultMatch.ANY.withLbas(101, 101), new FaultTrigger.Always(), new FaultAction.CorruptRead());
        byte[] got = read(A, 100, 4).assertGood().data();
        int bits = 0;
        for (int i = 0; i < got.length; i++) {
            bits += Integer.bitCount((got[i] ^ data[i]) & 0xFF);
        }
        assertThat(bits).isEqualTo(1);
        assertThat(got[LBS + LBS / 2]).isNotEqualTo(data[LBS + LBS / 2]);
    }

    @Test
    void aTornWriteIsAWriteErrorWithOnlyItsPrefixWritten() {
        add("torn", FaultMatch.ANY, new FaultTrigger.FirstN(1), new FaultAction.TornWrite(1));
        byte[] data = Scsi.pattern(4, 3 * LBS);
        write(200, data).assertCheck(0x3, 0x0C, 0x00);
        byte[] now = read(A, 200, 3).assertGood().data();
        assertThat(Arrays.copyOf(now, LBS)).isEqualTo(Arrays.copyOf(data, LBS));
        assertThat(Arrays.copyOfRange(now, LBS, 3 * LBS)).isEqualTo(new byte[2 * LBS]);
    }

    @Test
    void removingTheRuleRestoresNormalService() {
        add("bad", FaultMatch.ANY, new FaultTrigger.Always(), fail(FaultStatus.Condition.MEDIUM_ERROR));
        read(A, 0, 1).assertCheck(0x3, 0x11, 0x00);
        faults.remove("bad");
        read(A, 0, 1).assertGood();
    }
}
