package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.state.StateCounters;
import io.blocktarget.transport.tcp.CapturedLog;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection's end (issue 27): every task ends in a final state (DONE or ABORTED) — a write waiting for its data
 * and a command in the device server are aborted — and a task lost on some path is reported by one WARN line listing
 * it by state (SPDK's qpair-teardown check). {@link Harness#close} makes the same check for every iSCSI test.
 */
class TeardownTest {
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 1024);

    @Test
    void everyTaskEndsInAFinalStateWhenTheConnectionCloses() {
        Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login("ImmediateData", "No", "InitialR2T", "Yes").release();
        StateCounters<ScsiTask.State> tasks = h.connection.taskStates();
        // DONE: a read answered
        h.send(h.command(Harness.read10(0, 8), true, false, 4096, Unpooled.EMPTY_BUFFER, true));
        h.receiveAll().forEach(io.blocktarget.protocol.iscsi.TargetPdu::release);
        // RECEIVING_DATA: a write whose data the initiator never sends
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        h.expect(R2t.class).release();
        // EXECUTING: a read whose completion the device server holds
        target.hold();
        h.send(h.command(Harness.read10(8, 8), true, false, 4096, Unpooled.EMPTY_BUFFER, true));
        assertThat(tasks.stragglers()).isEqualTo("RECEIVING_DATA 1, EXECUTING 1");
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            h.close();   // checks no straggler is left
            assertThat(log.count("not ended at teardown")).isZero();
        }
        assertThat(tasks.snapshot()).containsEntry("DONE", 1L).containsEntry("ABORTED", 2L);
        target.releaseHeld();   // the held completion arrives after the close: dropped, counted nowhere new
        assertThat(tasks.snapshot()).containsEntry("DONE", 1L).containsEntry("ABORTED", 2L);
        assertThat(target.unreleased()).isEmpty();
    }

    /** A task lost on some path (counted, but in no table the close walks) is one WARN line at the close. */
    @Test
    void aLostTaskIsReportedByStateAtTheClose() {
        Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login().release();
        StateCounters<ScsiTask.State> tasks = h.connection.taskStates();
        ScsiTask lost = new ScsiTask(0x77, 0, 512, true, false, null, 0, ScsiTask.UnsolicitedPhase.ENDED, tasks);
        lost.transitionTo(ScsiTask.State.EXECUTING);
        try (CapturedLog log = new CapturedLog("blocktarget.iscsi")) {
            h.channel.finishAndReleaseAll();
            h.channel.runPendingTasks();
            assertThat(log.lines).filteredOn(l -> l.contains("not ended at teardown")).singleElement()
                    .asString().startsWith("WARNING ").endsWith("commands not ended at teardown: EXECUTING 1");
        }
        lost.transitionTo(ScsiTask.State.ABORTED);   // so that the harness's own check passes
        h.close();
        assertThat(target.unreleased()).isEmpty();
    }

    @Test
    void aCompletedSessionEndsWithEveryTaskDone() {
        Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login().release();
        for (int i = 0; i < 3; i++) {
            h.send(h.command(Harness.read10(i, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
            h.receiveAll().forEach(io.blocktarget.protocol.iscsi.TargetPdu::release);
        }
        StateCounters<ScsiTask.State> tasks = h.connection.taskStates();
        h.close();
        assertThat(tasks.snapshot()).containsExactly(java.util.Map.entry("RECEIVING_DATA", 0L),
                java.util.Map.entry("DRAINING", 0L), java.util.Map.entry("EXECUTING", 0L),
                java.util.Map.entry("DONE", 3L), java.util.Map.entry("ABORTED", 0L));
    }
}
