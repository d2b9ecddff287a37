package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault rules as an NVMe host meets them (issue 11): the status a rule names, its Error Information log entry with
 * the first LBA in the rule's range (Base §5.16.1.2), a delay, and a held command that Abort (Base §5.1), a
 * controller reset (CC.EN = 0, Base §3.7.2) and the queue's connection closing release.
 */
class FaultRulesNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:faults";
    private static final int LBS = 4096;

    private final ManualClock clock = new ManualClock();
    private final LunState state = new LunState("f", null, java.util.Optional.empty(), clock);
    private final LunFaults faults = state.faults();
    private final BlockDevice device = FaultBlockDevice.wrap(TestSupport.ram("f", LBS, LBS, 2048), faults);
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "f", device, state)),
            List.of(), NvmeLimits.DEFAULT, clock, Map.of());
    private final TestHost host = TestHost.enabled(target, NQN);
    private final NvmeQueue io = host.connectIo(1);

    @AfterEach
    void tearDown() {
        assertThat(faults.holds().size()).as("held commands left").isZero();
        // issue 27: every exit path (status, delay, abort, reset, queue close) ran the completion function's LUN
        // step once — nothing is left in flight
        assertThat(state.inFlight().count()).as("commands left in flight").isZero();
        host.admin.close();
        device.close();
    }

    private void add(String id, FaultMatch match, FaultTrigger trigger, FaultAction action) {
        faults.add(new FaultRule(id, match, trigger, action));
    }

    private CompletableFuture<Reply> submit(int cid, long slba) {
        CompletableFuture<Reply> done = new CompletableFuture<>();
        io.submit(TestHost.rw(NvmOpcode.READ, cid, 1, slba, 1, LBS, false), null, (status, dw0, dw1, data) -> {
            assertThat(done.complete(new Reply(status, dw0, dw1, data))).as("completed once").isTrue();
        });
        return done;
    }

    @Test
    void mediumErrorIsUnrecoveredReadErrorLoggedAtTheFirstLbaOfTheRange() {
        add("bad", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(1000, 1099), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.MEDIUM_ERROR)));
        host.read(io, 1, 990, 10, LBS).release();
        assertThat(host.io(io, TestHost.rw(NvmOpcode.READ, 0x77, 1, 995, 10, LBS, false), null).status())
                .isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
        ByteBuf page = host.getLogPage(1, 0, 0, 64, false).data();
        assertThat(page.getLongLE(0)).as("Error Count").isEqualTo(1);
        assertThat(page.getUnsignedShortLE(8)).as("SQID").isEqualTo(1);
        assertThat(page.getUnsignedShortLE(10)).as("CID").isEqualTo(0x77);
        assertThat(page.getLongLE(16)).as("LBA: first in the rule's range").isEqualTo(1000);
        assertThat(page.getIntLE(24)).as("NSID").isEqualTo(1);
        page.release();
        assertThat(host.write(io, 1, 1000, new byte[LBS], LBS, false).status()).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void conditionsAndExplicitStatuses() {
        add("w", FaultMatch.ANY.withLbas(1, 1), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.MEDIUM_ERROR)));
        add("busy", FaultMatch.ANY.withLbas(2, 2), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.BUSY)));
        add("x", FaultMatch.ANY.withLbas(3, 3), new FaultTrigger.Always(),
                new FaultAction.Fail(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 0, 0x06)));
        add("i", FaultMatch.ANY.withLbas(4, 4), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.ABORTED)));
        assertThat(host.write(io, 1, 1, new byte[LBS], LBS, false).status()).isEqualTo(NvmeStatus.WRITE_FAULT);
        Reply busy = host.read(io, 1, 2, 1, LBS);
        assertThat(busy.status()).isEqualTo(NvmeStatus.NAMESPACE_NOT_READY);
        assertThat(busy.status().dnr()).as("retryable").isFalse();
        assertThat(host.read(io, 1, 3, 1, LBS).status()).isEqualTo(NvmeStatus.INTERNAL_ERROR);
        assertThat(host.read(io, 1, 4, 1, LBS).status()).isEqualTo(NvmeStatus.COMMAND_INTERRUPTED);
    }

    @Test
    void queueAndHostSelect() {
        add("q2", FaultMatch.ANY.withQueue(2), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.NOT_READY)));
        Reply r = host.read(io, 1, 0, 1, LBS);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        r.release();
        NvmeQueue q2 = host.connectIo(2);
        assertThat(host.read(q2, 1, 0, 1, LBS).status()).isEqualTo(NvmeStatus.NAMESPACE_NOT_READY);
        faults.remove("q2");
        add("other-host", FaultMatch.ANY.withInitiator("nqn.other"), new FaultTrigger.Always(),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.NOT_READY)));
        r = host.read(q2, 1, 0, 1, LBS);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        r.release();
    }

    @Test
    void aDelayedReadCompletesNoSoonerThanTheDelay() {
        add("slow", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.Delay(TimeUnit.MILLISECONDS.toNanos(150), 0));
        CompletableFuture<Reply> delayed = submit(0x21, 0);
        assertThat(delayed).as("waits on the namespace's clock").isNotDone();
        clock.advance(149, TimeUnit.MILLISECONDS);
        assertThat(delayed).as("1 ms early").isNotDone();
        clock.advance(1, TimeUnit.MILLISECONDS);   // dispatches on this thread; the RAM disk completes inline
        Reply r = delayed.join();
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        r.release();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aThrottledNamespaceMovesNoMoreThanItsBandwidth() {
        add("bw", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.Throttle(0, 40L * LBS));
        // 40 blocks/s: a read of 4 blocks costs 100 ms of the namespace's bandwidth
        List<CompletableFuture<Reply>> reads = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CompletableFuture<Reply> done = new CompletableFuture<>();
            io.submit(TestHost.rw(NvmOpcode.READ, 0x40 + i, 1, 0, 4, LBS, false), null,
                    (status, dw0, dw1, data) -> done.complete(new Reply(status, dw0, dw1, data)));
            reads.add(done);
        }
        assertThat(reads.get(0)).as("the first slot is free").isDone();
        assertThat(reads.get(1)).isNotDone();
        clock.advance(99, TimeUnit.MILLISECONDS);
        assertThat(reads.get(1)).as("1 ms early").isNotDone();
        clock.advance(1, TimeUnit.MILLISECONDS);
        assertThat(reads.get(1)).isDone();
        assertThat(reads.get(2)).isNotDone();
        clock.advance(100, TimeUnit.MILLISECONDS);
        for (CompletableFuture<Reply> f : reads) {
            Reply r = f.join();
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
            r.release();
        }
        assertThat(clock.pending()).isZero();
    }

    @Test
    void abortReleasesTheHeldCommandWithCommandAbortRequested() {
        add("hang", FaultMatch.ANY.withLbas(9, 9), new FaultTrigger.Always(), new FaultAction.NoResponse());
        CompletableFuture<Reply> held = submit(0x31, 9);
        assertThat(held).isNotDone();
        assertThat(state.inFlight().count()).isEqualTo(1);
        Reply abort = host.admin(new AbortCommand(host.nextCid(), 1, 0x31).toSqe());
        assertThat(abort.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(abort.dw0() & 1).as("aborted").isZero();
        assertThat(held.getNow(null).status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST);
        assertThat(state.inFlight().count()).isZero();
        assertThat(host.admin(new AbortCommand(host.nextCid(), 1, 0x31).toSqe()).dw0() & 1)
                .as("gone: not aborted the second time").isEqualTo(1);
    }

    @Test
    void aControllerResetReleasesHeldCommands() {
        add("hang", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.NoResponse());
        CompletableFuture<Reply> held = submit(0x40, 0);
        assertThat(held).isNotDone();
        assertThat(host.propertySet(ControllerRegister.CC, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(held.getNow(null).status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST);
    }

    @Test
    void theQueueClosingReleasesItsHeldCommands() {
        add("hang", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.NoResponse());
        CompletableFuture<Reply> held = submit(0x41, 0);
        io.close();
        assertThat(held.getNow(null).status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST);
    }
}
