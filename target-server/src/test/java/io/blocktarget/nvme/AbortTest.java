package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Abort (Base §5.1): what can be aborted is, what cannot is reported honestly, ACL is advertised and enforced. */
class AbortTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:abort";
    private static final int ACL_OFFSET = 258;

    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "a", TestSupport.ram("a", 512, 512, 64))),
            List.of(), NvmeLimits.DEFAULT, new ManualClock(), Map.of());

    private static Reply abort(TestHost host, int sqid, int cid) {
        return host.admin(new AbortCommand(host.nextCid(), sqid, cid).toSqe());
    }

    @Test
    void aCommandWaitingForDataIsAbortedOnce() {
        TestHost host = TestHost.enabled(target, NQN);
        TestConnection io = new TestConnection();
        assertThat(host.tryConnectIo(1, 127, io).status()).isEqualTo(NvmeStatus.SUCCESS);
        io.abortable.add(42);
        Reply r = abort(host, 1, 42);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r.dw0() & 1).as("DW0 bit 0 = 0: aborted").isZero();
        assertThat(io.abortRequests).containsExactly(42);
        // the second time the transport no longer holds it: not aborted
        assertThat(abort(host, 1, 42).dw0() & 1).isEqualTo(1);
        host.admin.close();
    }

    @Test
    void anAdminCommandWaitingForDataIsAbortedThroughTheAdminConnection() {
        TestHost host = TestHost.enabled(target, NQN);
        host.adminConnection.abortable.add(55);
        assertThat(abort(host, 0, 55).dw0() & 1).isZero();
        assertThat(host.adminConnection.abortRequests).containsExactly(55);
        assertThat(abort(host, 0, 55).dw0() & 1).isEqualTo(1);
        host.admin.close();
    }

    @Test
    void anOutstandingAsyncEventRequestIsAborted() {
        TestHost host = TestHost.enabled(target, NQN);
        List<NvmeStatus> aer = new CopyOnWriteArrayList<>();
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), 7, 0, SglDescriptor.transportDataBlock(0)),
                null, (status, dw0, dw1, data) -> aer.add(status));
        assertThat(aer).isEmpty();
        assertThat(abort(host, 0, 7).dw0() & 1).isZero();
        assertThat(aer).containsExactly(NvmeStatus.ABORTED_BY_REQUEST);
        assertThat(abort(host, 0, 7).dw0() & 1).isEqualTo(1);
        host.admin.close();
        assertThat(aer).hasSize(1);
    }

    @Test
    void whatCannotBeAbortedIsReportedAsNotAborted() {
        TestHost host = TestHost.enabled(target, NQN);
        TestConnection io = new TestConnection();
        assertThat(host.tryConnectIo(1, 127, io).status()).isEqualTo(NvmeStatus.SUCCESS);
        // executing on the backend (the transport answers false), unconnected and out-of-range SQIDs, admin CIDs
        for (int[] target : new int[][]{{1, 5}, {2, 5}, {0xFFFF, 5}, {0, 1234}}) {
            Reply r = abort(host, target[0], target[1]);
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
            assertThat(r.dw0()).as("SQID %d CID %d", target[0], target[1]).isEqualTo(1);
        }
        // an Abort naming itself
        Reply self = host.admin(new AbortCommand(900, 0, 900).toSqe());
        assertThat(self.dw0()).isEqualTo(1);
        host.admin.close();
    }

    @Test
    void aclPlusOneAbortsMayBeOutstanding() {
        TestHost host = TestHost.enabled(target, NQN);
        ByteBuf id = host.identifyData(1, 0);
        int acl = id.getUnsignedByte(ACL_OFFSET);
        id.release();
        assertThat(acl).isEqualTo(3);
        TestConnection io = new TestConnection();
        assertThat(host.tryConnectIo(1, 127, io).status()).isEqualTo(NvmeStatus.SUCCESS);
        io.holdAborts = true;
        List<Integer> answers = new ArrayList<>();
        for (int i = 0; i <= acl; i++) {
            host.admin.submit(new AbortCommand(200 + i, 1, 10 + i).toSqe(), null,
                    (status, dw0, dw1, data) -> answers.add(status.isSuccess() ? dw0 : -1));
        }
        assertThat(answers).as("ACL + 1 = 4 outstanding").isEmpty();
        Reply over = abort(host, 1, 20);
        assertThat(over.status()).isEqualTo(NvmeStatus.ABORT_COMMAND_LIMIT_EXCEEDED);
        assertThat(over.status().dnr()).isTrue();
        io.heldAborts.getFirst().run();
        assertThat(answers).containsExactly(1);
        io.holdAborts = false;
        assertThat(abort(host, 1, 21).status()).as("a slot is free again").isEqualTo(NvmeStatus.SUCCESS);
        io.heldAborts.subList(1, io.heldAborts.size()).forEach(Runnable::run);
        assertThat(answers).containsExactly(1, 1, 1, 1);
        host.admin.close();
    }
}
