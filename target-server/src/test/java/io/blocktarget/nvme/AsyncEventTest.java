package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Asynchronous Event Requests (Base §5.2) and the Changed Namespace List (Base §5.16.1.5). */
class AsyncEventTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:aer";
    /** AET 2h (notice), AEI 00h (namespace attribute changed), LID 04h. */
    private static final int NS_CHANGED_DW0 = 0x02 | 0x00 << 8 | 0x04 << 16;

    private final ManualClock clock = new ManualClock();
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "one", TestSupport.ram("one", 512, 512, 64)),
                    new NamespaceSpec(NQN, 2, "two", TestSupport.ram("two", 512, 512, 64))),
            List.of(new NvmePort(1, "127.0.0.1", 4420)), NvmeLimits.DEFAULT, clock, java.util.Map.of());

    private record Completed(NvmeStatus status, int dw0) {
    }

    private final List<Completed> completed = new CopyOnWriteArrayList<>();

    private void aer(TestHost host) {
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), host.nextCid(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> {
                    assertThat(data).isNull();
                    completed.add(new Completed(status, dw0));
                });
    }

    private static List<Integer> changedList(TestHost host, boolean rae) {
        Reply log = host.getLogPage(0x04, 0, 0, 4096, rae);
        assertThat(log.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] b = log.bytes();
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < b.length; i += 4) {
            int id = b[i] & 0xFF | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
            if (id == 0) {
                break;
            }
            ids.add(id);
        }
        return ids;
    }

    @Test
    void namespaceChangeCompletesTheOutstandingRequest() {
        TestHost host = TestHost.enabled(target, NQN);
        assertThat(host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 8).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0, 0).dw0()).isEqualTo(1 << 8);
        aer(host);
        assertThat(completed).isEmpty();

        target.namespaceChanged(NQN, 2);
        assertThat(completed).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));

        // masked until the log is read: a second change waits, no second event
        aer(host);
        target.namespaceChanged(NQN, 1);
        assertThat(completed).hasSize(1);
        // RAE = 1 keeps the list and the mask
        assertThat(changedList(host, true)).containsExactly(1, 2);
        assertThat(changedList(host, false)).containsExactly(1, 2);
        assertThat(changedList(host, false)).isEmpty();
        // re-armed: the next change completes the request still outstanding
        target.namespaceChanged(NQN, 2);
        assertThat(completed).hasSize(2);
        host.admin.close();
    }

    @Test
    void eventBeforeRequestWaitsAndDisabledNoticesOnlyLog() {
        TestHost quiet = TestHost.enabled(target, NQN);
        TestHost eager = TestHost.enabled(target, NQN);
        eager.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 8 | 1 << 31); // bit 31 unsupported here
        assertThat(eager.getFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0, 0).dw0()).isEqualTo(1 << 8);
        target.namespaceChanged(NQN, 1);
        aer(eager);
        assertThat(completed).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));
        aer(quiet);
        assertThat(completed).hasSize(1);
        assertThat(changedList(quiet, false)).containsExactly(1);
        quiet.admin.close();
        // teardown aborts the outstanding request
        assertThat(completed).hasSize(2);
        assertThat(completed.get(1).status()).isEqualTo(NvmeStatus.ABORTED_SQ_DELETION);
        eager.admin.close();
    }

    private void aer(TestHost host, int cid, List<Completed> into) {
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), cid, 0, SglDescriptor.transportDataBlock(0)),
                null, (status, dw0, dw1, data) -> into.add(new Completed(status, dw0)));
    }

    /**
     * Issue 10 item 8b: the transport retires an AER whose CID the host reused. The retired request never
     * completes (not with the event, not at teardown), it frees its AERL slot, and the event it would have carried
     * waits for the next request instead of being lost.
     */
    @Test
    void retiredRequestNeverCompletesAndTheEventWaitsForTheNext() {
        TestHost host = TestHost.enabled(target, NQN);
        host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 8);
        List<Completed> stale = new CopyOnWriteArrayList<>();
        for (int cid = 100; cid < 104; cid++) {
            aer(host, cid, stale);
        }
        assertThat(host.admin.retireAsyncEventRequest(101)).isTrue();
        assertThat(host.admin.retireAsyncEventRequest(101)).as("retired once").isFalse();
        assertThat(host.admin.retireAsyncEventRequest(999)).isFalse();
        // its AERL slot is free again: a fifth request is accepted (4 outstanding)
        List<Completed> fresh = new CopyOnWriteArrayList<>();
        aer(host, 101, fresh);
        aer(host, 104, fresh);
        assertThat(fresh).containsExactly(new Completed(NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED, 0));
        fresh.clear();
        // retire all four: the event waits, then completes the next request at once
        for (int cid : new int[]{100, 101, 102, 103}) {
            assertThat(host.admin.retireAsyncEventRequest(cid)).isTrue();
        }
        target.namespaceChanged(NQN, 2);
        assertThat(stale).isEmpty();
        assertThat(fresh).isEmpty();
        aer(host, 105, fresh);
        assertThat(fresh).containsExactly(new Completed(NvmeStatus.SUCCESS, NS_CHANGED_DW0));
        host.admin.close();
        assertThat(stale).as("retired requests are not aborted at teardown either").isEmpty();
    }

    @Test
    void moreThanAerlPlusOneRequestsExceedTheLimit() {
        TestHost host = TestHost.enabled(target, NQN);
        for (int i = 0; i < 4; i++) {
            aer(host);
        }
        assertThat(completed).isEmpty();
        aer(host);
        assertThat(completed).containsExactly(new Completed(NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED, 0));
        assertThat(completed.getFirst().status().dnr()).isTrue();
        host.admin.close();
        assertThat(completed).hasSize(5);
    }

    @Test
    void discoveryControllersHearOfDiscoveryChanges() {
        TestHost host = TestHost.enabled(target, "nqn.2014-08.org.nvmexpress.discovery");
        host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 31);
        aer(host);
        Reply first = host.getLogPage(0x70, 0, 0, 1024, false);
        long genctr = first.data().getLongLE(0);
        first.release();
        target.discoveryChanged();
        // AET notice, AEI F0h, LID 70h
        assertThat(completed).containsExactly(new Completed(NvmeStatus.SUCCESS, 0x02 | 0xF0 << 8 | 0x70 << 16));
        Reply header = host.getLogPage(0x70, 0, 0, 1024, false);
        assertThat(header.data().getLongLE(0)).isEqualTo(genctr + 1);
        header.release();
        assertThatThrownBy(() -> target.namespaceChanged("nqn.2014-08.org.nvmexpress.discovery", 1))
                .isInstanceOf(IllegalArgumentException.class);
        host.admin.close();
    }
}
