package io.blocktarget.scsi;

import io.blocktarget.block.HeldWrites;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.ReservationsTest.PREEMPT;
import static io.blocktarget.scsi.ReservationsTest.PREEMPT_AND_ABORT;
import static io.blocktarget.scsi.ReservationsTest.REGISTER;
import static io.blocktarget.scsi.ReservationsTest.RESERVE;
import static io.blocktarget.scsi.ReservationsTest.WE_RO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PREEMPT AND ABORT (SPC-5 §5.14.11.2.6, issue 28 item 5) against a backend whose writes the test holds: the
 * preempted I_T nexuses' tasks are aborted — in the task set and in their transports — the preempting command's GOOD
 * comes only after they are gone, the preempted learn REGISTRATIONS PREEMPTED and COMMANDS CLEARED BY ANOTHER
 * INITIATOR, and nobody else's tasks are touched. PREEMPT alone aborts nothing.
 */
class PreemptAndAbortTest {
    private static final int LBS = 512;
    private static final ItNexus C = new ItNexus("iqn.2026-11.test:host-c,i,0x23d000000009", Scsi.TARGET + ",t,0x0001", 1);

    private final HeldWrites device = new HeldWrites(Scsi.ram("paa", LBS, 4096, 1 << 20));
    private final ScsiTarget target = Scsi.target(device);
    private final List<ByteBuf> dataOut = new ArrayList<>();
    private final List<String> transportAborts = new ArrayList<>();

    PreemptAndAbortTest() {
        for (ItNexus n : List.of(A, B, C)) {
            Scsi.ready(target, n, 0);
            target.attach(n, (scope, stopped) -> {
                synchronized (transportAborts) {
                    transportAborts.add(name(n) + " lun " + scope.lun() + " tag " + scope.taskTag());
                }
                stopped.accept(n == B ? 1 : 0);   // B's transport also held a write waiting for its data-out
            });
        }
        out(A, REGISTER, 0, 0, 0xA).assertGood();
        out(B, REGISTER, 0, 0, 0xB).assertGood();
        out(C, REGISTER, 0, 0, 0xC).assertGood();
        out(B, RESERVE, WE_RO, 0xB, 0).assertGood();
    }

    private static String name(ItNexus n) {
        return n == A ? "A" : n == B ? "B" : "C";
    }

    @AfterEach
    void tearDown() {
        device.releaseAll();
        dataOut.forEach(ByteBuf::release);
        assertThat(target.unit(0).tasksInExecution()).as("tasks left in the task set").isZero();
        device.close();
    }

    private Scsi.Reply out(ItNexus nexus, int serviceAction, int type, long key, long saKey) {
        return Scsi.run(target, nexus, 0, ReservationsTest.prOut(serviceAction, type, 24),
                ReservationsTest.params(key, saKey, 0));
    }

    private CompletableFuture<ScsiResponse> write(ItNexus nexus, long tag, long lba) {
        ByteBuf out = Unpooled.directBuffer(LBS).writeBytes(Scsi.pattern(lba, LBS));
        dataOut.add(out);
        CompletableFuture<ScsiResponse> f = new CompletableFuture<>();
        target.execute(ScsiCommand.of(nexus, 0, Unpooled.wrappedBuffer(Scsi.ten(0x2A, 0, lba, 1)),
                TaskAttribute.SIMPLE, tag, LBS, out), f::complete);
        return f;
    }

    /** PR OUT from {@code nexus} without waiting for it. */
    private CompletableFuture<Scsi.Reply> outAsync(ItNexus nexus, int serviceAction, int type, long key, long saKey) {
        return CompletableFuture.supplyAsync(() -> out(nexus, serviceAction, type, key, saKey));
    }

    @Test
    void goodComesOnlyAfterThePreemptedNexusesTasksAreGone() throws Exception {
        CompletableFuture<ScsiResponse> bWrite = write(B, 1, 10);
        CompletableFuture<ScsiResponse> aWrite = write(A, 2, 20);
        CompletableFuture<ScsiResponse> cWrite = write(C, 3, 30);
        assertThat(device.held()).hasSize(3);
        CompletableFuture<Scsi.Reply> paa = outAsync(A, PREEMPT_AND_ABORT, WE_RO, 0xA, 0xB);
        long deadline = System.nanoTime() + 10_000_000_000L;   // a bounded wait for the abort, not a pause
        while (transportAborts.isEmpty() && !paa.isDone() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(transportAborts).containsExactly("B lun 0 tag -1");   // only the preempted nexus's transport
        assertThat(paa).as("GOOD while B's write is in the backend").isNotDone();
        device.release(20);                                               // A's own write: not waited for
        device.release(30);                                               // C is still registered: not aborted
        assertThat(paa).isNotDone();
        device.release(10);
        paa.join().assertGood();
        assertThat(bWrite.join().status()).isEqualTo(ScsiStatus.GOOD);   // the transport drops it: aborted
        assertThat(aWrite.join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(cWrite.join().status()).isEqualTo(ScsiStatus.GOOD);
        // the preempted nexus: its registration, then its tasks, once each
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2A, 0x05);
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2F, 0x00);
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
        // the reservation went to A with the preemption (SPC-5 §5.14.11.2.4): B, no longer registered, conflicts
        assertThat(Scsi.run(target, B, 0, Scsi.ten(0x2A, 0, 0, 1), new byte[LBS]).status())
                .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
        Scsi.run(target, C, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void aPreemptedNexusWithoutTasksIsToldOfItsRegistrationOnly() {
        target.attach(B, (scope, stopped) -> stopped.accept(0));
        out(A, PREEMPT_AND_ABORT, WE_RO, 0xA, 0xB).assertGood();
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x2A, 0x05);
        Scsi.run(target, B, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void preemptAloneAbortsNothing() {
        CompletableFuture<ScsiResponse> bWrite = write(B, 1, 10);
        out(A, PREEMPT, WE_RO, 0xA, 0xB).assertGood();                       // at once, B's write still held
        assertThat(transportAborts).isEmpty();
        assertThat(bWrite).isNotDone();
        device.release(10);
        assertThat(bWrite.join().status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void aFailedPreemptAndAbortAbortsNothing() {
        CompletableFuture<ScsiResponse> bWrite = write(B, 1, 10);
        assertThat(out(A, PREEMPT_AND_ABORT, WE_RO, 0xBAD, 0xB).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        assertThat(transportAborts).isEmpty();
        assertThat(bWrite).isNotDone();
        device.release(10);
        bWrite.join();
    }
}
