package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.R2T;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fused operations on the wire (Base §3.4.2): the submission queue's order is the capsules' order, so the transport
 * pairs a FUSE = first capsule with the capsule right after it when that has FUSE = second, and hands both to the
 * NVMe layer together once both commands' data is here (in the capsule or by R2T, in either order). Anything else
 * goes to the NVMe layer alone (which answers Missing Fused Command).
 */
class FusedPairingTest {
    private static final int LENGTH = 8192;

    private static Sqe compare(int cid, SglDescriptor sgl) {
        return Sqe.of(0x05, cid, 1, sgl, 16, 0, LENGTH / 512 - 1).withFuse(Sqe.FUSE_FIRST);
    }

    private static Sqe write(int cid, SglDescriptor sgl) {
        return Sqe.of(0x01, cid, 1, sgl, 16, 0, LENGTH / 512 - 1).withFuse(Sqe.FUSE_SECOND);
    }

    private static List<Integer> cids(HostEnd host) {
        return host.target.submitted.stream().map(s -> s.sqe().cid()).toList();
    }

    @Test
    void twoInCapsuleCommandsAreSubmittedAsOnePair() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] expected = pattern(LENGTH, 1);
            byte[] data = pattern(LENGTH, 2);
            host.capsule(compare(3, SglDescriptor.inCapsule(0, LENGTH)), expected);
            assertThat(host.target.submitted).as("the first waits for the next capsule").isEmpty();
            host.capsule(write(4, SglDescriptor.inCapsule(0, LENGTH)), data);
            assertThat(host.target.fused).containsExactly(new int[] {3, 4});
            assertThat(cids(host)).containsExactly(3, 4);
            assertThat(host.target.submitted.get(0).data()).isEqualTo(expected);
            assertThat(host.target.submitted.get(1).data()).isEqualTo(data);
            assertThat(List.of(host.response().cid(), host.response().cid())).containsExactly(3, 4);
        }
    }

    @Test
    void aSecondWhoseDataComesByR2tIsWaitedFor() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] data = pattern(LENGTH, 3);
            host.capsule(compare(3, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 4));
            host.capsule(write(4, SglDescriptor.transportDataBlock(LENGTH)));
            R2T r2t = (R2T) host.next();
            assertThat(r2t.cccid()).isEqualTo(4);
            assertThat(host.target.submitted).isEmpty();
            NvmeTcpConnectionTest.answer(host, r2t, data, 4096);
            assertThat(host.target.fused).containsExactly(new int[] {3, 4});
            assertThat(host.target.submitted.get(1).data()).isEqualTo(data);
        }
    }

    @Test
    void aFirstWhoseDataComesByR2tIsWaitedForAndStillGoesFirst() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] expected = pattern(LENGTH, 5);
            host.capsule(compare(3, SglDescriptor.transportDataBlock(LENGTH)));
            R2T r2t = (R2T) host.next();
            host.capsule(write(4, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 6));
            assertThat(host.target.submitted).as("the second's data is here, the first's is not").isEmpty();
            NvmeTcpConnectionTest.answer(host, r2t, expected, LENGTH);
            assertThat(host.target.fused).containsExactly(new int[] {3, 4});
            assertThat(cids(host)).containsExactly(3, 4);
            assertThat(host.target.submitted.getFirst().data()).isEqualTo(expected);
        }
    }

    @Test
    void aFirstFollowedByAnyOtherCommandAndALoneSecondGoAlone() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(compare(3, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 7));
            host.noData(0x00, 5);                                    // a Flush: not the second
            assertThat(cids(host)).containsExactly(3, 5);            // the first alone, then the Flush
            host.capsule(write(6, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 8)); // no first before it
            assertThat(cids(host)).containsExactly(3, 5, 6);
            assertThat(host.target.fused).isEmpty();
            assertThat(host.target.submitted.get(0).sqe().fuse()).isEqualTo(Sqe.FUSE_FIRST);
            assertThat(host.target.submitted.get(2).sqe().fuse()).isEqualTo(Sqe.FUSE_SECOND);
        }
    }

    /** A first whose data is not here yet, followed by a non-second: it goes alone once its data came. */
    @Test
    void aFirstStillWaitingForDataThatLostItsSecondGoesAloneLater() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(compare(3, SglDescriptor.transportDataBlock(LENGTH)));
            R2T r2t = (R2T) host.next();
            host.noData(0x00, 5);
            assertThat(cids(host)).containsExactly(5);
            NvmeTcpConnectionTest.answer(host, r2t, pattern(LENGTH, 9), LENGTH);
            assertThat(cids(host)).containsExactly(5, 3);
            assertThat(host.target.fused).isEmpty();
        }
    }

    /** A second the transport itself fails (a bad SGL): the first, waiting for it, goes on alone. */
    @Test
    void aSecondFailedByTheTransportReleasesTheFirst() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(compare(3, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 10));
            // a Write whose SGL is a transport data block but carries in-capsule data: Invalid Field in Command
            host.capsule(write(4, SglDescriptor.transportDataBlock(LENGTH)), pattern(16, 11));
            Cqe one = host.response();
            Cqe two = host.response();
            Cqe refused = one.cid() == 4 ? one : two;
            assertThat(List.of(one.cid(), two.cid())).containsExactlyInAnyOrder(3, 4);
            assertThat(refused.status().sc()).isEqualTo(NvmeStatus.INVALID_FIELD.sc());
            assertThat(cids(host)).containsExactly(3);
            assertThat(host.target.fused).isEmpty();
        }
    }

    /** Abort (Base §5.1) of a first waiting for its partner: it never reached the NVMe layer, so it ends at once. */
    @Test
    void aFirstWaitingForItsPartnerCanBeAborted() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(compare(3, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 12));
            AtomicReference<Boolean> aborted = new AtomicReference<>();
            host.target.connection.abort(3, aborted::set);
            assertThat(aborted.get()).isTrue();
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(3);
            assertThat(cqe.status().sc()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST.sc());
            host.capsule(write(4, SglDescriptor.inCapsule(0, LENGTH)), pattern(LENGTH, 13));
            assertThat(cids(host)).as("the second came after an aborted first: alone").containsExactly(4);
            assertThat(host.target.fused).isEmpty();
        }
    }
}
