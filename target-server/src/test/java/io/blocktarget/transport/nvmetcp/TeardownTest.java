package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.state.StateCounters;
import io.blocktarget.transport.tcp.CapturedLog;
import org.junit.jupiter.api.Test;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection's end (issue 28 item 11): every command outstanding when the host closes the connection ends exactly
 * once — one executing in the NVMe layer completes there once and nothing goes on the wire after the close; one
 * waiting for host data or for its fused partner never reaches the NVMe layer; every buffer is released once (the
 * paranoid leak detector and Netty's refcount checks fail the test otherwise); the queue is closed once.
 */
class TeardownTest {
    @Test
    void commandsInEveryStateEndOnceWhenTheHostCloses() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            // EXECUTING: an in-capsule write, its completion held by the NVMe layer
            host.capsule(Sqe.of(0x01, 1, 1, SglDescriptor.inCapsule(0, 4096), 0), pattern(4096, 1));
            // AWAITING_H2C_DATA: a write whose data the host never sends
            host.capsule(Sqe.of(0x01, 2, 1, SglDescriptor.transportDataBlock(8192), 8));
            assertThat(host.next()).isInstanceOf(R2T.class);
            // AWAITING_FUSED: a Compare waiting for the capsule after it
            host.capsule(Sqe.of(0x05, 3, 1, SglDescriptor.inCapsule(0, 4096), 16).withFuse(Sqe.FUSE_FIRST),
                    pattern(4096, 2));
            assertThat(host.target.submitted).extracting(s -> s.sqe().cid()).containsExactly(1);
            NvmeTcpConnection connection = host.connection();
            assertThat(connection.commandStates().stragglers())
                    .isEqualTo("AWAITING_H2C_DATA 1, AWAITING_FUSED 1, EXECUTING 1");
            host.channel.close();
            host.channel.runPendingTasks();
            FakeTarget.FakeQueue queue = host.target.queues.getLast();
            assertThat(queue.closed).as("the queue closes once").isEqualTo(1);
            // the teardown check: what the NVMe layer does not hold ended at the close, what it holds has not
            assertThat(connection.commandStates().stragglers()).as("stragglers after the close")
                    .isEqualTo("EXECUTING 1");
            // the NVMe layer completes the executing command after the close: dropped, its data released once
            host.target.held.forEach(Runnable::run);
            host.channel.runPendingTasks();
            assertThat(host.drain()).as("nothing on the wire after the close").isEmpty();
            assertThat(host.target.submitted).as("nothing reaches the NVMe layer after the close")
                    .extracting(s -> s.sqe().cid()).containsExactly(1);
            assertThat(queue.closed).isEqualTo(1);
            assertEveryCommandEnded(connection, 4);   // the Connect and the three
        }
    }

    /** Issue 27: once the NVMe layer completed what it held, every command of the connection is DONE, none leaked. */
    static void assertEveryCommandEnded(NvmeTcpConnection connection, long commands) {
        StateCounters<CommandState> states = connection.commandStates();
        assertThat(states.stragglers()).as("commands not DONE at teardown").isEmpty();
        assertThat(states.get(CommandState.DONE)).as("commands ended").isEqualTo(commands);
    }

    /**
     * The check sees a command the NVMe layer never completes (a leak on its side): it stays EXECUTING after the
     * close, so the check never passes until the completion arrives.
     */
    @Test
    void aCommandNeverCompletedIsAStraggler() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.capsule(Sqe.of(0x02, 9, 1, SglDescriptor.transportDataBlock(4096), 0));   // a read, held
            NvmeTcpConnection connection = host.connection();
            host.channel.close();
            host.channel.runPendingTasks();
            assertThat(connection.commandStates().stragglers()).isEqualTo("EXECUTING 1");
            assertThat(connection.commandStates().live()).isOne();
            host.target.held.forEach(Runnable::run);   // the completion comes after all: the check passes
            host.channel.runPendingTasks();
            assertEveryCommandEnded(connection, 2);
        }
    }

    /** A command lost on some path (counted, in no table) is one WARN line once the others ended. */
    @Test
    void aLostCommandIsReportedByStateOnceTheOthersEnded() {
        try (HostEnd host = HostEnd.open(LIMITS);
             CapturedLog log = new CapturedLog("blocktarget.nvmetcp")) {
            host.open(1, 127, 0);
            NvmeTcpConnection connection = host.connection();
            Command lost = new Command(99, Sqe.of(0x02, 77, 1, SglDescriptor.transportDataBlock(512), 0),
                    connection.commandStates());
            lost.transitionTo(CommandState.AWAITING_H2C_DATA);
            host.channel.close();
            host.channel.runPendingTasks();
            assertThat(log.lines).filteredOn(l -> l.contains("not ended at teardown")).singleElement().asString()
                    .startsWith("WARNING ").endsWith("commands not ended at teardown: AWAITING_H2C_DATA 1");
            assertThat(connection.commandStates().stragglers()).isEqualTo("AWAITING_H2C_DATA 1");
        }
    }

    /** A fused pair whose second arrives only after the close is never submitted; the first's data is released. */
    @Test
    void aFusedFirstWaitingAtTheCloseIsNeverSubmitted() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(Sqe.of(0x05, 3, 1, SglDescriptor.transportDataBlock(8192), 16).withFuse(Sqe.FUSE_FIRST));
            R2T r2t = (R2T) host.next();
            NvmeTcpConnectionTest.answer(host, r2t, pattern(8192, 3), 8192);   // its data is here: AWAITING_FUSED
            NvmeTcpConnection connection = host.connection();
            host.channel.close();
            host.channel.runPendingTasks();
            assertThat(host.target.submitted).isEmpty();
            assertThat(host.target.fused).isEmpty();
            assertEveryCommandEnded(connection, 2);
        }
    }
}
