package io.blocktarget.scsi;

import io.blocktarget.block.HeldWrites;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task management in the device server (SAM-5 §7) against a backend whose writes the test holds: a function
 * completes only once every task it reaches has stopped — a held write reaches the medium before the answer, never
 * after — and the set-wide functions reach every I_T nexus's tasks, through the task set and through the transports
 * registered for the nexuses ({@link NexusTasks}).
 */
class TaskManagementTest {
    private static final int LBS = 512;
    private static final int WRITE_10 = 0x2A;

    private final HeldWrites lun0 = new HeldWrites(Scsi.ram("held0", LBS, 4096, 1 << 20));
    private final HeldWrites lun1 = new HeldWrites(Scsi.ram("held1", LBS, 4096, 1 << 20));
    private final ScsiTarget target = Scsi.target(lun0, lun1);
    private final List<ByteBuf> dataOut = new ArrayList<>();
    /** What the "transports" of A and B were asked: one line per abort. */
    private final List<String> transportAborts = new ArrayList<>();

    /** One command in flight: its completion, when it comes. */
    private static final class InFlight {
        ScsiResponse response;
    }

    TaskManagementTest() {
        for (ItNexus n : List.of(A, B)) {
            for (long lun : List.of(0L, 1L)) {
                Scsi.ready(target, n, lun);
            }
            target.attach(n, (scope, stopped) -> {
                transportAborts.add((n == A ? "A" : "B") + " lun " + scope.lun() + " tag " + scope.taskTag());
                stopped.accept(0);
            });
        }
    }

    @AfterEach
    void tearDown() {
        lun0.releaseAll();
        lun1.releaseAll();
        dataOut.forEach(ByteBuf::release);
        assertThat(target.unit(0).tasksInExecution()).as("tasks left in the task set").isZero();
        assertThat(target.unit(1).tasksInExecution()).isZero();
        lun0.close();
        lun1.close();
    }

    private InFlight write(ItNexus nexus, long lun, long tag, long lba, byte[] data) {
        ByteBuf out = Unpooled.directBuffer(data.length).writeBytes(data);
        dataOut.add(out);
        InFlight f = new InFlight();
        target.execute(ScsiCommand.of(nexus, lun, Unpooled.wrappedBuffer(Scsi.ten(WRITE_10, 0, lba, data.length / LBS)),
                TaskAttribute.SIMPLE, tag, data.length, out), r -> f.response = r);
        return f;
    }

    private byte[] read(long lun, long lba) {
        return Scsi.run(target, A, lun, Scsi.ten(0x28, 0, lba, 1), null).assertGood().data();
    }

    private static Runnable counting(AtomicInteger done) {
        return done::incrementAndGet;
    }

    @Test
    void logicalUnitResetAnswersOnlyAfterTheHeldWriteLandedAndRaisesPowerOnResetForTheOthers() {
        byte[] data = Scsi.pattern(1, LBS);
        InFlight w = write(A, 0, 7, 3, data);
        assertThat(lun0.held()).hasSize(1);
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.LOGICAL_UNIT_RESET, B, 0, TaskScope.ANY, counting(done));
        assertThat(done).as("FUNCTION COMPLETE while a write is in the backend").hasValue(0);
        assertThat(transportAborts).containsExactlyInAnyOrder("A lun 0 tag -1", "B lun 0 tag -1");
        lun0.release(3);
        assertThat(done).hasValue(1);
        assertThat(w.response.status()).isEqualTo(ScsiStatus.GOOD); // the transport drops it: aborted, no status
        // SAM-5 §6.3.3: every nexus sees the reset once, the requester too; the other LUN is untouched
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
        Scsi.run(target, A, 1, Scsi.testUnitReady(), null).assertGood();
        assertThat(read(0, 3)).as("the write landed before the answer").isEqualTo(data);
    }

    @Test
    void clearTaskSetReachesEveryNexusAndTellsTheOnesThatLostTasks() {
        InFlight w = write(A, 0, 7, 3, Scsi.pattern(2, LBS));
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.CLEAR_TASK_SET, B, 0, TaskScope.ANY, counting(done));
        assertThat(done).hasValue(0);
        lun0.releaseAll();
        assertThat(done).hasValue(1);
        assertThat(w.response).isNotNull();
        // SAM-5 §7.4 with TAS = 0: COMMANDS CLEARED BY ANOTHER INITIATOR for the nexus whose task was aborted
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2F, 0x00);
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void clearTaskSetWithNothingInFlightCompletesAtOnceAndTellsNobody() {
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.CLEAR_TASK_SET, B, 0, TaskScope.ANY, counting(done));
        assertThat(done).hasValue(1);
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void abortTaskSetWaitsForTheRequestersTasksOnly() {
        write(A, 0, 1, 10, Scsi.pattern(3, LBS));
        write(B, 0, 2, 20, Scsi.pattern(4, LBS));
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.ABORT_TASK_SET, A, 0, TaskScope.ANY, counting(done));
        assertThat(transportAborts).containsExactly("A lun 0 tag -1");
        assertThat(done).hasValue(0);
        lun0.release(10);
        assertThat(done).as("B's write is not A's task set").hasValue(1);
        assertThat(lun0.held()).hasSize(1);
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void abortTaskWaitsForThatTaskOnly() {
        write(A, 0, 1, 10, Scsi.pattern(5, LBS));
        write(A, 0, 2, 20, Scsi.pattern(6, LBS));
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.ABORT_TASK, A, 0, 2, counting(done));
        assertThat(transportAborts).containsExactly("A lun 0 tag 2");
        lun0.release(10);
        assertThat(done).as("task 1 is not the one aborted").hasValue(0);
        lun0.release(20);
        assertThat(done).hasValue(1);
    }

    @Test
    void targetResetWaitsForEveryLogicalUnit() {
        write(A, 0, 1, 10, Scsi.pattern(7, LBS));
        write(B, 1, 2, 20, Scsi.pattern(8, LBS));
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.TARGET_RESET, A, 0, TaskScope.ANY, counting(done));
        assertThat(transportAborts).containsExactlyInAnyOrder("A lun -1 tag -1", "B lun -1 tag -1");
        lun0.release(10);
        assertThat(done).hasValue(0);
        lun1.release(20);
        assertThat(done).hasValue(1);
        for (ItNexus n : java.util.List.of(A, B)) {                // every nexus, the requester too, every LUN
            Scsi.run(target, n, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
            Scsi.run(target, n, 1, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
            Scsi.run(target, n, 1, Scsi.testUnitReady(), null).assertGood();
        }
    }

    @Test
    void theAnswerWaitsForTheTransportsToo() {
        List<Runnable> pending = new ArrayList<>();
        ItNexus c = new ItNexus("iqn.2026-11.test:host-c,i,0x23d000000003", Scsi.TARGET + ",t,0x0001", 1);
        Scsi.ready(target, c, 0);
        target.attach(c, (scope, stopped) -> pending.add(() -> stopped.accept(1)));
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.CLEAR_TASK_SET, B, 0, TaskScope.ANY, counting(done));
        assertThat(done).as("C's transport has not dropped its tasks yet").hasValue(0);
        pending.forEach(Runnable::run);
        assertThat(done).hasValue(1);
        // C lost a task waiting for data-out: it learns about it
        Scsi.run(target, c, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2F, 0x00);
    }

    @Test
    void aDetachedNexusIsNotAsked() {
        NexusTasks stale = (scope, stopped) -> {
            throw new AssertionError("asked after detach");
        };
        ItNexus c = new ItNexus("iqn.2026-11.test:host-c,i,0x23d000000003", Scsi.TARGET + ",t,0x0001", 1);
        target.attach(c, stale);
        target.detach(c, (scope, stopped) -> { }); // another registration: not removed
        target.detach(c, stale);
        AtomicInteger done = new AtomicInteger();
        target.taskManagement(TaskManagementFunction.LOGICAL_UNIT_RESET, B, 0, TaskScope.ANY, counting(done));
        assertThat(done).hasValue(1);
    }
}
