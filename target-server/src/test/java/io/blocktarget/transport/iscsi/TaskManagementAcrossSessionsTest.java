package io.blocktarget.transport.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.HeldWrites;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TaskManagementResponse;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task management through the transport with the real device server and a backend whose writes the test holds (the
 * way Linux's scsi_eh meets a slow target): FUNCTION COMPLETE comes only once every affected task has stopped, the
 * set-wide functions reach the other session's tasks (SAM-5 §7.4, §7.7; RFC 7143 §11.5.1), and a task waiting for
 * Data-Out is dropped without a further R2T.
 */
class TaskManagementAcrossSessionsTest {
    private static final int LBS = 512;
    private static final int QUEUE_DEPTH = 8;

    private final HeldWrites device = new HeldWrites(new RamBlockDevice("held", new BlockGeometry(LBS, 4096, 256),
            false, new MemoryBudget(1 << 20)));
    private final ScsiTargetDevice target = ScsiTargetDevices.create(
            List.of(new LogicalUnitSpec(TARGET, 0, "held", device))).get(TARGET);
    private final IscsiTransport transport = Harness.transport(IscsiSettings.defaults().withQueueDepth(QUEUE_DEPTH),
            target);
    private Harness a;
    private Harness b;

    @AfterEach
    void tearDown() {
        device.releaseAll();
        a.close();
        b.close();
        device.close();
    }

    private Harness session(long isid, String... keys) {
        Harness h = new Harness(transport);
        h.isid = isid;
        h.login(keys).release();
        Harness.assertCheckCondition(tur(h), 0x06, 0x29); // the new nexus's POWER ON / RESET
        assertGood(tur(h));
        return h;
    }

    private void login(String... keysOfA) {
        a = session(Harness.ISID, keysOfA);
        b = session(Harness.ISID + 1);
    }

    private static ScsiResponse tur(Harness h) {
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        return h.expect(ScsiResponse.class);
    }

    private static void assertGood(ScsiResponse r) {
        try {
            assertThat(r.status()).isZero();
        } finally {
            r.release();
        }
    }

    private static TaskManagementRequest tmf(Harness h, TmfFunction function, int referencedTask) {
        return new TaskManagementRequest(true, function, 0, 0x900 + h.itt++, referencedTask, h.cmdSN, 0, h.cmdSN - 1,
                0);
    }

    private static void expectFunctionComplete(Harness h) {
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        try {
            assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
        } finally {
            r.release();
        }
    }

    private byte[] read(Harness h, long lba) {
        h.send(h.command(Harness.read10(lba, 1), true, false, LBS, Unpooled.EMPTY_BUFFER, true));
        DataIn d = h.expect(DataIn.class);
        try {
            byte[] out = new byte[d.data().readableBytes()];
            d.data().getBytes(d.data().readerIndex(), out);
            return out;
        } finally {
            d.release();
        }
    }

    @Test
    void lunResetFromAnotherSessionAnswersOnlyAfterTheExecutingWriteLanded() {
        login();
        byte[] data = Harness.pattern(LBS, 5);
        a.send(a.command(Harness.write10(3, 1), false, true, LBS, Unpooled.copiedBuffer(data), true));
        assertThat(a.receive()).isNull();
        assertThat(device.held()).hasSize(1);
        b.send(tmf(b, TmfFunction.LOGICAL_UNIT_RESET, Bhs.RESERVED_TAG));
        assertThat(b.receive()).as("FUNCTION COMPLETE while A's write is in the backend").isNull();
        device.releaseAll();
        expectFunctionComplete(b);
        assertThat(a.receive()).as("no response for A's aborted write (§11.5.1)").isNull();
        // SAM-5 §6.3.3: every nexus learns about the reset, B that asked for it too; the write reached the medium
        // before the answer
        Harness.assertCheckCondition(tur(a), 0x06, 0x29);
        assertThat(read(a, 3)).isEqualTo(data);
        Harness.assertCheckCondition(tur(b), 0x06, 0x29);
        assertGood(tur(b));
    }

    @Test
    void clearTaskSetFromAnotherSessionWaitsAndRaisesCommandsClearedByAnotherInitiator() {
        login();
        a.send(a.command(Harness.write10(4, 1), false, true, LBS, Unpooled.copiedBuffer(new byte[LBS]), true));
        b.send(tmf(b, TmfFunction.CLEAR_TASK_SET, Bhs.RESERVED_TAG));
        assertThat(b.receive()).isNull();
        device.releaseAll();
        expectFunctionComplete(b);
        assertThat(a.receive()).isNull();
        Harness.assertCheckCondition(tur(a), 0x06, 0x2F);
        assertGood(tur(a));
        assertGood(tur(b));
    }

    @Test
    void abortTaskSetOfOneSessionLeavesTheOtherSessionsWriteAlone() {
        login();
        a.send(a.command(Harness.write10(5, 1), false, true, LBS, Unpooled.copiedBuffer(new byte[LBS]), true));
        b.send(tmf(b, TmfFunction.ABORT_TASK_SET, Bhs.RESERVED_TAG));
        expectFunctionComplete(b);
        device.releaseAll();
        assertGood(a.expect(ScsiResponse.class));
        assertGood(tur(a));
    }

    @Test
    void abortTaskWaitsForTheHeldWriteAndThenAnswers() {
        login();
        a.send(a.command(Harness.write10(6, 1), false, true, LBS, Unpooled.copiedBuffer(new byte[LBS]), true));
        int victim = a.itt - 1;
        a.send(tmf(a, TmfFunction.ABORT_TASK, victim));
        assertThat(a.receive()).isNull();
        device.releaseAll();
        expectFunctionComplete(a);
        assertThat(a.receive()).isNull();
        assertGood(tur(a));
    }

    @Test
    void lunResetDropsTheOtherSessionsWriteWaitingForDataOut() {
        login("ImmediateData", "No", "InitialR2T", "Yes", "MaxBurstLength", "1024", "FirstBurstLength", "512",
                "MaxOutstandingR2T", "1");
        a.send(a.command(Harness.write10(8, 4), false, true, 4 * LBS, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = a.expect(R2t.class);
        assertThat(r2t.desiredDataTransferLength()).isEqualTo(1024);
        b.send(tmf(b, TmfFunction.LOGICAL_UNIT_RESET, Bhs.RESERVED_TAG));
        expectFunctionComplete(b); // nothing was executing
        // A still answers the R2T: the data is discarded, no further R2T, no response, nothing reaches the medium
        a.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 0, 0, Unpooled.wrappedBuffer(new byte[1024])));
        assertThat(a.receive()).isNull();
        assertThat(device.held()).isEmpty();
        ScsiResponse ua = tur(a);
        // the aborted task no longer counts against the CmdSN window
        assertThat(ua.maxCmdSN() - ua.expCmdSN()).isEqualTo(QUEUE_DEPTH - 1);
        Harness.assertCheckCondition(ua, 0x06, 0x29);
        assertThat(a.open()).isTrue();
    }
}
